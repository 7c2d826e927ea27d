// Runs workflows on a running n8n as the editor's "Execute workflow" does: REST calls, not an `n8n execute-batch` boot.
import type { INode } from 'n8n-workflow';

import type { RunData, StoredExecution } from '../../scripts/executions';
import type { N8n } from '../../scripts/n8n';
import { waitUntil } from '../../scripts/processes';

const MANUAL_TRIGGER = 'n8n-nodes-base.manualTrigger';

/**
 * Runs each workflow (it starts with a Manual Trigger) once, one after the other, each to its end, and gives what
 * N8n.executeBatch gives: the run data of each success, the error message of each failure; and each stored execution.
 * The body suits both n8n lines: 2.x reads the workflow from its database and ignores `workflowData`, which 1.x needs
 * (POST /rest/workflows/:id/run in workflows.controller.js, 2.41.1 and 1.123.81).
 */
export async function runManually(n8n: N8n, ids: string[]) {
	const rest = await n8n.rest();
	const runs: Record<string, RunData> = {};
	const errors: Record<string, string> = {};
	const executions: Record<string, StoredExecution> = {};
	for (const id of ids) {
		const workflowData = await rest('GET', `workflows/${id}`);
		const trigger = (workflowData.nodes as unknown as INode[]).find(
			(node) => node.type === MANUAL_TRIGGER,
		);
		if (!trigger) throw new Error(`Workflow ${id} has no Manual Trigger to run it from`);
		const body = { workflowData, triggerToStartFrom: { name: trigger.name } };
		const { executionId } = await rest('POST', `workflows/${id}/run`, body);
		if (executionId === undefined)
			throw new Error(`n8n started no execution of workflow ${id} (it waits for a webhook?)`);
		const execution = await waitUntil(
			async () =>
				(await n8n.readExecutions(id)).find((stored) => stored.id === Number(executionId)),
			{
				what: `execution ${executionId} of workflow ${id} to end`,
				timeoutMs: 120_000,
				everyMs: 200,
			},
		);
		executions[id] = execution;
		if (execution.status === 'success') runs[id] = execution.data;
		else errors[id] = execution.data.resultData.error?.message ?? execution.status;
	}
	return { runs, errors, executions };
}
