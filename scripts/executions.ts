// n8n's stored executions: their run data, read through n8n's REST API.
import {
	ExecutionStatusList,
	type ExecutionSummary,
	type IDataObject,
	type INodeExecutionData,
	type IRunExecutionData,
} from 'n8n-workflow';

import type { N8nRuntime } from './runtime';

/** An error as n8n stores it on a run: plain JSON, not one of n8n's error classes. */
type StoredError = Record<string, unknown> & {
	message?: string;
	description?: string;
	node?: { name: string };
};

/** n8n's run data; a queued job that crashed before it ran keeps its trigger's items only in executionData. */
export type RunData = {
	resultData: Pick<IRunExecutionData['resultData'], 'runData' | 'lastNodeExecuted'> & {
		error?: StoredError;
	};
	executionData?: Pick<NonNullable<IRunExecutionData['executionData']>, 'nodeExecutionStack'>;
};

/** An execution as GET /rest/executions lists it (its dates as JSON strings), with its number and run data. */
export type StoredExecution = Omit<ExecutionSummary, 'id'> & { id: number; data: RunData };

const FINISHED_STATUSES = ['success', 'error', 'crashed', 'canceled'];

/** The items a node gave on one output (default the first), in its first run. */
export function nodeItems(data: RunData, nodeName: string, outputIndex = 0): INodeExecutionData[] {
	const runs = data.resultData.runData[nodeName];
	const ran = Object.keys(data.resultData.runData).join(', ');
	if (!runs?.length) throw new Error(`Node "${nodeName}" did not run; ran: ${ran}`);
	return runs[0].data?.main[outputIndex] ?? [];
}

export const nodeOutput = (data: RunData, nodeName: string, outputIndex = 0) =>
	nodeItems(data, nodeName, outputIndex).map((item) => item.json);

/** The items a trigger handed to an execution: from its run data once it ran, else from the queued start stack. */
export function triggerItems(execution: StoredExecution, triggerName: string) {
	const { resultData, executionData } = execution.data;
	const fromRun = resultData?.runData?.[triggerName]?.[0]?.data?.main[0];
	const stacked = executionData?.nodeExecutionStack?.find(({ node }) => node.name === triggerName);
	return (fromRun ?? stacked?.data.main[0] ?? []).map((item) => item.json);
}

/** One call to n8n's REST API in a logged-in session: method, route under /rest/, JSON body; gives the reply's data. */
export type RestCall = (method: string, route: string, body?: unknown) => Promise<IDataObject>;

/** Finished executions' run data by number, status and stop time (n8n changes them only with those): tests poll. */
export type FinishedRunData = Map<string, RunData>;

/**
 * The executions of a workflow, oldest first: the finished ones, or with `all` those of any status. Read through
 * GET /rest/executions (2.x and 1.x take the same filter; one page of 100 is plenty for a test, and a count over 100
 * is an error rather than a silent cut: n8n counts in a query of its own, which may see an execution the page does
 * not; `latest` takes the newest 100 instead), and unless `withData` is false each one's run data from
 * GET /rest/executions/:id, "flatted", or `finished`.
 */
export async function readExecutions(
	rest: RestCall,
	runtime: N8nRuntime,
	workflowId: string,
	{ all = false, withData = true, latest = false },
	finished: FinishedRunData,
): Promise<StoredExecution[]> {
	const status = all ? ExecutionStatusList : FINISHED_STATUSES;
	const filter = encodeURIComponent(JSON.stringify({ workflowId, status }));
	type Page = { results: ExecutionSummary[]; count: number };
	const page = (await rest('GET', `executions?filter=${filter}&limit=100`)) as unknown as Page;
	if (page.count > 100 && !latest)
		throw new Error(`Workflow ${workflowId} has ${page.count} executions; only 100 are read`);
	const { parse } = runtime.require('flatted') as { parse(text: string): RunData };
	const executions = page.results
		.map((execution) => ({ ...execution, id: Number(execution.id), data: undefined! as RunData }))
		.sort((a, b) => a.id - b.id);
	for (const execution of withData ? executions : []) {
		const key = `${execution.id} ${execution.status} ${String(execution.stoppedAt)}`;
		const read = async () => parse(String((await rest('GET', `executions/${execution.id}`)).data));
		execution.data = finished.get(key) ?? (await read());
		if (FINISHED_STATUSES.includes(execution.status)) finished.set(key, execution.data);
	}
	return executions;
}
