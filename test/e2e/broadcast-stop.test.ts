// Real n8n 2.41.1: stopping an execution while Send Template is broadcasting sends no further request to Svc.
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
/** The one contact of a later execution, whose broadcast marks a moment after the stopped one had its chance to go on. */
const MARKER = { phone: '+15559990001', name: 'Marker' };

const env = useE2eEnvironment({ sandbox: { seed: 42, chats: 5 } }, async ({ n8n }) => {
	await n8n.importWorkflows([broadcastWorkflow(SANDBOX_CREDENTIAL)]);
	await n8n.publishWorkflows([IDS.broadcast]);
	await n8n.start();
});

const broadcastRequests = () =>
	env.sandbox.control.requestLog().filter((entry) => entry.path === BROADCAST_PATH);

/** Starts the workflow through its webhook, which answers at once: the execution goes on in n8n. */
async function startBroadcast(contacts: Array<typeof MARKER>): Promise<void> {
	const url = `${env.n8n.baseUrl}/webhook/${WEBHOOK_PATHS.broadcast}`;
	await waitUntil(
		async () => (await postJsonOnNewConnection(url, { contacts }, 60_000)).status === 200,
		{ what: `POST ${url}`, timeoutMs: 30_000, everyMs: 500 },
	);
}

test('stopping the execution mid-broadcast: it ends canceled, and no further broadcast request reaches Svc', async () => {
	env.sandbox.control.injectFault({
		kind: 'delay',
		delayMs: ANSWER_AFTER_MS,
		path: BROADCAST_PATH,
		count: REQUESTS,
	});
	await startBroadcast(
		Array.from({ length: RECIPIENTS }, (_, index) => ({
			phone: `+1555${String(index).padStart(7, '0')}`,
			name: `Contact ${index}`,
		})),
	);
	// The first request is on its way (the sandbox holds it for ANSWER_AFTER_MS): stop the execution now.
	await waitUntil(async () => broadcastRequests().length >= 1, {
		what: 'the first broadcast request',
		timeoutMs: WAIT_MS,
		everyMs: 100,
	});
	const [running] = await env.n8n.readExecutions(IDS.broadcast, { all: true, withData: false });
	expect(running.status).toBe('running');
	await (
		await env.n8n.rest()
	)('POST', `executions/${running.id}/stop`);
	const sentAtStop = broadcastRequests().length;

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
	// Had the node gone on, its next request would follow the answer to the one in flight: once the sandbox has given
	// that answer, a later execution's one-contact broadcast marks the time, and nothing may come in before it.
	await waitUntil(async () => broadcastRequests().every((entry) => entry.status !== 0), {
		what: 'the answers to the broadcast requests sent before the stop',
		timeoutMs: WAIT_MS,
		everyMs: 100,
	});
	env.sandbox.control.clearFaults();
	await startBroadcast([MARKER]);
	const isMarker = (entries: unknown) => JSON.stringify(entries).includes(MARKER.phone);
	await waitUntil(
		async () => env.sandbox.control.broadcasts().some(({ data }) => isMarker(data.entries)),
		{ what: "the later execution's broadcast", timeoutMs: WAIT_MS, everyMs: 100 },
	);
	expect(broadcastRequests()).toHaveLength(sentAtStop + 1);
	expect(isMarker(env.sandbox.control.broadcasts().at(-1)?.data.entries)).toBe(true);
	expect(sentAtStop).toBeLessThan(REQUESTS);
});
