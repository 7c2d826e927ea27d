// E2E: the Svc Chat node inside a real n8n (workflows run as the editor runs them), against the sandbox; and what an
// HTTP Request node given the Svc credential sends.
import path from 'node:path';

import type { Department, Operator, Tariff } from '../../nodes/SvcChat/types';
import { SANDBOX_CREDENTIAL } from '../../scripts/examples';
import { nodeOutput, type RunData, type StoredExecution } from '../../scripts/executions';
import { readWorkflowsIn } from '../../scripts/n8n';
import {
	runtimeFlavour,
	sandboxAllChats,
	sandboxGet,
	SETUP_TIMEOUT_MS,
	startE2eEnvironment,
	TEST_TIMEOUT_MS,
	WRONG_PASSWORD_CREDENTIAL,
	type E2eEnvironment,
} from './environment';
import { runManually } from './manualRuns';
import {
	carrying,
	recordingServer,
	stealingNode,
	workflowWith,
	type RecordingServer,
} from './recordingServer';

const WORKFLOWS = path.join(__dirname, 'workflows');
/** An HTTP Request node given the sandbox's Svc credential, aimed at `recorder`. */
const STEAL = 'svcE2eHttpSteal2';
const BATCH = [
	STEAL,
	'svcE2eReads',
	'svcE2eStatus',
	'svcE2eBroadcast',
	'svcE2eWrongPass',
	'svcE2eNoOperator',
	'svcE2eUnknownChat',
	'svcE2eUnknownChatOn',
];

let env: E2eEnvironment;
let recorder: RecordingServer;
let operatorsBefore: Operator[];
let runs: Record<string, RunData>;
let errors: Record<string, string>;

beforeAll(async () => {
	// More than two pages of /chats (100 per page), so Return All has to follow the cursor.
	env = await startE2eEnvironment({
		// GET /chat answers an unknown id with the code that gives no reason, as some servers do (the spec is silent).
		sandbox: { seed: 3, chats: 250, settings: { unknownChatError: 'unknown' } },
		wrongPasswordCredential: true,
	});
	operatorsBefore = env.sandbox.control.getOperators();
	recorder = await recordingServer(() => ({ status: 200, body: '{"stolen":false}' }));
	await env.n8n.importWorkflows(readWorkflowsIn(WORKFLOWS));
	// n8n 2.x's REST API refuses to save an HTTP Request node given the Svc credential; a workflow file imported by
	// the CLI gets in, and then the engine must refuse it.
	const steal = workflowWith(
		STEAL,
		'E2E: an HTTP Request node given the Svc credential',
		stealingNode(`http://${recorder.hostPort}/steal`),
		SANDBOX_CREDENTIAL,
	);
	await env.n8n.importWorkflows([steal], { throughCli: true });
	({ runs, errors } = await runManually(env.n8n, BATCH));
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
	await Promise.all([env?.dispose(), recorder?.close()]);
});

jest.setTimeout(TEST_TIMEOUT_MS);

function successfulRun(id: string): RunData {
	if (!runs[id] || errors[id]) throw new Error(`Workflow ${id} failed: ${errors[id]}`);
	return runs[id];
}

/** Runs one workflow on its own (for steps whose order matters) and gives its run data; n8n's error fails the test. */
async function runAlone(id: string): Promise<RunData> {
	const batch = await runManually(env.n8n, [id]);
	if (!batch.runs[id] || batch.errors[id])
		throw new Error(`Workflow ${id} failed: ${batch.errors[id]}`);
	return batch.runs[id];
}

/** n8n's stored record of a workflow's one run, read through its REST API. */
async function onlyExecution(workflowId: string): Promise<StoredExecution> {
	const executions = await env.n8n.readExecutions(workflowId);
	expect(executions).toHaveLength(1);
	return executions[0];
}

