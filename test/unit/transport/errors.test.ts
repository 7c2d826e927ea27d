// The error map, case by case from the spec's own tables (section 7), plus HTTP statuses, bad bodies and bad shapes.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import nock from 'nock';
import { NodeApiError, type IDataObject, type IHttpRequestMethods } from 'n8n-workflow';

import {
	SVC_ERROR_CODES,
	describeErrorCode,
	describeNetworkError,
} from '../../../nodes/SvcChat/transport/errors';
import { ENDPOINTS, type EndpointPath } from '../../../nodes/SvcChat/transport/endpoints';
import { svcRequest, toNodeApiError } from '../../../nodes/SvcChat/transport/request';
import { testCredentials } from '../../harness/contexts';
import { closedPort, HOST, rejectionOf, transportContext } from './support';
import { instantPauses } from '../../harness/fixtures';
import { everyRequestTo } from '../../harness/nockSetup';

interface SpecErrorCase {
	section: string;
	code: string;
	/** The extra member the spec names for this code (field, argument, field_name, field_value), if any. */
	member?: string;
}

/** Reads the code tables of spec section 7 (a verbatim copy in fixtures/), so a code missing from errors.ts fails. */
function specErrorCases(): SpecErrorCase[] {
	const text = readFileSync(path.join(__dirname, 'fixtures', 'spec-section-7.md'), 'utf8');
	const cases: SpecErrorCase[] = [];
	let section = '';
	for (const line of text.split('\n')) {
		const heading = /^### (7\.\d)/.exec(line);
		if (heading) section = heading[1];
		const row = /^\|\s*([a-z][a-z-]*)\s*\|(.*)\|\s*$/.exec(line);
		if (!section || !row || row[1] === 'code') continue;
		const cells = row[2].split('|').map((cell) => cell.trim());
		const member = cells.length > 1 ? /`(\w+)`/.exec(cells[cells.length - 1])?.[1] : undefined;
		cases.push({ section, code: row[1], member });
	}
	return cases;
}

// Where each section's codes come from: the real-time command it documents, or a stored-data query.
const SECTION_REQUESTS: Record<
	string,
	{ method: IHttpRequestMethods; path: EndpointPath; body?: IDataObject }
> = {
	'7.1': { method: 'POST', path: 'rt/provide_visitor_fields', body: { auth_token: 't-1' } },
	'7.2': {
		method: 'POST',
		path: 'rt/agent_status',
		body: { email: 'op@svc.test', status: 'online' },
	},
	'7.3': { method: 'POST', path: 'rt/send_broadcast', body: { operator_id: 1, data: {} } },
	'7.4': { method: 'GET', path: 'departments' },
};

// A value for each extra member, as a server would send it.
const MEMBER_VALUES: Record<string, string | number> = {
	field: 'auth_token',
	argument: 'email',
	field_name: 'nickname',
	field_value: 42,
};

const SPEC_CASES = specErrorCases();

afterEach(() => jest.restoreAllMocks());

/** Answers one request with `status` and `body`, and records how many requests came. */
function answer(
	method: IHttpRequestMethods,
	apiPath: string,
	status: number,
	body: unknown,
	headers: Record<string, string> = {},
) {
	const seen = { requests: 0 };
	everyRequestTo(method, apiPath).reply(() => {
		seen.requests++;
		return [status, typeof body === 'string' ? body : JSON.stringify(body), headers];
	});
	return seen;
}

async function failureOf(
	method: IHttpRequestMethods,
	apiPath: EndpointPath,
	options: { body?: IDataObject; qs?: IDataObject } = {},
) {
	// The method answered above is the one the endpoint table sends.
	expect(ENDPOINTS[apiPath].method).toBe(method);
	instantPauses({ maxRetries: 0 });
	const error = await rejectionOf(svcRequest(transportContext(), apiPath, options));
	expect(error).toBeInstanceOf(NodeApiError);
	return error;
}

