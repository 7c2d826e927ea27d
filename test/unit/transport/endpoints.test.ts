// The endpoint table: one entry per endpoint the sandbox serves and the nodes request, and its retry rule enforced.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { IN8nHttpFullResponse } from 'n8n-workflow';

import { REAL_TIME_COMMANDS } from '../../../sandbox/server';
import { STORED_PATHS } from '../../../sandbox/stored';
import {
	ENDPOINTS,
	NOT_RETRIED_NOTE,
	type Endpoint,
	type EndpointPath,
	type ReplyOf,
	type ReplyTo,
} from '../../../nodes/SvcChat/transport/endpoints';
import { svcRequest } from '../../../nodes/SvcChat/transport/request';
import type {
	Chat,
	Operator,
	OperatorStatsRow,
	RealTimeReply,
	UsageStats,
} from '../../../nodes/SvcChat/types';
import { contextSending, HOST, rejectionOf } from './support';
import { instantPauses } from '../../harness/fixtures';

const NODES_DIR = path.join(__dirname, '../../../nodes');
// Where svcRequest is defined: it hands its caller's path on to n8n's request helper.
const REQUEST_DEFINITION = path.join(NODES_DIR, 'SvcChat/transport/request.ts');

const tableRoutes = () =>
	Object.entries(ENDPOINTS)
		.map(([path, endpoint]) => `${endpoint.method} ${path}`)
		.sort();

/** The sandbox's routes (sandbox/server.ts): real-time commands answer POST, stored data answers GET. */
const sandboxRoutes = () =>
	[
		...Object.keys(REAL_TIME_COMMANDS).map((command) => `POST rt/${command}`),
		...[...STORED_PATHS].map((storedPath) => `GET ${storedPath}`),
	].sort();

function sourceFiles(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
		const full = path.join(dir, entry.name);
		if (entry.isDirectory()) return sourceFiles(full);
		return entry.name.endsWith('.ts') ? [full] : [];
	});
}

// Every request of the nodes goes through one of these, with the endpoint's path as a literal.
const REQUEST_CALL = /\bsvcRequest\(/g;
const REQUEST_WITH_PATH = /\bsvcRequest\(\s*[\w.]+\s*,\s*'([^']+)'/g;

/** The paths the nodes' code requests, read from the source; fails when a request's path is not a literal. */
function requestedPaths(): string[] {
	const paths = new Set<string>();
	for (const file of sourceFiles(NODES_DIR).filter((file) => file !== REQUEST_DEFINITION)) {
		const source = readFileSync(file, 'utf8');
		const calls = source.match(REQUEST_CALL)?.length ?? 0;
		const literal = [...source.matchAll(REQUEST_WITH_PATH)].map((match) => match[1]);
		expect({ file, calls }).toEqual({ file, calls: literal.length });
		for (const requested of literal) paths.add(requested);
	}
	return [...paths].sort();
}

describe('one entry per endpoint', () => {
	test('the table holds exactly the routes the sandbox serves, with the same methods', () => {
		expect(tableRoutes()).toEqual(sandboxRoutes());
	});

	test('the table holds exactly the paths the nodes request', () => {
		const requested = requestedPaths();
		expect(requested.length).toBeGreaterThan(0);
		expect(requested).toEqual(Object.keys(ENDPOINTS).sort());
	});

	test('each request other than GET says whether a retry is safe, and one never retried says why', () => {
		for (const [path, endpoint] of Object.entries(ENDPOINTS) as Array<
			[string, Endpoint<unknown>]
		>) {
			if (endpoint.method === 'GET') continue;
			const declared = endpoint.retried === true || endpoint.notRetried !== undefined;
			expect({ path, declared }).toEqual({ path, declared: true });
			if (endpoint.retried !== true) expect(endpoint.notRetried).toMatch(/\w{3,}/);
		}
		expect(ENDPOINTS['rt/send_broadcast']).toMatchObject({
			notRetried:
				'It was not retried, because a broadcast may already have gone out: check the broadcasts in Svc before sending it again.',
		});
		expect(ENDPOINTS['rt/send_broadcast'].retried).toBeUndefined();
		expect(ENDPOINTS['rt/agent_status'].retried).toBe(true);
		expect(ENDPOINTS['rt/provide_visitor_fields'].retried).toBe(true);
	});
});

/**
 * A context whose request helper replies in order (the last repeats); a reply that is an Error is thrown, as a failed
 * connection is.
 */
function fakeServer(replies: Array<IN8nHttpFullResponse | Error>) {
	const sent: string[] = [];
	const context = contextSending(async (request) => {
		sent.push(`${request.method} ${request.url}`);
		const reply = replies[Math.min(sent.length - 1, replies.length - 1)];
		if (reply instanceof Error) throw reply;
		return reply;
	});
	return { context, sent };
}

const table = ENDPOINTS as Record<string, Endpoint<unknown>>;
const TABLE_PATHS = Object.keys(table);

