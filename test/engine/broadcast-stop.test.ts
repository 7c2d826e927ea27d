// Stopping an execution while Send Template is broadcasting, on n8n's engine (both lines): it ends canceled, and no
// further broadcast request reaches Svc.
import { waitUntil } from '../../scripts/processes';
import { FLAVOURS } from '../../scripts/runtime';
import { broadcastWorkflow, RECIPIENTS_PER_REQUEST, SEND_NODE } from '../e2e/queueWorkflows';
import { useEngine } from '../harness/engine';

const BROADCAST_PATH = '/api/v2/rt/send_broadcast';
/** 3 requests, each answered ANSWER_AFTER_MS late. */
const REQUESTS = 3;
const RECIPIENTS = REQUESTS * RECIPIENTS_PER_REQUEST;
const ANSWER_AFTER_MS = 4_000;
/** A bound on waiting for a fact, never on how fast the machine is. */
const WAIT_MS = 120_000;
/** The one contact of a later execution, whose broadcast marks a moment after the stopped one had its chance to go on. */
const MARKER = { phone: '+15559990001', name: 'Marker' };
const WORKFLOW = broadcastWorkflow({ pauseAfterSend: false });

describe.each([FLAVOURS['n8n-2'], FLAVOURS['n8n-1']])('on the engine of $name', (flavour) => {
	const env = useEngine(flavour, { seed: 42, chats: 5 });

	const broadcastRequests = () =>
		env.sandbox.control.requestLog().filter((entry) => entry.path === BROADCAST_PATH);

	/** Runs the workflow as its webhook starts it, with these contacts in the request's body. */
	const broadcast = (contacts: Array<typeof MARKER>, stop?: AbortSignal) =>
		env.engine.run(WORKFLOW, {
			credentials: env.credentials,
			from: 'Webhook',
			items: [{ json: { body: { contacts } } }],
			mode: 'webhook',
			stop,
		});

	test(
		'stopping the execution mid-broadcast: it ends canceled, and no further broadcast request reaches Svc',
		async () => {
			env.sandbox.control.injectFault({
				kind: 'delay',
				delayMs: ANSWER_AFTER_MS,
				path: BROADCAST_PATH,
				count: REQUESTS,
			});
			const stop = new AbortController();
			let ended = false;
			const stopped = broadcast(
				Array.from({ length: RECIPIENTS }, (_, index) => ({
					phone: `+1555${String(index).padStart(7, '0')}`,
					name: `Contact ${index}`,
				})),
				stop.signal,
			).finally(() => (ended = true));
			// The first request is on its way (the sandbox holds it for ANSWER_AFTER_MS): stop the execution now.
			await waitUntil(async () => broadcastRequests().length >= 1 || ended, {
				what: 'the first broadcast request',
				timeoutMs: WAIT_MS,
				everyMs: 10,
			});
			stop.abort();
			const atStop = broadcastRequests();
			// In a run that had not ended, and still unanswered: the stop came while it was in flight.
			expect(ended).toBe(false);
			expect(atStop.map((entry) => entry.status)).toEqual([0]);
			const sentAtStop = atStop.length;

			// It settles once the Send Template node has returned: the stopped execution runs nothing any more.
			const run = await stopped;
			expect(run.status).toBe('canceled');
			expect(run.data.resultData.lastNodeExecuted).toBe(SEND_NODE);
			// Had the node gone on, its next request would follow the answer to the one in flight: once the sandbox has given
			// that answer, a later execution's one-contact broadcast marks the time, and nothing may come in before it.
			await waitUntil(async () => broadcastRequests().every((entry) => entry.status !== 0), {
				what: 'the answers to the broadcast requests sent before the stop',
				timeoutMs: WAIT_MS,
				everyMs: 10,
			});
			env.sandbox.control.clearFaults();
			expect((await broadcast([MARKER])).status).toBe('success');
			const isMarker = (entries: unknown) => JSON.stringify(entries).includes(MARKER.phone);
			expect(broadcastRequests()).toHaveLength(sentAtStop + 1);
			expect(isMarker(env.sandbox.control.broadcasts().at(-1)?.data.entries)).toBe(true);
			expect(sentAtStop).toBeLessThan(REQUESTS);
		},
		WAIT_MS * 3,
	);
});
