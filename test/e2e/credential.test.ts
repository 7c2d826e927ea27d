// Real n8n 2.41.1: the editor's credential test keeps every promise, and no other node can send the Svc password.
import { startSandbox, type Sandbox } from '../../sandbox';
import { N8n, type Owner } from '../../scripts/n8n';
import { quiet } from '../../scripts/processes';
import { ensureRuntime, REPO_ROOT } from '../../scripts/runtime';
import { SETUP_TIMEOUT_MS } from './environment';
import {
	carrying,
	recordingServer,
	stealingNode,
	workflowWith,
	type RecordingServer,
} from './recordingServer';
import { runManually } from './manualRuns';
import { testWrongPasswordInDemo } from './wrong-password-demo.scenario';

const OWNER: Owner = {
	email: 'owner@svc-e2e.test',
	password: 'Owner-pw-e2e-7f3a1',
	firstName: 'E2E',
	lastName: 'Owner',
};
/** Recognisable in any text; the admin password of the HTTPS sandbox and of every scripted credential. */
const PASSWORD = 'Svc-Canary-Pw-4d61b2e0';
const EMAIL = 'admin@svc.test';
const BASIC = Buffer.from(`${EMAIL}:${PASSWORD}`).toString('base64');
const CREDENTIAL = { id: 'svcE2eCredTest01', name: 'Svc credential e2e' };
/** The same credential by the ID n8n gave it: the credential test names it as the editor does. */
let storedCredential: { id: string; name: string };
const BROWSER_ID = 'svc-e2e-browser';

const MESSAGES = {
	ok: 'Connection successful!',
	wrongLogin:
		'Wrong email or password. Check the admin email and password. The server blocks logins after too many wrong attempts, so correct them before running or testing again. After a refused login, runs that no person started (published triggers, schedules, agents) pause their requests with this password; a corrected password tries again right away.',
	forbidden:
		'Access denied: the user is not an administrator, or there were too many login attempts. Use the email and password of an administrator operator. If they are right, wait a while before the next attempt: the server blocks logins after too many attempts. Meanwhile, runs that no person started pause their requests with this password.',
	noApiAccess:
		'API access is not enabled for this account. Ask Svc technical support to enable Integration API access for your account, then test the credentials again.',
	unavailable: 'The server is temporarily unavailable (503). Try again later.',
	redirect:
		'The server redirects the request elsewhere, and the credentials are never sent on to another address. Enter the final host (the address the chat server answers on) in the Host field.',
	// The node's test names the reason itself (n8n's declarative test could only say ERR_INVALID_URL).
	refusedHost:
		/^(Plain http:\/\/ is refused for|The host ".*" is not a valid host name).* Correct the host\.$/,
};

let n8n: N8n;
let sandbox: Sandbox;
let scripted: RecordingServer;
let elsewhere: RecordingServer;
let recorder: RecordingServer;
let scriptedReply: {
	status: number;
	body: string;
	headers: Record<string, string>;
	reason?: string;
} = { status: 200, body: '{"tariffs":[]}', headers: {} };
let cookie = '';
let batch: Awaited<ReturnType<typeof runManually>>;
const messagesSeen: string[] = [];

const HTTP_REQUEST_WORKFLOW = 'svcE2eHttpSteal';
const SVC_NODE_WORKFLOW = 'svcE2eRestricted';

