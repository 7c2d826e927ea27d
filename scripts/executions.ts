// n8n's stored executions: their run data, read through n8n's REST API.
import type { INodeExecutionData, ITaskDataConnections } from 'n8n-workflow';

import type { N8nRuntime } from './runtime';

/** An error as n8n stores it on a run or a node run. */
type StoredError = Record<string, unknown> & {
	message?: string;
	description?: string;
	node?: { name: string };
};

export interface RunData {
	resultData: {
		runData: Record<
			string,
			Array<{ data?: ITaskDataConnections; error?: StoredError; executionStatus?: string }>
		>;
		error?: StoredError;
		lastNodeExecuted?: string;
	};
	/** What main queued for a worker: a job that crashed before it ran keeps its trigger's items only here. */
	executionData?: {
		nodeExecutionStack?: Array<{ node: { name: string }; data: ITaskDataConnections }>;
	};
}

export interface StoredExecution {
	id: number;
	mode: string;
	status: string;
	startedAt: string | null;
	stoppedAt: string | null;
	data: RunData;
}

export const FINISHED_STATUSES = ['success', 'error', 'crashed', 'canceled'];
const ALL_STATUSES = [...FINISHED_STATUSES, 'new', 'running', 'waiting', 'unknown'];

/** The items a node gave on one output (default the first), in its first run. */
export function nodeItems(data: RunData, nodeName: string, outputIndex = 0): INodeExecutionData[] {
	const runs = data.resultData.runData[nodeName];
	if (!runs?.length)
		throw new Error(
			`Node "${nodeName}" did not run; ran: ${Object.keys(data.resultData.runData).join(', ')}`,
		);
	return runs[0].data?.main[outputIndex] ?? [];
}

/** The json of every item a node gave on one output, in its first run. */
export function nodeOutput(
	data: RunData,
	nodeName: string,
	outputIndex = 0,
): Array<Record<string, unknown>> {
	return nodeItems(data, nodeName, outputIndex).map((item) => item.json);
}

/** The items a trigger handed to an execution: from its run data once it ran, else from the queued start stack. */
export function triggerItems(
	execution: StoredExecution,
	triggerName: string,
): Array<Record<string, unknown>> {
	const fromRun = execution.data.resultData?.runData?.[triggerName]?.[0]?.data?.main[0];
	const stacked = execution.data.executionData?.nodeExecutionStack?.find(
		(entry) => entry.node.name === triggerName,
	);
	return (fromRun ?? stacked?.data.main[0] ?? []).map((item) => item.json);
}

/** One call to n8n's REST API in a logged-in session: method, route under /rest/, JSON body; gives the reply's data. */
export type RestCall = (
	method: string,
	route: string,
	body?: unknown,
) => Promise<Record<string, unknown>>;

/**
 * Every execution of a workflow (any status), oldest first, through GET /rest/executions (2.x and 1.x take the same
 * filter; one page of 100 is plenty for a test, and more is an error rather than a silent cut). With `withData`,
 * each one's run data from GET /rest/executions/:id, which n8n sends "flatted" (JSON with shared references).
 */
export async function restExecutions(
	rest: RestCall,
	runtime: N8nRuntime,
	workflowId: string,
	withData: boolean,
): Promise<StoredExecution[]> {
	const filter = encodeURIComponent(JSON.stringify({ workflowId, status: ALL_STATUSES }));
	const page = (await rest('GET', `executions?filter=${filter}&limit=100`)) as unknown as {
		results: Array<Omit<StoredExecution, 'id' | 'data'> & { id: string }>;
		count: number;
	};
	if (page.count > page.results.length)
		throw new Error(`Workflow ${workflowId} has ${page.count} executions; only 100 are read`);
	const { parse } = runtime.require('flatted') as { parse(text: string): unknown };
	const executions = page.results
		.map((execution) => ({ ...execution, id: Number(execution.id), data: undefined! as RunData }))
		.sort((a, b) => a.id - b.id);
	for (const execution of withData ? executions : []) {
		const { data } = (await rest('GET', `executions/${execution.id}`)) as { data: string };
		execution.data = parse(data) as RunData;
	}
	return executions;
}