describe('stored-data reads', () => {
	test('Department > Get Many gives exactly the departments the API has', async () => {
		const expected = await sandboxGet<Department[]>(env.sandbox, 'departments');
		expect(expected.length).toBeGreaterThan(0);
		expect(nodeOutput(successfulRun('svcE2eReads'), 'Departments')).toEqual(expected);
	});

	test('Operator > Get Many filtered by role gives the supervisors only', () => {
		const supervisors = operatorsBefore.filter((operator) => operator.roles.includes('supervisor'));
		expect(supervisors.length).toBeGreaterThan(0);
		const output = nodeOutput(successfulRun('svcE2eReads'), 'Supervisors');
		expect(output.map((operator) => operator.email)).toEqual(
			supervisors.map((operator) => operator.email),
		);
	});

	test('Tariff > Get Many gives the tariffs of the API', async () => {
		const expected = await sandboxGet<{ tariffs: Tariff[] }>(env.sandbox, 'partner/tariffs');
		expect(nodeOutput(successfulRun('svcE2eReads'), 'Tariffs')).toEqual(expected.tariffs);
	});

	test('Chat > Get Many with Return All follows the cursor over every page', async () => {
		const { chats, pages } = await sandboxAllChats(env.sandbox);
		expect(pages).toBeGreaterThan(2);
		const output = nodeOutput(successfulRun('svcE2eReads'), 'All chats');
		expect(output).toHaveLength(chats.length);
		expect(new Set(output.map((chat) => String(chat.id)))).toEqual(
			new Set(chats.map((chat) => String(chat.id))),
		);
		// Simplified output of each chat's latest version, with the cursor to continue from on every item.
		const byId = new Map(chats.map((chat) => [String(chat.id), chat]));
		const cursor = String(env.sandbox.control.latestCursor());
		for (const item of output) {
			const chat = byId.get(String(item.id))!;
			expect(item).toMatchObject({
				created_at: chat.created_at,
				message_count: chat.messages?.length ?? 0,
				last_ts: cursor,
			});
		}
		const chatRequests = env.sandbox.control
			.requestLog()
			.filter((entry) => entry.path === '/api/v2/chats' && entry.status === 200);
		// n8n's reads plus this test's own walk: each walk needs every page.
		expect(chatRequests.length).toBeGreaterThanOrEqual(2 * pages);
	});
});

describe('real-time commands', () => {
	test('Operator > Set Status changes the operator in the sandbox, and nobody else', () => {
		expect(operatorsBefore.find((operator) => operator.email === 'dmitri@svc.test')?.status).toBe(
			'invisible',
		);
		expect(nodeOutput(successfulRun('svcE2eStatus'), 'Dmitri online')).toEqual([
			{ result: 'ok', email: 'dmitri@svc.test', status: 'online' },
		]);
		const after = env.sandbox.control.getOperators();
		const expected = operatorsBefore.map((operator) =>
			operator.email === 'dmitri@svc.test' ? { ...operator, status: 'online' } : operator,
		);
		expect(after.map(({ email, status }) => ({ email, status }))).toEqual(
			expected.map(({ email, status }) => ({ email, status })),
		);
	});

	test('Broadcast > Send Template sends every item in one request, as the sandbox recorded it', () => {
		const output = nodeOutput(successfulRun('svcE2eBroadcast'), 'Send template');
		expect(
			output.map((item) => [
				item.result,
				item.phone_number,
				item.recipients_in_request,
				item.requests,
			]),
		).toEqual([
			['ok', '+15550000011', 4, 1],
			['ok', '+15550000012', 4, 1],
			['ok', '+4930123456', 4, 1],
			['ok', '+15550000014', 4, 1],
		]);
		const broadcasts = env.sandbox.control.broadcasts();
		expect(broadcasts).toHaveLength(1);
		const [broadcast] = broadcasts;
		expect(broadcast).toMatchObject({ operator_id: 1, kind: 'msgapp', channel_id: 'wa-main' });
		expect(broadcast.data).toEqual({
			template_id: 'welcome_v2',
			entries: ['Dana', 'Eli', 'Fay', 'Gus'].map((name, index) => ({
				phone_number: ['+15550000011', '+15550000012', '+4930123456', '+15550000014'][index],
				language_code: 'en',
				// Several template parts have parameters, so `body` is the list of parts (see params.md).
				body: [
					{ type: 'header', parameters: [{ type: 'text', text: 'Spring offer' }] },
					{
						type: 'body',
						parameters: [
							{ type: 'text', text: name },
							{ type: 'text', text: '20%' },
						],
					},
					{ type: 'footer', parameters: [{ text: 'Reply STOP to opt out' }] },
				],
			})),
		});
		// The number the messaging app does not know is accepted but receives nothing.
		expect(broadcast.delivered_to).toEqual(['+15550000011', '+15550000012', '+15550000014']);
	});

	test('Visitor > Pair Token and Remove Token, run one after the other, store and then drop the pairing', async () => {
		expect(env.sandbox.control.pairings()).toEqual({});

		expect(nodeOutput(await runAlone('svcE2ePair'), 'Pair token')).toEqual([
			{
				auth_token: 'e2e-token-7f3a9c',
				visitor_fields: {
					id: 'e2e-visitor-7',
					name: 'Ivy Example',
					email: 'ivy@example.com',
					plan: 'premium',
				},
				snippet: 'window.svc_auth_token = "e2e-token-7f3a9c";',
			},
		]);
		expect(env.sandbox.control.pairings()).toEqual({
			'e2e-token-7f3a9c': {
				id: 'e2e-visitor-7',
				name: 'Ivy Example',
				email: 'ivy@example.com',
				plan: 'premium',
			},
		});

		expect(nodeOutput(await runAlone('svcE2eUnpair'), 'Remove token')).toEqual([
			{ auth_token: 'e2e-token-7f3a9c', removed: true },
		]);
		expect(env.sandbox.control.pairings()).toEqual({});
	});
});

