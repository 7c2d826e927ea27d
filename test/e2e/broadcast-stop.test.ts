// Real n8n 2.41.1: stopping an execution while Send Template is broadcasting sends no further request to Svc.
import { SANDBOX_CREDENTIAL } from '../../scripts/examples';
import { postJsonOnNewConnection, type Workflow } from '../../scripts/n8n';
import { delay, waitUntil } from '../../scripts/processes';
import { useE2eEnvironment } from './environment';

const WORKFLOW_ID = 'svcE2eStop042';
const WEBHOOK_PATH = 'svc-e2e-stop-broadcast';
const BROADCAST_PATH = '/api/v2/rt/send_broadcast';
const RECIPIENTS = 1_000;
const RECIPIENTS_PER_REQUEST = 100;
/** Each broadcast request is answered this late, so the execution is still sending when it is stopped. */
const ANSWER_AFTER_MS = 3_000;
const WAIT_MS = 120_000;

const workflow: Workflow = {
	id: WORKFLOW_ID,
	name: 'Stop a broadcast e2e',
	nodes: [
		{
			id: 'e2e42000-0000-4000-8000-000000000001',
			name: 'Campaign',
			type: 'n8n-nodes-base.webhook',
			typeVersion: 2,
			position: [0, 0],
			webhookId: 'e2e42000-0000-4000-8000-0000000000w1',
			// Answers at once, so the execution goes on in n8n while the test stops it.
			parameters: { httpMethod: 'POST', path: WEBHOOK_PATH, responseMode: 'onReceived' },
		},
		{
			id: 'e2e42000-0000-4000-8000-000000000002',
			name: 'One item per contact',
			type: 'n8n-nodes-base.splitOut',
			typeVersion: 1,
			position: [220, 0],
			parameters: { fieldToSplitOut: 'body.contacts', options: {} },
		},
		{
			id: 'e2e42000-0000-4000-8000-000000000003',
			name: 'Send template',
			type: 'n8n-nodes-svc.svcChat',
			typeVersion: 2,
			position: [440, 0],
			parameters: {
				resource: 'broadcast',
				operation: 'sendTemplate',
				operatorId: 1,
				channelId: 'wa-main',
				templateId: 'welcome_v2',
				phoneNumber: '={{ $json.phone }}',
				languageCode: 'en',
				options: { recipientsPerRequest: RECIPIENTS_PER_REQUEST },
			},
			credentials: { svcApi: { id: SANDBOX_CREDENTIAL.id, name: SANDBOX_CREDENTIAL.name } },
		},
	],
	connections: {
		Campaign: { main: [[{ node: 'One item per contact', type: 'main', index: 0 }]] },
		'One item per contact': { main: [[{ node: 'Send template', type: 'main', index: 0 }]] },
	},
	settings: { executionOrder: 'v1' },
};

const env = useE2eEnvironment({ sandbox: { seed: 42, chats: 5 } }, async ({ n8n }) => {
	await n8n.importWorkflows([workflow]);
	await n8n.publishWorkflows([WORKFLOW_ID]);
	await n8n.start();
});

const broadcastRequests = () =>
	env.sandbox.control.requestLog().filter((entry) => entry.path === BROADCAST_PATH).length;

test('stopping the execution mid-broadcast: it ends canceled, and no further broadcast request reaches Svc', async () => {
	env.sandbox.control.injectFault({
		kind: 'delay',
		delayMs: ANSWER_AFTER_MS,
		path: BROADCAST_PATH,
		count: 100,
	});
	const contacts = Array.from({ length: RECIPIENTS }, (_, index) => ({
		phone: `+1555${String(index).padStart(7, '0')}`,
	}));
	const url = `${env.n8n.baseUrl}/webhook/${WEBHOOK_PATH}`;
	await waitUntil(
		async () => (await postJsonOnNewConnection(url, { contacts }, 60_000)).status === 200,
		{ what: `POST ${url}`, timeoutMs: 30_000, everyMs: 500 },
	);
	// The first request of ten is on its way (the sandbox holds it for ANSWER_AFTER_MS): stop the execution now.
	await waitUntil(async () => broadcastRequests() >= 1, {
		what: 'the first broadcast request',
		timeoutMs: WAIT_MS,
		everyMs: 100,
	});
	const [running] = await env.n8n.readExecutions(WORKFLOW_ID, { all: true, withData: false });
	expect(running.status).toBe('running');
	await (
		await env.n8n.rest()
	)('POST', `executions/${running.id}/stop`);
	const sentBeforeStop = broadcastRequests();

	const [stopped] = await waitUntil(
		async () => {
			const executions = await env.n8n.readExecutions(WORKFLOW_ID, { withData: false });
			return executions.length > 0 && executions;
		},
		{ what: 'the stopped execution to end', timeoutMs: WAIT_MS, everyMs: 500 },
	);
	expect({ id: stopped.id, status: stopped.status }).toEqual({
		id: running.id,
		status: 'canceled',
	});
	// Long enough for three more requests, had the node gone on sending.
	await delay(3 * ANSWER_AFTER_MS);
	expect(broadcastRequests()).toBe(sentBeforeStop);
	expect(sentBeforeStop).toBeLessThan(RECIPIENTS / RECIPIENTS_PER_REQUEST);
});