async function rest<T>(
	method: string,
	path: string,
	body?: unknown,
): Promise<{ status: number; json: T; headers: Headers }> {
	const reply = await fetch(`${n8n.baseUrl}/rest/${path}`, {
		method,
		headers: { 'content-type': 'application/json', 'browser-id': BROWSER_ID, cookie },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const text = await reply.text();
	return {
		status: reply.status,
		json: (text ? JSON.parse(text) : {}) as T,
		headers: reply.headers,
	};
}

/** What the editor does when "Test" is clicked on the credential form: POST /rest/credentials/test. */
async function testCredential(data: {
	host: string;
	email?: string;
	password?: string;
	ignoreSslIssues?: boolean;
}) {
	const reply = await rest<{ data: { status: string; message: string } }>(
		'POST',
		'credentials/test',
		{
			credentials: {
				...storedCredential,
				type: 'svcApi',
				data: { email: EMAIL, password: PASSWORD, ignoreSslIssues: false, ...data },
			},
		},
	);
	if (reply.status !== 200)
		throw new Error(
			`POST /rest/credentials/test answered ${reply.status}: ${JSON.stringify(reply.json)}`,
		);
	messagesSeen.push(reply.json.data.message);
	return reply.json.data;
}

beforeAll(async () => {
	const runtime = ensureRuntime(quiet);
	sandbox = await startSandbox({ https: true, admin: { email: EMAIL, password: PASSWORD } });
	scripted = await recordingServer((request) => ({
		...scriptedReply,
		// A hostile server can say anything in its reason phrase, e.g. the Basic credentials it was just sent.
		statusMessage:
			scriptedReply.reason === 'echo'
				? `Echo ${request.headers.authorization ?? ''} ${EMAIL}:${PASSWORD}`
				: undefined,
	}));
	elsewhere = await recordingServer(() => ({ status: 200, body: '{"tariffs":[]}' }));
	recorder = await recordingServer(() => ({ status: 200, body: '{"stolen":false}' }));
	n8n = await N8n.create({ runtime });
	n8n.installPackage(REPO_ROOT);
	n8n.setOwner(OWNER);
	[storedCredential] = await n8n.importCredentials([
		{
			...CREDENTIAL,
			type: 'svcApi',
			data: { host: sandbox.host, email: EMAIL, password: PASSWORD, ignoreSslIssues: true },
		},
	]);
	// n8n 2.x's REST API refuses to save an HTTP Request node given the Svc credential; a workflow file imported by
	// the CLI gets in, and then the engine must refuse it.
	await n8n.importWorkflows(
		[
			workflowWith(
				HTTP_REQUEST_WORKFLOW,
				'E2E: HTTP Request node with the Svc credential',
				stealingNode(`http://${recorder.hostPort}/steal`),
				CREDENTIAL,
			),
			workflowWith(
				SVC_NODE_WORKFLOW,
				'E2E: Svc Chat with the restricted credential',
				{
					name: 'Departments',
					type: 'n8n-nodes-svc.svcChat',
					typeVersion: 1,
					parameters: { resource: 'department', operation: 'getMany', returnAll: true },
				},
				CREDENTIAL,
			),
		],
		{ throughCli: true },
	);
	batch = await runManually(n8n, [HTTP_REQUEST_WORKFLOW, SVC_NODE_WORKFLOW]);
	const login = await rest('POST', 'login', {
		emailOrLdapLoginId: OWNER.email,
		password: OWNER.password,
	});
	if (login.status !== 200)
		throw new Error(`n8n login failed: ${login.status} ${JSON.stringify(login.json)}`);
	cookie = (login.headers.get('set-cookie') ?? '').split(';')[0];
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
	await n8n?.dispose();
	await Promise.all([sandbox?.stop(), scripted?.close(), elsewhere?.close(), recorder?.close()]);
});

beforeEach(() => {
	scripted.requests.length = 0;
	elsewhere.requests.length = 0;
});

describe('the HTTP Request node cannot use the Svc credential', () => {
	test('the engine refuses it, and nothing reaches the recorder, let alone the password', () => {
		// The message of n8n-core's check, as test/engine/actions.test.ts sees it on the engine alone.
		expect(batch.errors[HTTP_REQUEST_WORKFLOW]).toMatch(
			/^Credential type "svcApi" is restricted to specific nodes/,
		);
		const { error } = batch.executions[HTTP_REQUEST_WORKFLOW].data.resultData;
		expect(error?.node?.name).toBe('Steal');
		expect(batch.runs[HTTP_REQUEST_WORKFLOW]).toBeUndefined();
		expect(carrying(recorder.requests, [EMAIL, PASSWORD, BASIC])).toEqual([]);
		expect(recorder.requests).toEqual([]);
	});

	test('the editor cannot save it: n8n refuses the workflow and names the nodes that may use the credential', async () => {
		const workflow = workflowWith(
			'svcE2eHttpSteal2',
			'E2E: HTTP Request node with the Svc credential, saved as the editor saves',
			stealingNode(`http://${recorder.hostPort}/steal`),
			CREDENTIAL,
		);
		// As the editor sends a new one: n8n gives it its ID.
		const saved = await rest<{ message?: string }>('POST', 'workflows', {
			...workflow,
			id: undefined,
		});
		expect(saved.status).toBe(400);
		expect(saved.json.message).toMatch(
			/cannot use credential type "svcApi".*n8n-nodes-svc\.svcChat/,
		);
		expect(recorder.requests).toEqual([]);
	});

	test('the Svc Chat node still works with the restricted credential', () => {
		expect(batch.errors[SVC_NODE_WORKFLOW]).toBeUndefined();
		const departments =
			batch.runs[SVC_NODE_WORKFLOW]?.resultData.runData.Departments?.[0]?.data?.main?.[0] ?? [];
		expect(departments.length).toBeGreaterThan(0);
	});

	test('only the Svc nodes may use it: n8n infers Svc Chat and Svc Chat Trigger from our nodes', async () => {
		// n8n's tool generation adds the AI-tool variant (svcChatTool) to the same list in memory when it creates it;
		// the list served to the editor is the one read from the package.
		const reply = await fetch(`${n8n.baseUrl}/types/credentials.json`, {
			headers: { cookie, 'browser-id': BROWSER_ID },
		});
		const types = (await reply.json()) as Array<{
			name: string;
			supportedNodes?: string[];
			restrictToSupportedNodes?: boolean;
			authenticate?: unknown;
		}>;
		const svcApi = types.find((type) => type.name === 'svcApi');
		expect(svcApi?.restrictToSupportedNodes).toBe(true);
		expect(svcApi?.authenticate).toBeUndefined();
		expect([...(svcApi?.supportedNodes ?? [])].sort()).toEqual([
			'n8n-nodes-svc.svcChat',
			'n8n-nodes-svc.svcChatTrigger',
		]);
	});

	test('no "Custom API Call" is added to the node\'s Resource or Operation lists', async () => {
		const reply = await fetch(`${n8n.baseUrl}/types/nodes.json`, {
			headers: { cookie, 'browser-id': BROWSER_ID },
		});
		const nodes = (await reply.json()) as Array<{
			name: string;
			properties: Array<{ name: string; options?: Array<{ value?: unknown }> }>;
		}>;
		const svcNodes = nodes.filter((node) => node.name.startsWith('n8n-nodes-svc.'));
		expect(svcNodes.map((node) => node.name).sort()).toEqual([
			'n8n-nodes-svc.svcChat',
			'n8n-nodes-svc.svcChatTool',
			'n8n-nodes-svc.svcChatTrigger',
		]);
		const values = svcNodes.flatMap((node) =>
			node.properties.flatMap((property) => (property.options ?? []).map((option) => option.value)),
		);
		expect(values.length).toBeGreaterThan(20);
		expect(values).not.toContain('__CUSTOM_API_CALL__');
	});
});

describe('the credential test, run the way the editor runs it', () => {
	test('OK against the HTTPS sandbox with "Ignore SSL Issues"', async () => {
		expect(await testCredential({ host: sandbox.host, ignoreSslIssues: true })).toEqual({
			status: 'OK',
			message: MESSAGES.ok,
		});
	});

	test('an untrusted certificate fails without "Ignore SSL Issues"', async () => {
		const result = await testCredential({ host: sandbox.host });
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/CERT|certificate/i);
	});

	test.each([
		[
			'403: not an administrator, or too many attempts',
			403,
			'<html>Forbidden</html>',
			MESSAGES.forbidden,
		],
		[
			'no-tariff-option: API access not enabled',
			200,
			'{"error":"no-tariff-option"}',
			MESSAGES.noApiAccess,
		],
		['503: not retried', 503, '', MESSAGES.unavailable],
	])('%s, asked exactly once', async (_name, status, body, message) => {
		scriptedReply = { status, body, headers: {} };
		expect(await testCredential({ host: `http://${scripted.hostPort}` })).toEqual({
			status: 'Error',
			message,
		});
		expect(scripted.requests).toEqual([
			expect.objectContaining({ url: '/api/v2/partner/tariffs', authorization: `Basic ${BASIC}` }),
		]);
	});

	test('401: wrong e-mail or password, asked once (the declarative test of earlier versions asked twice)', async () => {
		scriptedReply = { status: 401, body: '', headers: {} };
		expect(await testCredential({ host: `http://${scripted.hostPort}` })).toEqual({
			status: 'Error',
			message: MESSAGES.wrongLogin,
		});
		// n8n-core's httpRequestWithAuthentication re-sends a request answered 401 once (a refresh for token credentials),
		// and a declarative test always goes through it; the node's own test uses the legacy helper, which does not.
		expect(scripted.requests).toHaveLength(1);
	});

	test('a hostile server that echoes the credentials in its reason phrase does not get them shown', async () => {
		scriptedReply = { status: 418, body: '', headers: {}, reason: 'echo' };
		expect(await testCredential({ host: `http://${scripted.hostPort}` })).toEqual({
			status: 'Error',
			message: 'The server answered with HTTP 418. Check the host, then try again later.',
		});
		expect(scripted.requests).toHaveLength(1);
	});

	test('a redirect is not followed: the credentials never reach the other address', async () => {
		scriptedReply = {
			status: 302,
			body: '',
			headers: { location: `http://${elsewhere.hostPort}/api/v2/partner/tariffs` },
		};
		expect(await testCredential({ host: `http://${scripted.hostPort}` })).toEqual({
			status: 'Error',
			message: MESSAGES.redirect,
		});
		expect(scripted.requests).toHaveLength(1);
		expect(elsewhere.requests).toEqual([]);
	});

	test('an unreachable host names the system error', async () => {
		const closed = await recordingServer(() => scriptedReply);
		await closed.close();
		expect(await testCredential({ host: `http://${closed.hostPort}` })).toEqual({
			status: 'Error',
			message: expect.stringMatching(/refused the connection/),
		});
	});

	test('plain http:// to a host that is not loopback is refused before any request is sent', async () => {
		// "localhost." is not a loopback name to the rule, yet it resolves to this machine: a request would be seen.
		const [port] = scripted.hostPort.split(':').slice(-1);
		expect(await testCredential({ host: `http://localhost.:${port}` })).toEqual({
			status: 'Error',
			message: expect.stringMatching(MESSAGES.refusedHost),
		});
		expect(await testCredential({ host: 'http://acme.svc.example/' })).toEqual({
			status: 'Error',
			message: expect.stringMatching(MESSAGES.refusedHost),
		});
		expect(scripted.requests).toEqual([]);
	});

	test('a password pasted into the host is refused without being echoed', async () => {
		expect(await testCredential({ host: `${PASSWORD} acme` })).toEqual({
			status: 'Error',
			message: expect.stringMatching(MESSAGES.refusedHost),
		});
	});

	test('the four failures a user can cause each have their own message, and no message holds the password', () => {
		for (const message of [MESSAGES.wrongLogin, MESSAGES.forbidden, MESSAGES.noApiAccess])
			expect(messagesSeen).toContain(message);
		const unreachable = messagesSeen.find((message) => message.includes('refused the connection'));
		expect(
			new Set([MESSAGES.wrongLogin, MESSAGES.forbidden, MESSAGES.noApiAccess, unreachable]).size,
		).toBe(4);
		expect(messagesSeen.length).toBeGreaterThanOrEqual(11);
		expect(
			messagesSeen.filter((message) => message.includes(PASSWORD) || message.includes(BASIC)),
		).toEqual([]);
	});
});

// Last: it publishes the demo's triggers on a credential of their own, then saves a wrong password in it.
describe('the demo, its triggers published, with a wrong password saved', () =>
	testWrongPasswordInDemo({
		get n8n() {
			return n8n;
		},
		get sandbox() {
			return sandbox;
		},
	}));