describe('errors reach the n8n execution as node errors', () => {
	const MAY_NOT_EXIST =
		'Chat "no-such-chat" could not be read, and the server gave no reason: the chat may not exist';

	test('an unknown chat answered with "unknown" names the chat and says it may not exist', async () => {
		const execution = await onlyExecution('svcE2eUnknownChat');
		expect(execution.status).toBe('error');
		const error = execution.data.resultData.error!;
		expect(error.node?.name).toBe('Get chat');
		expect(error.message).toBe(`${MAY_NOT_EXIST} [item 0]`);
		expect(error.description).toMatch(/^Check the chat ID: .*If the chat exists, try again later/);
		expect(error.description).toContain('(Svc code: unknown)');
	});

	test('with Continue On Fail, the same chat becomes an error item with the message and the fix', async () => {
		const run = successfulRun('svcE2eUnknownChatOn');
		const [item] = nodeOutput(run, 'Get chat');
		expect(item).toEqual({
			error: MAY_NOT_EXIST,
			description: expect.stringContaining('(Svc code: unknown)'),
		});
		expect(nodeOutput(run, 'Get chat')).toHaveLength(1);
	});

	test('a wrong password fails the execution at the Svc node with a clear message, without the password', async () => {
		expect(errors.svcE2eWrongPass).toMatch(/password/i);
		const execution = await onlyExecution('svcE2eWrongPass');
		expect(execution.status).toBe('error');
		const error = execution.data.resultData.error!;
		expect(error.node?.name).toBe('Departments');
		expect(error.message).toMatch(/^wrong email or password \[item 0\]$/i);
		expect(execution.data.resultData.runData.Departments[0].error?.message).toBe(error.message);
		expect(JSON.stringify(execution)).not.toContain(WRONG_PASSWORD_CREDENTIAL.data.password);
		// 401 is never retried: one attempt only.
		const attempts = env.sandbox.control.requestLog().filter((entry) => entry.status === 401);
		expect(attempts).toHaveLength(1);
	});

	test('an API error code (invalid-agent-email) fails the execution with its meaning', async () => {
		const execution = await onlyExecution('svcE2eNoOperator');
		expect(execution.status).toBe('error');
		const error = execution.data.resultData.error!;
		expect(error.node?.name).toBe('Set status');
		// What happened and the item in the title, as n8n titles errors; the API's code in the description.
		expect(error.message).toMatch(
			/^no operator has this email, or the email is malformed \[item 0\]$/i,
		);
		expect(error.description).toContain('(Svc code: invalid-agent-email)');
		expect(JSON.stringify(error)).toContain('invalid-agent-email');
		expect(env.sandbox.control.getOperators().map((operator) => operator.email)).not.toContain(
			'nobody@svc.test',
		);
	});
});

describe('the Svc credential in another node', () => {
	test('an HTTP Request node given it sends neither the email nor the password', () => {
		const { email, password } = env.sandbox.admin;
		const basic = Buffer.from(`${email}:${password}`).toString('base64');
		expect(carrying(recorder.requests, [email, password, basic])).toEqual([]);
		if (runtimeFlavour().name === 'n8n-2') {
			// restrictToSupportedNodes: the engine will not decrypt it for that node, and no request goes out.
			expect(errors[STEAL]).toMatch(/svcApi|credential/i);
			expect(recorder.requests).toEqual([]);
		} else {
			// n8n 1.x has no such restriction. The credential has no authenticate block, so n8n attaches nothing of it.
			expect(errors[STEAL]).toBeUndefined();
			expect(nodeOutput(successfulRun(STEAL), 'Steal')).toEqual([{ stolen: false }]);
			expect(recorder.requests).toEqual([
				{ url: '/steal', authorization: undefined, raw: expect.any(String) as string },
			]);
		}
	});
});
