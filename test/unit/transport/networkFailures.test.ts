// Network failures as each n8n line really throws them: what reached the server, what is retried, what the user reads.
import { ENDPOINTS, type EndpointPath } from '../../../nodes/SvcChat/transport/endpoints';
import { svcRequest } from '../../../nodes/SvcChat/transport/request';
import type { IDataObject } from 'n8n-workflow';

import { testCredentials } from '../../harness/contexts';
import { instantPauses } from '../../harness/fixtures';
import { contextSending, rejectionOf } from './support';
import {
	CAPTURED_NETWORK_ERRORS,
	rebuildCapturedError,
	type CapturedFault,
} from './fixtures/networkErrorShapes';

const HOST = '127.0.0.1:4100';
const BROADCAST_NOTE =
	'It was not retried, because a broadcast may already have gone out: check the broadcasts in Svc before sending it again.';
const CONDITION_NOTE = 'The outcome is unknown: the status may already have changed.';

interface RequestKind {
	path: EndpointPath;
	body?: IDataObject;
	notRetried?: string;
}

const REQUESTS: Record<string, RequestKind> = {
	get: { path: 'departments' },
	broadcast: { path: 'rt/send_broadcast', body: { operator_id: 1, data: { kind: 'x' } } },
	conditionalStatus: {
		path: 'rt/agent_status',
		body: { email: 'a@svc.test', status: 'online', condition: { initial_statuses: ['dinner'] } },
		notRetried: CONDITION_NOTE,
	},
	unconditionalStatus: { path: 'rt/agent_status', body: { email: 'a@svc.test', status: 'online' } },
};

/** Sends one request whose every attempt throws `error`; returns what the user is told and how many attempts ran. */
async function failWith(error: Error, kind: RequestKind) {
	let attempts = 0;
	instantPauses();
	const context = contextSending(
		async () => {
			attempts++;
			throw error;
		},
		testCredentials(`http://${HOST}`),
	);
	const thrown = await rejectionOf(
		svcRequest(context, kind.path, { body: kind.body, notRetried: kind.notRetried }),
	);
	const { message, description: fix, context: details } = thrown;
	return { attempts, message, fix, networkCode: details.networkCode };
}

const CLOSED = {
	message: `Host "${HOST}" closed the connection`,
	fix: 'Try again later.',
	networkCode: 'ECONNRESET',
};
const TIMED_OUT = {
	message: `Host "${HOST}" did not answer in time`,
	fix: 'Check the host, then try again later.',
	networkCode: 'ECONNABORTED',
};

/** A failure after the request was written: GET and an unconditional status retried, the others sent once. */
function sentOutcomeUnknown(base: typeof CLOSED) {
	const retried = { ...base, attempts: 4, fix: `${base.fix} The request was tried 4 times.` };
	return {
		get: retried,
		broadcast: { ...base, attempts: 1, fix: `${base.fix} ${BROADCAST_NOTE}` },
		conditionalStatus: { ...base, attempts: 1, fix: `${base.fix} ${CONDITION_NOTE}` },
		unconditionalStatus: retried,
	};
}

/** A failure before anything was written: one attempt, the same text for every request, nothing about going out. */
function nothingSent(message: string, fix: string, networkCode: string) {
	const outcome = { attempts: 1, message, fix, networkCode };
	return {
		get: outcome,
		broadcast: outcome,
		conditionalStatus: outcome,
		unconditionalStatus: outcome,
	};
}