/** Files a new entry in the table, as adding an endpoint does (for one test: afterEach takes it out again). */
function addToTable(path: string, entry: Endpoint<unknown>): EndpointPath {
	table[path] = entry;
	return path as EndpointPath;
}

afterEach(() => {
	for (const key of Object.keys(table)) if (!TABLE_PATHS.includes(key)) delete table[key];
});

const reply = (statusCode: number, body = ''): IN8nHttpFullResponse => ({
	statusCode,
	headers: {},
	body,
});

const connectionReset = () => Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });

/** A new command added to the table without a retry rule. */
const NEW_COMMAND: Endpoint<RealTimeReply> = {
	method: 'POST',
	shape: ENDPOINTS['rt/agent_status'].shape,
};

describe('a request other than GET is never retried unless its entry says so', () => {
	test.each([
		['a 502', reply(502)],
		['a connection reset', connectionReset()],
	])(
		'a new POST entry without a retry rule, on %s: one request, and the user is told why',
		async (_case, failure) => {
			const server = fakeServer([failure, reply(200, '{"result":"ok"}')]);
			const sleep = instantPauses({ maxRetries: 5 });
			const error = await rejectionOf(
				svcRequest(server.context, addToTable('rt/new_command', NEW_COMMAND)),
			);
			expect(error.description?.endsWith(NOT_RETRIED_NOTE)).toBe(true);
			expect(server.sent).toEqual([`POST https://${HOST}/api/v2/rt/new_command`]);
			expect(sleep).not.toHaveBeenCalled();
		},
	);

	test('the same entry, once it says a retry is safe, is retried', async () => {
		const server = fakeServer([reply(502), reply(200, '{"result":"ok"}')]);
		const sleep = instantPauses();
		const path = addToTable('rt/new_command', { ...NEW_COMMAND, retried: true });
		await expect(svcRequest(server.context, path)).resolves.toEqual({ result: 'ok' });
		expect(server.sent).toHaveLength(2);
		expect(sleep).toHaveBeenCalledTimes(1);
	});

	test('a GET entry without a retry rule is retried', async () => {
		const server = fakeServer([reply(502), reply(200, '[]')]);
		instantPauses();
		const newList: Endpoint<Operator[]> = {
			method: 'GET',
			shape: ENDPOINTS.operators.shape,
		};
		await expect(svcRequest(server.context, addToTable('new_list', newList))).resolves.toEqual([]);
		expect(server.sent).toEqual([
			`GET https://${HOST}/api/v2/new_list`,
			`GET https://${HOST}/api/v2/new_list`,
		]);
	});
});

// Checked by tsc (npm run lint), not at run time: a request resolves to its endpoint's reply type, so no operation casts.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Expect<Check extends true> = Check;
export type ReplyTypeChecks = [
	Expect<Same<ReplyOf<'chat'>, { chat: Chat }>>,
	Expect<Same<ReplyOf<'operators'>, Operator[]>>,
	Expect<Same<ReplyOf<'rt/send_broadcast'>, RealTimeReply>>,
	Expect<Same<ReplyTo<'stats', { mode: 'usage' }>, UsageStats>>,
	Expect<Same<ReplyTo<'stats', { mode: 'operators' }>, OperatorStatsRow[]>>,
];

describe('a reply as the request helper hands it over', () => {
	const DEPARTMENTS = [{ id: 1, name: 'Sales', order: 1 }];

	test('a redirect is refused, naming where it points, and not followed', async () => {
		const server = fakeServer([
			{ statusCode: 302, headers: { location: 'https://elsewhere.example/login' }, body: '' },
		]);
		const error = await rejectionOf(svcRequest(server.context, 'departments'));
		expect(error.message).toBe(
			'The server redirects the request to https://elsewhere.example/login (HTTP 302)',
		);
		expect(error.description).toBe(
			'The node does not follow redirects, so the password is only ever sent to the host in the credentials. If the new address is your chat server, enter its host there.',
		);
		expect(error.context.svcError).toBe('redirect');
		expect(server.sent).toHaveLength(1);
	});

	test('a redirect without a Location names "another address"', async () => {
		const server = fakeServer([reply(301)]);
		const error = await rejectionOf(svcRequest(server.context, 'departments'));
		expect(error.message).toBe('The server redirects the request to another address (HTTP 301)');
	});

	test.each([
		['a Buffer', Buffer.from(JSON.stringify(DEPARTMENTS))],
		['parsed JSON', DEPARTMENTS],
	])('a body given as %s is read as the text it stands for', async (_case, body) => {
		const server = fakeServer([{ statusCode: 200, headers: {}, body }]);
		await expect(svcRequest(server.context, 'departments')).resolves.toEqual(DEPARTMENTS);
	});

	test('no body at all is not JSON, and is shown as empty', async () => {
		const server = fakeServer([{ statusCode: 200, headers: {}, body: null }]);
		const error = await rejectionOf(svcRequest(server.context, 'departments'));
		expect(error.message).toBe('The server did not answer with JSON');
		expect(error.description).toBe(
			'Check that the host in the credentials is the Svc chat server, not a web page or proxy. Reply began: (empty)',
		);
	});
});
