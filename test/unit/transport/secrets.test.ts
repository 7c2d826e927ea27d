// Secrets: every error path, against servers that echo the Authorization header, leaks neither password nor Basic value.
import http from 'node:http';
import nock from 'nock';
import type { IDataObject, IHttpRequestMethods } from 'n8n-workflow';

import { svcRequest } from '../../../nodes/SvcChat/transport/request';
import { walkChats } from '../../../nodes/SvcChat/transport/chats';
import { type EndpointPath } from '../../../nodes/SvcChat/transport/endpoints';
import { TEST_PASSWORD, testCredentials } from '../../harness/contexts';
import {
	BASIC_VALUE,
	closedPort,
	EMAIL,
	errorViews,
	HOST,
	leaksOf,
	listenLocally,
	rejectionOf,
	transportContext,
} from './support';
import { instantPauses } from '../../harness/fixtures';
import { everyRequestTo } from '../../harness/nockSetup';

const SECRETS = [TEST_PASSWORD, BASIC_VALUE];
const BROADCAST_BODY: IDataObject = {
	operator_id: 1,
	data: { kind: 'msgapp', channel_id: 'c', data: {} },
};

/** Builds a hostile reply from the Authorization header the server received. */
type Echo = (
	authorization: string,
) => [status: number, body: string, headers?: Record<string, string>];

const receivedAuthorizations: string[] = [];

beforeEach(() => {
	instantPauses();
	receivedAuthorizations.length = 0;
});
afterEach(() => jest.restoreAllMocks());

/** A nock server that answers every request to `apiPath` with `echo` of the Authorization header it received. */
function hostile(method: IHttpRequestMethods, apiPath: string, echo: Echo) {
	everyRequestTo(method, apiPath).reply(function () {
		const authorization = String(this.req.headers.authorization);
		receivedAuthorizations.push(authorization);
		return echo(authorization);
	});
}

const json = (value: unknown) => JSON.stringify(value);

// Each case makes the server (or the configuration) put a secret where an error could pick it up.
const ECHO_CASES: Array<
	[name: string, method: IHttpRequestMethods, apiPath: EndpointPath, echo: Echo]
> = [
	[
		'a 200 text page echoing everything',
		'GET',
		'departments',
		(auth) => [200, `You sent "${auth}" (${TEST_PASSWORD})`],
	],
	// The password straddles the excerpt's 200-character cut: cutting before redacting would leave its first half.
	[
		'a 200 HTML page whose password straddles the excerpt cut',
		'GET',
		'departments',
		() => [200, `<p>${'x'.repeat(185)}${TEST_PASSWORD}</p>`],
	],
	[
		'a 500 page, shown as an excerpt',
		'GET',
		'operators',
		(auth) => [500, `<pre>Authorization: ${auth}\npassword=${TEST_PASSWORD}</pre>`],
	],
	[
		'an unknown code that is the header',
		'POST',
		'rt/agent_status',
		(auth) => [200, json({ error: auth })],
	],
	[
		'every extra member holding a secret',
		'POST',
		'rt/provide_visitor_fields',
		(auth) => [
			200,
			json({
				error: 'field-value-is-not-string',
				field_value: TEST_PASSWORD,
				argument: auth,
				field: [auth],
				field_name: { [auth]: auth },
			}),
		],
	],
	[
		'a 200 of unexpected shape',
		'GET',
		'departments',
		(auth) => [200, json({ echo: auth, password: TEST_PASSWORD })],
	],
	[
		'a real-time reply of unexpected shape',
		'POST',
		'rt/agent_status',
		(auth) => [200, json({ result: auth })],
	],
	[
		'a 401 with members',
		'POST',
		'rt/agent_status',
		(auth) => [401, json({ error: 'unauthorized', field: auth })],
	],
	['a 403 page', 'GET', 'departments', (auth) => [403, `Forbidden for ${auth}`]],
	['502 on every retry', 'GET', 'departments', (auth) => [502, `Bad gateway ${auth}`]],
	[
		'a 429 asking for a long wait',
		'GET',
		'departments',
		(auth) => [429, auth, { 'Retry-After': '999' }],
	],
	[
		'a 503 with a JSON error',
		'GET',
		'partner/tariffs',
		(auth) => [503, json({ error: 'unknown', argument: auth })],
	],
	[
		'an unknown chat',
		'GET',
		'chat',
		(auth) => [200, json({ error: auth, field_value: TEST_PASSWORD })],
	],
	['a broadcast that fails and is not retried', 'POST', 'rt/send_broadcast', (auth) => [502, auth]],
	[
		'a 200 chats page without last_ts',
		'GET',
		'chats',
		(auth) => [200, json({ chats: [auth], more_chats_available: true })],
	],
];

