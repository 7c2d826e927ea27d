// The network-fault matrix on n8n 2.x's and 1.x's engines: each fault against each kind of request, its message and request count.
import { createRequire } from 'node:module';
import path from 'node:path';
import type { INode } from 'n8n-workflow';

import { nodeOutput } from '../../scripts/executions';
import type { Workflow } from '../../scripts/n8n';
import { FLAVOURS } from '../../scripts/runtime';
import { ENGINE_SETUP_TIMEOUT_MS, loadEngine, type Engine } from '../harness/engine';
import { closedPort } from '../unit/transport/support';
import {
	mismatchedCertificate,
	startFaultServer,
	type FaultServer,
	type SeenRequest,
} from './faultServer';

/**
 * The node has no timeout setting: each attempt gets the transport's default, 60 s. Each engine's installed copy gets a
 * short one instead, so that a stalled server costs seconds; the code that reacts to the timeout is unchanged.
 */
const STALL_TIMEOUT_MS = 2_000;
/** Generous for a loaded 2-core machine: a line's matrix takes about as long as the stalled cases' 4 attempts. */
const MATRIX_TIMEOUT_MS = 3 * 60_000;

const FAULTS = [
	'refused',
	'closed',
	'reset',
	'stalled',
	'untrusted certificate',
	'untrusted certificate, ignored',
	'reset once',
] as const;
type Fault = (typeof FAULTS)[number];

interface RequestKind {
	parameters: INode['parameters'];
	/** Tells this kind's requests from the others' at the same server. */
	sent(request: SeenRequest): boolean;
}

const REQUESTS: Record<string, RequestKind> = {
	'Department > Get Many': {
		parameters: { resource: 'department', operation: 'getMany', returnAll: true },
		sent: (request) => request.path === '/api/v2/departments',
	},
	'Send Template': {
		parameters: {
			resource: 'broadcast',
			operation: 'sendTemplate',
			operatorId: 1,
			channelId: 'wa-main',
			templateId: 'welcome_v2',
			phoneNumber: '+15550000011',
			languageCode: 'en',
			bodyParameters: { parameter: [{ text: 'Dana' }] },
			options: {},
		},
		sent: (request) =>
			request.path === '/api/v2/rt/send_broadcast' && /"msgapp"/.test(request.body),
	},
	'Send Over Chat History': {
		parameters: {
			resource: 'broadcast',
			operation: 'sendOverChatHistory',
			operatorId: 1,
			channelId: 'wa-main',
			payload: '{"text": "We are back"}',
		},
		sent: (request) =>
			request.path === '/api/v2/rt/send_broadcast' && /"history-chats"/.test(request.body),
	},
	'Set Status, conditional': {
		parameters: {
			resource: 'operator',
			operation: 'setStatus',
			email: 'dmitri@svc.test',
			status: 'online',
			options: { initialStatuses: ['invisible'] },
		},
		sent: (request) =>
			request.path === '/api/v2/rt/agent_status' && /"condition"/.test(request.body),
	},
	'Set Status, unconditional': {
		parameters: {
			resource: 'operator',
			operation: 'setStatus',
			email: 'eve@svc.test',
			status: 'dinner',
			options: {},
		},
		sent: (request) =>
			request.path === '/api/v2/rt/agent_status' && !/"condition"/.test(request.body),
	},
};
type RequestName = keyof typeof REQUESTS;

/**
 * What one request met: the run's status (continue-on-fail keeps it a success), the node's output (an error becomes an
 * item) and the server's count.
 */
interface CaseResult {
	status: string;
	output: Array<Record<string, unknown>>;
	requests: number;
}

const BROADCAST_NOTE =
	'It was not retried, because a broadcast may already have gone out: check the broadcasts in Svc before sending it again.';
const STATUS_NOTE =
	"The outcome is unknown: the status may already have changed. It was not retried, because with 'Only if Current Status Is' a second attempt would then not meet its condition and be skipped. Check the operator's status (Get many operators) before trying again.";

// Send Template's error items also say which of its requests failed, and for which recipient.
const ERROR_ITEM_FIELDS: Partial<Record<RequestName, Record<string, unknown>>> = {
	'Send Template': { request: 1, requests: 1, phone_number: '+15550000011' },
};

const failed = (
	request: RequestName,
	requests: number,
	error: string,
	description: string,
): CaseResult => ({
	status: 'success',
	output: [{ error, description, ...ERROR_ITEM_FIELDS[request] }],
	requests,
});