test('the spec tables were read: every group of section 7 with its codes', () => {
	const codesBySection = (section: string) =>
		SPEC_CASES.filter((c) => c.section === section).map((c) => c.code);
	expect(codesBySection('7.1')).toContain('field-value-is-not-string');
	expect(codesBySection('7.2')).toContain('not-in-allowed-online-time');
	expect(codesBySection('7.3')).toContain('unknown-broadcast-kind');
	expect(codesBySection('7.4')).toContain('no-tariff-option');
	expect(SPEC_CASES.filter((c) => c.member).map((c) => `${c.code}:${c.member}`)).toEqual([
		'mandatory-field-not-found:field',
		'field-name-is-not-string:field_name',
		'field-value-is-not-string:field_value',
		'missing-argument:argument',
		'missing-argument:argument',
	]);
});

describe.each(SPEC_CASES.map((c) => [`${c.section} ${c.code}`, c] as const))(
	'spec code %s',
	(_name, { section, code, member }) => {
		test('gives its own message and fix, and keeps the extra member', async () => {
			const { method, path: apiPath, body } = SECTION_REQUESTS[section];
			const reply: IDataObject = { error: code };
			if (member) reply[member] = MEMBER_VALUES[member];
			const seen = answer(method, apiPath, 200, reply);

			const error = await failureOf(method, apiPath, { body });

			const generic = describeErrorCode('a-code-nobody-knows', {});
			// The message says what happened; the code sits in the description (n8n's UX guidelines).
			expect(error.message).not.toContain(code);
			expect(error.description).toContain(`(Svc code: ${code})`);
			expect(error.message).not.toContain(generic.message.split("'")[0]);
			expect(error.description).toBeTruthy();
			expect(error.description).not.toBe(generic.fix);
			expect(error.description).not.toBe(error.message);
			// n8n's editor shows httpCode as "Error code": a refusal inside a 200 reply shows the Svc code, never "200".
			expect(error.httpCode).toBe(code);
			expect(error.context.svcError).toBe(code);
			expect(seen.requests).toBe(1);
			if (member) {
				expect(error.message).toContain(`(${member}: ${JSON.stringify(MEMBER_VALUES[member])})`);
				expect(error.context[member]).toEqual(MEMBER_VALUES[member]);
				expect((error as unknown as { errorResponse: IDataObject }).errorResponse[member]).toEqual(
					MEMBER_VALUES[member],
				);
			}
		});
	},
);

test('a code named like an object member ("constructor") is an undocumented code, not a broken one', () => {
	for (const code of ['constructor', '__proto__', 'toString'])
		expect(describeErrorCode(code, {}).message).toBe(
			`The server refused the request with the code '${code}'`,
		);
});

test('each documented code has a message of its own', () => {
	const codes = [...new Set(SPEC_CASES.map((c) => c.code))];
	const messages = codes.map((code) => describeErrorCode(code, {}).message);
	expect(new Set(messages).size).toBe(codes.length);
});

test('every extra member is shown when a reply carries several', async () => {
	answer('POST', 'rt/agent_status', 200, {
		error: 'missing-argument',
		argument: 'status',
		field: 'x',
		field_name: 'n',
		field_value: true,
	});
	const error = await failureOf('POST', 'rt/agent_status', { body: { email: 'op@svc.test' } });
	expect(error.message).toBe(
		'A required argument is missing (field: "x", argument: "status", field_name: "n", field_value: true)',
	);
});

test('an unknown code still gives a clear error that shows the code and its members', async () => {
	answer('POST', 'rt/agent_status', 200, { error: 'brand-new-code', argument: 'status' });
	const error = await failureOf('POST', 'rt/agent_status', { body: { email: 'op@svc.test' } });
	expect(error.message).toBe(
		`The server refused the request with the code 'brand-new-code' (argument: "status")`,
	);
	expect(error.description).toBe(
		'This code is not in the Svc API v2 documentation. Contact Svc support with the code and the time of the request.',
	);
	expect(error.context.svcError).toBe('brand-new-code');
});