test.each(ECHO_CASES)('%s', async (_name, method, apiPath, echo) => {
	hostile(method, apiPath, echo);
	const body = method === 'POST' ? BROADCAST_BODY : undefined;

	const error = await rejectionOf(
		svcRequest(transportContext(), apiPath, {
			body,
			qs: { id: 1, since: 0 },
		}),
	);

	// The hostile server really had the secret to echo.
	expect(receivedAuthorizations[0]).toBe(`Basic ${BASIC_VALUE}`);
	expect(leaksOf(errorViews(error), SECRETS)).toEqual([]);
	expect(error.message).toBeTruthy();
});

test('a stalled cursor', async () => {
	hostile('GET', 'chats', () => [200, json({ chats: [], more_chats_available: true, last_ts: 0 })]);
	const error = await rejectionOf(walkChats(transportContext(), 0));
	expect(error.message).toMatch(/cursor stopped moving/);
	expect(leaksOf(errorViews(error), SECRETS)).toEqual([]);
});

describe('configuration errors', () => {
	test.each([
		['plain http to a network host', 'http://acme.svc.example'],
		[
			'the password typed into the host with a user name',
			`admin:${TEST_PASSWORD}@acme.svc.example`,
		],
		['the password pasted into the host', `${TEST_PASSWORD} acme`],
	])('%s', async (_name, host) => {
		const context = transportContext(testCredentials(host));
		const error = await rejectionOf(svcRequest(context, 'departments'));
		expect(error.context.svcError).toBe('invalid-host');
		expect(leaksOf(errorViews(error), SECRETS)).toEqual([]);
	});
});

describe('network errors, against real local servers', () => {
	test('a refused connection', async () => {
		const context = transportContext(testCredentials(`http://127.0.0.1:${await closedPort()}`));
		const error = await rejectionOf(svcRequest(context, 'departments'));
		expect(error.message).toMatch(/refused the connection/);
		expect(leaksOf(errorViews(error), SECRETS)).toEqual([]);
	});

	// The reset comes at once, so its timeout only has to outlast a busy machine; the silent server needs a short one.
	test.each([
		[
			'a reset on every attempt',
			(request: http.IncomingMessage) => request.socket.destroy(),
			/closed the connection/,
			10_000,
		],
		['no answer at all', () => undefined, /did not answer in time/, 150],
	])('%s', async (_name, handler, message, timeoutMs) => {
		const server = await listenLocally(http.createServer(handler));
		try {
			const context = transportContext(testCredentials(`http://${server.hostPort}`));
			instantPauses({ maxRetries: 1, timeoutMs });
			const error = await rejectionOf(svcRequest(context, 'departments'));
			expect(error.message).toMatch(message);
			expect(leaksOf(errorViews(error), SECRETS)).toEqual([]);
		} finally {
			await server.close();
		}
	});
});

test('a password with quotes, slashes and accents is redacted in every form it could come back in', async () => {
	const password = 'p"a\\ss/wörd+Leak=1&x';
	const credentials = testCredentials(HOST, { password });
	const basic = Buffer.from(`${EMAIL}:${password}`).toString('base64');
	const forms = [
		password,
		JSON.stringify(password).slice(1, -1),
		encodeURIComponent(password),
		basic,
	];
	const echoes: Echo[] = [
		() => [200, `raw ${password} url ${encodeURIComponent(password)}`],
		() => [200, json({ error: 'field-value-is-not-string', field_value: password })],
		() => [200, json({ error: `x${password}` })],
		(auth) => [500, json({ echoed: auth, password })],
	];
	for (const echo of echoes) {
		hostile('GET', 'departments', echo);
		const error = await rejectionOf(svcRequest(transportContext(credentials), 'departments'));
		expect(receivedAuthorizations.at(-1)).toBe(`Basic ${basic}`);
		expect(leaksOf(errorViews(error), forms)).toEqual([]);
		nock.cleanAll();
	}
});