/** A failure after the request was written: reads and an unconditional status retried, the rest sent once and said so. */
function outcomeUnknown(message: string, fix: string): Record<RequestName, CaseResult> {
	return {
		'Department > Get Many': failed(
			'Department > Get Many',
			4,
			message,
			`${fix} The request was tried 4 times.`,
		),
		'Send Template': failed('Send Template', 1, message, `${fix} ${BROADCAST_NOTE}`),
		'Send Over Chat History': failed(
			'Send Over Chat History',
			1,
			message,
			`${fix} ${BROADCAST_NOTE}`,
		),
		'Set Status, conditional': failed(
			'Set Status, conditional',
			1,
			message,
			`${fix} ${STATUS_NOTE}`,
		),
		'Set Status, unconditional': failed(
			'Set Status, unconditional',
			4,
			message,
			`${fix} The request was tried 4 times.`,
		),
	};
}

/** A failure before anything was written: one attempt, no server saw a request, no word of it going out. */
function nothingSent(requests: number, message: string, fix: string) {
	return Object.fromEntries(
		Object.keys(REQUESTS).map((name) => [name, failed(name, requests, message, fix)]),
	) as Record<RequestName, CaseResult>;
}

const SUCCEEDED: Record<RequestName, Array<Record<string, unknown>>> = {
	'Department > Get Many': [{ id: 1, name: 'Sales', order: 1 }],
	'Send Template': [expect.objectContaining({ result: 'accepted' })],
	'Send Over Chat History': [
		expect.objectContaining({ result: 'accepted', kind: 'history-chats' }),
	],
	'Set Status, conditional': [{ result: 'ok', email: 'dmitri@svc.test', status: 'online' }],
	'Set Status, unconditional': [{ result: 'ok', email: 'eve@svc.test', status: 'dinner' }],
};