describe('a code that exists nowhere', () => {
	const NOWHERE = 'zq-code-that-exists-nowhere';

	test('is in neither the error map nor the sandbox, which invents codes of its own (sandbox/README.md)', () => {
		expect(Object.keys(SVC_ERROR_CODES)).not.toContain(NOWHERE);
		const sandboxDir = path.join(__dirname, '../../../sandbox');
		for (const file of readdirSync(sandboxDir))
			expect(readFileSync(path.join(sandboxDir, file), 'utf8')).not.toContain(NOWHERE);
	});

	test('gives the generic unknown-code error on POST rt/agent_status', async () => {
		answer('POST', 'rt/agent_status', 200, { error: NOWHERE });
		const error = await failureOf('POST', 'rt/agent_status', {
			body: { email: 'op@svc.test', status: 'online' },
		});
		expect(error.message).toBe(`The server refused the request with the code '${NOWHERE}'`);
		expect(error.context.svcError).toBe(NOWHERE);
	});

	test('on GET chat names the chat and says it may not exist, never that it was "not found"', async () => {
		answer('GET', 'chat', 200, { error: NOWHERE });
		const error = await failureOf('GET', 'chat', { qs: { id: '5' } });
		expect(error.message).toBe(
			'Chat "5" could not be read, and the server gave no reason: the chat may not exist',
		);
		expect(error.message).not.toMatch(/not found/i);
		expect(error.description).toContain(`(Svc code: ${NOWHERE})`);
		expect(error.context.svcError).toBe(NOWHERE);
	});
});

test('an overlong code or member is shortened in the message', () => {
	const { message } = describeErrorCode('x'.repeat(500), { field: 'y'.repeat(500) });
	expect(message.length).toBeLessThan(260);
	expect(message).toContain('…');
});

describe('HTTP statuses', () => {
	test('401 with the real-time body {"error":"unauthorized"}', async () => {
		const seen = answer('POST', 'rt/agent_status', 401, { error: 'unauthorized' });
		const error = await failureOf('POST', 'rt/agent_status', {
			body: { email: 'op@svc.test', status: 'online' },
		});
		expect(error.message).toBe('Wrong email or password');
		expect(error.description).toMatch(
			/^Check the admin email and password in the Svc API credentials\./,
		);
		expect(error.httpCode).toBe('401');
		expect(error.context.svcError).toBe('unauthorized');
		expect(seen.requests).toBe(1);
	});

	test('401 without a body', async () => {
		answer('GET', 'departments', 401, '');
		const error = await failureOf('GET', 'departments');
		expect(error.message).toBe('Wrong email or password');
		expect(error.description).toMatch(/^Check the admin email and password/);
		expect(error.httpCode).toBe('401');
		expect(error.context.svcError).toBeUndefined();
	});

	test('403: not an administrator, or too many attempts', async () => {
		answer('GET', 'operators', 403, '<html>Forbidden</html>');
		const error = await failureOf('GET', 'operators');
		expect(error.message).toBe(
			'Access denied: the user is not an administrator, or there were too many login attempts',
		);
		expect(error.description).toMatch(/^Use the email and password of an administrator operator\./);
		expect(error.httpCode).toBe('403');
	});

	test('502: the server cannot process the request', async () => {
		answer('GET', 'departments', 502, '<html>Bad Gateway</html>');
		const error = await failureOf('GET', 'departments');
		expect(error.message).toBe('The server cannot process the request (502)');
		expect(error.description).toMatch(/^Try again later\./);
		expect(error.httpCode).toBe('502');
	});

	test.each([
		[429, 'Too many requests: the server asked to slow down'],
		[503, 'The server is temporarily unavailable (503)'],
		[504, 'The server did not answer in time (504)'],
		[404, 'The server has no such API endpoint'],
		[500, 'The server answered with HTTP 500'],
	])('%i', async (status, message) => {
		answer('GET', 'departments', status, '');
		const error = await failureOf('GET', 'departments');
		expect(error.message).toBe(message);
		expect(error.description).toBeTruthy();
		expect(error.httpCode).toBe(String(status));
	});

	test('an unexplained status shows an excerpt of the reply', async () => {
		answer('GET', 'departments', 500, '<html><body>Internal   Server\nError</body></html>');
		const error = await failureOf('GET', 'departments');
		expect(error.description).toBe(
			'Check the host in the Svc API credentials, then try again later. Reply: <html><body>Internal Server Error</body></html>',
		);
	});
});

