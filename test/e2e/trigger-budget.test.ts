// Real n8n 2.41.1 on its durable scheduler, whose polls have a time budget: a Svc server that stops answering gives a
// failed execution that says why, where n8n would otherwise abandon the poll with a line in its log only.
import { pollEvery, SANDBOX_CREDENTIAL } from '../../scripts/examples';
import type { StoredExecution } from '../../scripts/executions';
import type { Workflow } from '../../scripts/n8n';
import { waitUntil } from '../../scripts/processes';
import { DURABLE_CURSOR_ENV, useE2eEnvironment } from './environment';

const WORKFLOW_ID = 'svcE2eBudget041';
const TRIGGER = 'Chat changes';
/** n8n's budget for a poll is then 5 s: the timeout less its margin (at least 5 s), and it abandons the poll at 10 s. */
const POLL_TIMEOUT_SECONDS = 10;
/** Generous for a loaded 2-core machine: a bound on waiting, never on how fast n8n is. */
const WAIT_MS = 120_000;

const workflow: Workflow = {
	id: WORKFLOW_ID,
	name: 'Poll budget e2e',
	nodes: [
		{
			id: 'e2e41000-0000-4000-8000-000000000001',
			name: TRIGGER,
			type: 'n8n-nodes-svc.svcChatTrigger',
			typeVersion: 1,
			position: [0, 0],
			parameters: { pollTimes: pollEvery(5), startFrom: 'beginning', output: 'raw' },
			credentials: { svcApi: { id: SANDBOX_CREDENTIAL.id, name: SANDBOX_CREDENTIAL.name } },
		},
	],
	connections: {},
	settings: { executionOrder: 'v1' },
};

const env = useE2eEnvironment(
	{
		sandbox: { seed: 41, chats: 5 },
		n8nEnv: { ...DURABLE_CURSOR_ENV, N8N_SCHEDULER_POLL_TIMEOUT: String(POLL_TIMEOUT_SECONDS) },
	},
	async ({ n8n }) => {
		// Created and published on the running n8n, through its REST API: no CLI call.
		await n8n.start();
		await n8n.importWorkflows([workflow]);
		await n8n.publishWorkflows([WORKFLOW_ID]);
	},
);

/** The error the trigger's run holds in a failed poll's execution (n8n stores no items with it). */
const triggerError = (execution: StoredExecution) =>
	execution.data.resultData.runData[TRIGGER]?.[0]?.error as
		| { message?: string; description?: string }
		| undefined;

test('a server that stops answering: the poll fails within its budget, and the failed execution says why', async () => {
	// A poll with the server answering first: the seeded chats come out.
	const [first] = await env.n8n.waitForExecutions(WORKFLOW_ID, 1, WAIT_MS);
	expect(first.status).toBe('success');
	env.sandbox.control.injectFault({
		kind: 'delay',
		delayMs: 10 * 60_000,
		path: '/api/v2/chats',
		count: 1_000,
	});
	const failed = await waitUntil(
		async () =>
			(await env.n8n.readExecutions(WORKFLOW_ID, { all: true })).find(
				(execution) => execution.status === 'error',
			),
		{
			what: 'a failed poll of the unanswered server',
			timeoutMs: WAIT_MS,
			output: () => env.n8n.serverOutput.slice(-4_000),
			everyMs: 1_000,
		},
	);
	const host = new URL(env.sandbox.url).host;
	expect(triggerError(failed)).toMatchObject({
		message: `Host "${host}" did not answer in time`,
		description:
			'Check the host, then try again later. The poll ran out of the time n8n gives it, so the next poll starts again from the same place.',
	});
	expect(env.n8n.serverOutput).not.toContain('Poll exceeded its timeout and was abandoned');
});