const EXPECTED: Record<CapturedFault, Record<string, unknown>> = {
	refused: nothingSent(
		`Host "${HOST}" refused the connection`,
		'Check the host and port in the Svc API credentials, and that the chat server is running.',
		'ECONNREFUSED',
	),
	closedOnAccept: sentOutcomeUnknown(CLOSED),
	closedAfterRequest: sentOutcomeUnknown(CLOSED),
	resetAfterBody: sentOutcomeUnknown(CLOSED),
	stalledPastTimeout: sentOutcomeUnknown(TIMED_OUT),
	untrustedCertificate: nothingSent(
		`The TLS certificate of "${HOST}" is not trusted (DEPTH_ZERO_SELF_SIGNED_CERT)`,
		"Renew or correct the certificate on the server, or turn on 'Ignore SSL Issues' in the credentials if you trust this host.",
		'DEPTH_ZERO_SELF_SIGNED_CERT',
	),
	invalidUrl: nothingSent(
		`Host "${HOST}" could not be reached (ERR_INVALID_URL)`,
		'Check the host in the Svc API credentials and the network between n8n and the chat server.',
		'ERR_INVALID_URL',
	),
	unknownHost: nothingSent(
		`Host "${HOST}" could not be found`,
		'Check the host in the Svc API credentials.',
		'ENOTFOUND',
	),
};

const LINES = Object.keys(CAPTURED_NETWORK_ERRORS) as Array<keyof typeof CAPTURED_NETWORK_ERRORS>;
const FAULTS = Object.keys(EXPECTED) as CapturedFault[];

test('the captured shapes cover both n8n lines and the same faults', () => {
	expect(LINES).toEqual(['n8n-1.123.81', 'n8n-2.41.1']);
	for (const line of LINES)
		expect(Object.keys(CAPTURED_NETWORK_ERRORS[line]).sort()).toEqual([...FAULTS].sort());
});

describe.each(LINES)('%s', (line) => {
	test.each(FAULTS)('%s: the message, the retries and the note', async (fault) => {
		const error = rebuildCapturedError(CAPTURED_NETWORK_ERRORS[line][fault]);
		const seen: Record<string, unknown> = {};
		for (const [name, kind] of Object.entries(REQUESTS)) seen[name] = await failWith(error, kind);
		expect(seen).toEqual(EXPECTED[fault]);
	});
});

test('n8n 1.x keeps the system code only in httpCode, so it is read from there', () => {
	const captured = CAPTURED_NETWORK_ERRORS['n8n-1.123.81'].resetAfterBody;
	expect(captured.cause).toBeUndefined();
	expect(captured.httpCode).toBe('ECONNRESET');
});

describe('a failure whose shape is not known never says that nothing was sent', () => {
	test.each([
		[
			'no code at all',
			new Error('Something odd happened'),
			`The request to "${HOST}" did not complete`,
		],
		[
			'a code not known here',
			Object.assign(new Error('odd'), { code: 'ERR_ODD_THING' }),
			`The request to "${HOST}" did not complete (ERR_ODD_THING)`,
		],
		[
			'an n8n error whose httpCode is not a system code',
			Object.assign(new Error('odd'), { httpCode: 'weird code' }),
			`The request to "${HOST}" did not complete`,
		],
	])('%s', async (_case, error, message) => {
		const broadcast = await failWith(error, REQUESTS.broadcast);
		expect(broadcast).toEqual({
			attempts: 1,
			message,
			fix: `Check the host in the Svc API credentials and the network between n8n and the chat server, then try again later. ${BROADCAST_NOTE}`,
			networkCode: (error as { code?: string }).code,
		});
		const conditional = await failWith(error, REQUESTS.conditionalStatus);
		expect(conditional.fix).toMatch(
			/The outcome is unknown: the status may already have changed\.$/,
		);
		expect(`${broadcast.message} ${conditional.message}`).not.toMatch(
			/could not be (reached|found)|refused/,
		);
	});
});

test('the endpoint table decides what is retried: GETs and the status, never the broadcast', () => {
	// A GET is retried without a rule of its own (see endpoints.test.ts).
	expect(ENDPOINTS.departments.method).toBe('GET');
	expect(ENDPOINTS['rt/agent_status'].retried).toBe(true);
	expect(ENDPOINTS['rt/send_broadcast']).toMatchObject({ notRetried: BROADCAST_NOTE });
	expect(ENDPOINTS['rt/send_broadcast'].retried).toBeUndefined();
});