describe('bodies that are not JSON', () => {
	test.each([
		['plain text', 'OK', 'OK'],
		[
			'an HTML page',
			'<!DOCTYPE html><html><head><title>Sign in</title></head></html>',
			'<!DOCTYPE html><html><head><title>Sign in</title></head></html>',
		],
		['truncated JSON', '{"chats": [', '{"chats": ['],
		['an empty body', '', '(empty)'],
	])('%s is a clear error, never a crash', async (_case, body, shown) => {
		answer('GET', 'departments', 200, body, { 'Content-Type': 'application/json' });
		const error = await failureOf('GET', 'departments');
		expect(error.message).toBe('The server did not answer with JSON');
		expect(error.description).toBe(
			`Check that the host in the credentials is the Svc chat server, not a web page or proxy. Reply began: ${shown}`,
		);
		expect(error.context.svcError).toBe('not-json');
		// Not an HTTP error, and no Svc code: n8n's editor shows no "Error code" (never "200").
		expect(error.httpCode).toBeNull();
	});

	test('a long page is cut to a short excerpt', async () => {
		answer('GET', 'departments', 200, `<html>${'x'.repeat(5000)}</html>`);
		const error = await failureOf('GET', 'departments');
		expect(String(error.description).length).toBeLessThan(400);
		expect(error.description).toMatch(/x…$/);
	});
});

describe('a 200 reply of unexpected shape', () => {
	test.each<[EndpointPath, unknown, IDataObject, string]>([
		['operators', {}, {}, 'a list of operators'],
		['departments', { departments: [] }, {}, 'a list of departments'],
		['partner/tariffs', [], {}, 'an object with a "tariffs" list'],
		[
			'chats',
			{ chats: [null], more_chats_available: false, last_ts: 1 },
			{ since: 0 },
			'an object with "chats", "more_chats_available" and "last_ts"',
		],
		[
			'chats',
			{ chats: {}, more_chats_available: false, last_ts: 1 },
			{ since: 0 },
			'an object with "chats", "more_chats_available" and "last_ts"',
		],
		[
			'chats',
			{ chats: [], more_chats_available: 'no', last_ts: 1 },
			{ since: 0 },
			'an object with "chats", "more_chats_available" and "last_ts"',
		],
		[
			'stats',
			[],
			{ date: '2024-01-02', mode: 'usage' },
			'usage figures (mode usage) or a list of operator rows (mode operators)',
		],
		[
			'stats',
			{ contacts: 1 },
			{ date: '2024-01-02', mode: 'operators' },
			'usage figures (mode usage) or a list of operator rows (mode operators)',
		],
	])('GET %s answering %j', async (apiPath, body, qs, expected) => {
		answer('GET', apiPath, 200, body);
		const error = await failureOf('GET', apiPath, { qs });
		expect(error.message).toBe(`The server's reply has an unexpected shape: expected ${expected}`);
		expect(error.description).toBe(
			`Check that the host is a Svc chat server with API v2. Reply began: ${JSON.stringify(body)}`,
		);
		expect(error.context.svcError).toBe('unexpected-shape');
		expect(error.httpCode).toBeNull();
	});

	// A missing or null last_ts is not a shape error: the page rules judge it (specGaps.test.ts, issue 13).
	test.each([
		['a missing last_ts', undefined],
		['a null last_ts', null],
	])('GET chats with %s passes decoding', async (_case, lastTs) => {
		answer('GET', 'chats', 200, { chats: [], more_chats_available: false, last_ts: lastTs });
		await expect(svcRequest(transportContext(), 'chats', { qs: { since: 0 } })).resolves.toEqual({
			chats: [],
			more_chats_available: false,
			...(lastTs === null ? { last_ts: null } : {}),
		});
	});

	test.each([
		['a fractional last_ts', 1.5],
		['a negative last_ts', -1],
		['a last_ts that is not digits', '12abc'],
	])('GET chats with %s', async (_case, lastTs) => {
		answer('GET', 'chats', 200, { chats: [], more_chats_available: true, last_ts: lastTs });
		const error = await failureOf('GET', 'chats', { qs: { since: 0 } });
		expect(error.message).toBe(
			'The server\'s reply has an unexpected shape: expected an object with "chats", "more_chats_available" and "last_ts"',
		);
	});

	test.each<EndpointPath>(['rt/provide_visitor_fields', 'rt/agent_status', 'rt/send_broadcast'])(
		'POST %s',
		async (apiPath) => {
			for (const body of [{}, { result: 'fail' }, ['ok'], 'ok']) {
				answer('POST', apiPath, 200, typeof body === 'string' ? JSON.stringify(body) : body);
				const error = await failureOf('POST', apiPath, { body: { any: 'thing' } });
				expect(error.message).toBe(
					'The server\'s reply has an unexpected shape: expected an object with "result": "ok"',
				);
				nock.cleanAll();
			}
		},
	);

	test('an unknown chat is reported as not found, whatever the reply shape', async () => {
		for (const [status, body] of [
			[200, {}],
			[200, { error: 'chat-not-found' }],
			[404, 'Not Found'],
		] as const) {
			answer('GET', 'chat', status, body);
			const error = await failureOf('GET', 'chat', { qs: { id: 'c-77' } });
			expect(error.message).toBe('Chat "c-77" not found');
			expect(error.description).toBe(
				'Check the chat ID: give the ID of an existing chat, as a list of chats shows it.',
			);
			nock.cleanAll();
		}
	});

	test('a refused chat request is not mistaken for an unknown chat', async () => {
		answer('GET', 'chat', 200, { error: 'no-tariff-option' });
		const error = await failureOf('GET', 'chat', { qs: { id: 5 } });
		expect(error.message).toBe('API access is not enabled for this account');
	});

	test('an HTML page instead of a chat says it is not JSON', async () => {
		answer('GET', 'chat', 200, '<html>Login</html>');
		const error = await failureOf('GET', 'chat', { qs: { id: 5 } });
		expect(error.message).toBe('The server did not answer with JSON');
	});
});

