// Real n8n 2.41.1: stopping an execution while Send Template is broadcasting sends no further request to Svc.
import { setTimeout as delay } from 'node:timers/promises';
import { SANDBOX_CREDENTIAL } from '../../scripts/examples';
import { postJsonOnNewConnection } from '../../scripts/n8n';
import { waitUntil } from '../../scripts/processes';
import { useE2eEnvironment } from './environment';
import { broadcastWorkflow, IDS, WEBHOOK_PATHS } from './queueWorkflows';

const BROADCAST_PATH = '/api/v2/rt/send_broadcast';
/** 3 requests of 1,000 recipients (the default), each answered ANSWER_AFTER_MS late. */
const RECIPIENTS = 3_000;
const REQUESTS = 3;
const ANSWER_AFTER_MS = 4_000;
const WAIT_MS = 120_000;

const env = useE2eEnvironment({ sandbox: { seed: 42, chats: 5 } }, async ({ n8n }) => {
	await n8n.importWorkflows([broadcastWorkflow(SANDBOX_CREDENTIAL)]);
	await n8n.publishWorkflows([IDS.broadcast]);
	await n8n.start();
});

const broadcastRequests = () =>
	env.sandbox.control.requestLog().filter((entry) => entry.path === BROADCAST_PATH).length;

test('stopping the execution mid-broadcast: it ends canceled, and no further broadcast request reaches Svc', async () => {
	env.sandbox.control.injectFault({
		kind: 'delay',
		delayMs: ANSWER_AFTER_MS,
		path: BROADCAST_PATH,
		count: REQUESTS,
	});
	const contacts = Array.from({ length: RECIPIENTS }, (_, index) => ({
		phone: `+1555${String(index).padStart(7, '0')}`,
		name: `Contact ${index}`,
	}));
	// The webhook answers at once, so the execution goes on in n8n while the test stops it.
	const url = `${env.n8n.baseUrl}/webhook/${WEBHOOK_PATHS.broadcast}`;
	await waitUntil(
		async () => (await postJsonOnNewConnection(url, { contacts }, 60_000)).status === 200,
		{ what: `POST ${url}`, timeoutMs: 30_000, everyMs: 500 },
	);
	// The first request is on its way (the sandbox holds it for ANSWER_AFTER_MS): stop the execution now.
	await waitUntil(async () => broadcastRequests() >= 1, {
		what: 'the first broadcast request',
		timeoutMs: WAIT_MS,
		everyMs: 100,
	});
	const [running] = await env.n8n.readExecutions(IDS.broadcast, { all: true, withData: false });
	expect(running.status).toBe('running');
	await (
		await env.n8n.rest()
	)('POST', `executions/${running.id}/stop`);
	const sentAtStop = broadcastRequests();

	const [stopped] = await waitUntil(
		async () => {
			const executions = await env.n8n.readExecutions(IDS.broadcast, { withData: false });
			return executions.length > 0 && executions;
		},
		{ what: 'the stopped execution to end', timeoutMs: WAIT_MS, everyMs: 500 },
	);
	expect({ id: stopped.id, status: stopped.status }).toEqual({
		id: running.id,
		status: 'canceled',
	});
	// Long enough for the later requests, had the node gone on sending.
	await delay(REQUESTS * ANSWER_AFTER_MS);
	expect(broadcastRequests()).toBe(sentAtStop);
	expect(sentAtStop).toBeLessThan(REQUESTS);
});