/** The expected result of every case, for the servers' hosts (host:port as n8n's messages show them). */
function expectedResults(hosts: Record<Fault, string>): Record<string, CaseResult> {
	const shown = (fault: Fault) => hosts[fault].replace(/^https?:\/\//, '');
	const byFault: Record<Fault, Partial<Record<RequestName, CaseResult>>> = {
		refused: nothingSent(
			0,
			`Host "${shown('refused')}" refused the connection`,
			'Check the host and port in the Svc API credentials, and that the chat server is running.',
		),
		closed: outcomeUnknown(`Host "${shown('closed')}" closed the connection`, 'Try again later.'),
		reset: outcomeUnknown(`Host "${shown('reset')}" closed the connection`, 'Try again later.'),
		stalled: outcomeUnknown(
			`Host "${shown('stalled')}" did not answer in time`,
			'Check the host, then try again later.',
		),
		'untrusted certificate': nothingSent(
			0,
			`The TLS certificate of "${shown('untrusted certificate')}" is not trusted (DEPTH_ZERO_SELF_SIGNED_CERT)`,
			"Renew or correct the certificate on the server, or turn on 'Ignore SSL Issues' in the credentials if you trust this host.",
		),
		'untrusted certificate, ignored': Object.fromEntries(
			Object.entries(SUCCEEDED).map(([name, output]) => [
				name,
				{ status: 'success', output, requests: 1 },
			]),
		),
		// Retried, then answered: the read succeeds on its second request.
		'reset once': {
			'Department > Get Many': {
				status: 'success',
				output: SUCCEEDED['Department > Get Many'],
				requests: 2,
			},
		},
	};
	return Object.fromEntries(
		FAULTS.flatMap((fault) =>
			Object.entries(byFault[fault] as Record<string, CaseResult>).map(([request, result]) => [
				`${fault} / ${request}`,
				result,
			]),
		),
	);
}

/**
 * The workflow of one case: its node (named after the case, turning its error into an item) after a manual trigger.
 * Every case has a workflow of its own, so that they run side by side: a case's time is the server's stall and the
 * node's backoff pauses, not work, and one after another they would add up to most of the file's time.
 */
function caseWorkflow(name: string): Workflow {
	const [fault, request] = name.split(' / ') as [Fault, RequestName];
	return {
		id: 'engineNetworkFault',
		name: `Engine: network fault, ${name}`,
		nodes: [
			{
				id: 'fault-start',
				name: 'Start',
				type: 'n8n-nodes-base.manualTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: {},
			},
			{
				id: 'fault-node',
				name,
				type: 'n8n-nodes-svc.svcChat',
				typeVersion: 1,
				position: [240, 0],
				parameters: REQUESTS[request].parameters,
				credentials: { svcApi: { id: 'svcFault', name: `Svc fault: ${fault}` } },
				onError: 'continueRegularOutput',
			},
		],
		connections: { Start: { main: [[{ node: name, type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
	};
}

/** Gives the engine's installed copy of the package a short attempt timeout (see STALL_TIMEOUT_MS). */
function shortenAttemptTimeout(engine: Engine): void {
	// The very module the engine's nodes run: this file's require, like the engine's, gives the instance n8n's loader loaded.
	const transport = createRequire(__filename)(
		path.join(engine.packageDir, 'dist/nodes/SvcChat/transport/request.js'),
	) as typeof import('../../nodes/SvcChat/transport/request');
	expect(transport.retryPolicy.timeoutMs).toBe(60_000);
	transport.retryPolicy.timeoutMs = STALL_TIMEOUT_MS;
}

/** Each n8n line signs in as a user of its own, so that the servers, shared by both lines, tell their requests apart. */
function lineAccount(line: Line) {
	const email = `fault-matrix-${line}@svc.test`;
	const password = 'Fault-matrix-pw-1';
	return { email, password, authorization: `Basic ${btoa(`${email}:${password}`)}` };
}

/**
 * Runs every case on one line's engine, all at once (each may wait out a stall, and they share nothing), and gives
 * what each met. Nothing runs twice: n8n's 250 ms regex check (n8n-workflow safe-regex), which a loaded real n8n once
 * timed out, runs only for regexes the workflow's nodes declare, and these have none (test/unit/parameters/noRegex.test.ts).
 */
async function runMatrix(line: Line, engine: Engine): Promise<Record<string, CaseResult>> {
	const { email, password, authorization } = lineAccount(line);
	const results = await Promise.all(
		CASES.map(async (name): Promise<[string, CaseResult]> => {
			const [fault, request] = name.split(' / ') as [Fault, RequestName];
			const data = {
				host: hosts[fault],
				email,
				password,
				ignoreSslIssues: fault === 'untrusted certificate, ignored',
			};
			const run = await engine.run(caseWorkflow(name), { credentials: { svcApi: data } });
			const seen = (servers[fault]?.requests ?? []).filter(
				(one) => one.authorization === authorization && REQUESTS[request].sent(one),
			);
			return [
				name,
				{ status: run.status, output: nodeOutput(run.data, name), requests: seen.length },
			];
		}),
	);
	return Object.fromEntries(results);
}

const LINES = ['n8n-2', 'n8n-1'] as const;
type Line = (typeof LINES)[number];
const CASES = Object.keys(
	expectedResults(Object.fromEntries(FAULTS.map((fault) => [fault, ''])) as Record<Fault, string>),
);

let servers: Record<Fault, FaultServer | undefined>;
let hosts: Record<Fault, string>;
const engines: Partial<Record<Line, Engine>> = {};
const resultsByLine: Partial<Record<Line, Record<string, CaseResult>>> = {};

beforeAll(async () => {
	const certificate = await mismatchedCertificate();
	servers = {
		refused: undefined,
		closed: await startFaultServer('close'),
		reset: await startFaultServer('reset'),
		stalled: await startFaultServer('stall'),
		'untrusted certificate': await startFaultServer('answer', certificate),
		'untrusted certificate, ignored': await startFaultServer('answer', certificate),
		'reset once': await startFaultServer('resetFirst'),
	};
	hosts = Object.fromEntries(FAULTS.map((fault) => [fault, servers[fault]?.host ?? ''])) as Record<
		Fault,
		string
	>;
	hosts.refused = `http://127.0.0.1:${await closedPort()}`;
	// Each engine installs a copy of its own, so the shortened timeout is this file's alone.
	for (const line of LINES) {
		engines[line] = await loadEngine(FLAVOURS[line]);
		shortenAttemptTimeout(engines[line]);
	}
}, ENGINE_SETUP_TIMEOUT_MS);

// Both lines' matrices at once: they mostly wait for stalls and backoff pauses.
beforeAll(async () => {
	await Promise.all(
		LINES.map(async (line) => {
			resultsByLine[line] = await runMatrix(line, engines[line]!);
		}),
	);
}, MATRIX_TIMEOUT_MS);

afterAll(async () => {
	for (const engine of Object.values(engines)) engine.shutdown();
	for (const server of Object.values(servers ?? {})) await server?.stop();
});

describe.each(LINES)('%s', (line) => {
	const results = () => resultsByLine[line] ?? {};

	test.each(CASES)('%s', (name) => {
		expect(results()[name]).toEqual(expectedResults(hosts)[name]);
	});

	test('no failure after the request was written says the host could not be reached', () => {
		const written = CASES.filter((name) => results()[name].requests > 0);
		expect(written.length).toBeGreaterThan(10);
		for (const name of written)
			expect(JSON.stringify(results()[name].output)).not.toMatch(
				/could not be (reached|found)|refused the connection/,
			);
	});
});

test('n8n 1.x and 2.x gave the same messages and request counts', () => {
	expect(Object.keys(resultsByLine).sort()).toEqual(['n8n-1', 'n8n-2']);
	expect(resultsByLine['n8n-1']).toEqual(resultsByLine['n8n-2']);
});