describe('network failures', () => {
	test('a refused connection names the host', async () => {
		const port = await closedPort();
		const context = transportContext(testCredentials(`http://127.0.0.1:${port}`));
		instantPauses({ maxRetries: 0 });
		const error = await rejectionOf(svcRequest(context, 'departments'));
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toBe(`Host "127.0.0.1:${port}" refused the connection`);
		expect(error.description).toBe(
			'Check the host and port in the Svc API credentials, and that the chat server is running.',
		);
		expect(error.context.networkCode).toBe('ECONNREFUSED');
	});

	test.each([
		['ENOTFOUND', `Host "${HOST}" could not be found`],
		['ECONNRESET', `Host "${HOST}" closed the connection`],
		['ETIMEDOUT', `Host "${HOST}" did not answer in time`],
		['EHOSTUNREACH', `Host "${HOST}" could not be reached (EHOSTUNREACH)`],
		[
			'DEPTH_ZERO_SELF_SIGNED_CERT',
			`The TLS certificate of "${HOST}" is not trusted (DEPTH_ZERO_SELF_SIGNED_CERT)`,
		],
		[
			'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
			`The TLS certificate of "${HOST}" is not trusted (UNABLE_TO_VERIFY_LEAF_SIGNATURE)`,
		],
	])(
		'%s keeps its own message on the NodeApiError (n8n would swap in a generic one)',
		(code, message) => {
			const context = transportContext();
			const error = toNodeApiError(context, {
				text: describeNetworkError(code, HOST),
				networkCode: code,
			});
			expect(error.message).toBe(message);
			expect(error.description).toBe(describeNetworkError(code, HOST).fix);
		},
	);
});

test('the default retries end in the same clear 502 error', async () => {
	const sleep = instantPauses();
	const seen = answer('GET', 'departments', 502, '');
	const error = await rejectionOf(svcRequest(transportContext(), 'departments'));
	expect(error.message).toBe('The server cannot process the request (502)');
	expect(error.description).toMatch(/The request was tried 4 times\.$/);
	expect(seen.requests).toBe(4);
	expect(sleep).toHaveBeenCalledTimes(3);
});
