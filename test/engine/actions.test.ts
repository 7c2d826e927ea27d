// The Svc Chat node's operations in whole workflows on n8n's engine, both lines, against the sandbox (the workflows of
// test/e2e/workflows, run as the editor runs them); and what an HTTP Request node given the Svc credential sends.
import path from 'node:path';

import type { Department, Operator, Tariff } from '../../nodes/SvcChat/types';
import { SANDBOX_CREDENTIAL } from '../../scripts/examples';
import { nodeOutput, type RunData } from '../../scripts/executions';
import { readWorkflowsIn } from '../../scripts/n8n';
import { FLAVOURS } from '../../scripts/runtime';
import { sandboxAllChats, sandboxGet } from '../e2e/environment';
import {
	carrying,
	recordingServer,
	stealingNode,
	workflowWith,
	type RecordingServer,
} from '../e2e/recordingServer';
import { useEngine } from '../harness/engine';

const WORKFLOWS = readWorkflowsIn(path.join(__dirname, '../e2e/workflows'));
/** A login whose password is wrong; its user is unknown, so it can never lock out the sandbox admin. */
const WRONG_LOGIN = { email: 'nobody@svc.test', password: 'Wrong-pw-e2e-91c2' };

function workflow(id: string) {
	const found = WORKFLOWS.find((candidate) => candidate.id === id);
	if (!found) throw new Error(`test/e2e/workflows has no workflow ${id}`);
	return found;
}

describe.each([
	// n8n 2.x refuses a credential restricted to its supported nodes (restrictToSupportedNodes) to any other node.
	{ flavour: FLAVOURS['n8n-2'], restrictsCredentials: true },
	{ flavour: FLAVOURS['n8n-1'], restrictsCredentials: false },
])('on the engine of $flavour.name', ({ flavour, restrictsCredentials }) => {
	// More than two pages of /chats (100 per page), so Return All has to follow the cursor. GET /chat answers an unknown
	// id with the code that gives no reason, as some servers do (the spec is silent).
	const env = useEngine(flavour, {
		seed: 3,
		chats: 250,
		settings: { unknownChatError: 'unknown' },
	});

	/** Runs a workflow of test/e2e/workflows from its Manual Trigger to its end, with the sandbox credential unless told. */
	const run = async (id: string, credentials = env.credentials) =>
		await env.engine.run(workflow(id), { credentials });

	/** The run data of a workflow's run; n8n's error fails the test. */
	async function successfulRun(id: string): Promise<RunData> {
		const { status, data, error } = await run(id);
		if (status !== 'success') throw new Error(`Workflow ${id} ended ${status}: ${error}`);
		return data;
	}

	describe('stored-data reads', () => {
		let reads: RunData;
		let operatorsBefore: Operator[];
		beforeAll(async () => {
			operatorsBefore = env.sandbox.control.getOperators();
			reads = await successfulRun('svcE2eReads');
		});

		test('Department > Get Many gives exactly the departments the API has', async () => {
			const expected = await sandboxGet<Department[]>(env.sandbox, 'departments');
			expect(expected.length).toBeGreaterThan(0);
			expect(nodeOutput(reads, 'Departments')).toEqual(expected);
		});

		test('Operator > Get Many filtered by role gives the supervisors only', () => {
			const supervisors = operatorsBefore.filter((operator) =>
				operator.roles.includes('supervisor'),
			);
			expect(supervisors.length).toBeGreaterThan(0);
			expect(nodeOutput(reads, 'Supervisors').map((operator) => operator.email)).toEqual(
				supervisors.map((operator) => operator.email),
			);
		});

		test('Tariff > Get Many gives the tariffs of the API', async () => {
			const expected = await sandboxGet<{ tariffs: Tariff[] }>(env.sandbox, 'partner/tariffs');
			expect(nodeOutput(reads, 'Tariffs')).toEqual(expected.tariffs);
		});

		test('Chat > Get Many with Return All follows the cursor over every page', async () => {
			const { chats, pages } = await sandboxAllChats(env.sandbox);
			expect(pages).toBeGreaterThan(2);
			const output = nodeOutput(reads, 'All chats');
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
			// The node's reads plus this test's own walk: each walk needs every page.
			expect(chatRequests.length).toBeGreaterThanOrEqual(2 * pages);
		});
	});

	describe('real-time commands', () => {
		test('Operator > Set Status changes the operator in the sandbox, and nobody else', async () => {
			const operatorsBefore = env.sandbox.control.getOperators();
			expect(operatorsBefore.find((operator) => operator.email === 'dmitri@svc.test')?.status).toBe(
				'invisible',
			);
			expect(nodeOutput(await successfulRun('svcE2eStatus'), 'Dmitri online')).toEqual([
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

		test('Broadcast > Send Template sends every item in one request, as the sandbox recorded it', async () => {
			const output = nodeOutput(await successfulRun('svcE2eBroadcast'), 'Send template');
			expect(
				output.map((item) => [
					item.result,
					item.phone_number,
					item.recipients_in_request,
					item.requests,
				]),
			).toEqual([
				['accepted', '+15550000011', 4, 1],
				['accepted', '+15550000012', 4, 1],
				['accepted', '+4930123456', 4, 1],
				['accepted', '+15550000014', 4, 1],
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

			expect(nodeOutput(await successfulRun('svcE2ePair'), 'Pair token')).toEqual([
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

			expect(nodeOutput(await successfulRun('svcE2eUnpair'), 'Remove token')).toEqual([
				{ auth_token: 'e2e-token-7f3a9c', removed: true },
			]);
			expect(env.sandbox.control.pairings()).toEqual({});
		});
	});

	describe('errors reach the n8n execution as node errors', () => {
		const MAY_NOT_EXIST =
			'Chat "no-such-chat" could not be read, and the server gave no reason: the chat may not exist';

		test('an unknown chat answered with "unknown" names the chat and says it may not exist', async () => {
			const execution = await run('svcE2eUnknownChat');
			expect(execution.status).toBe('error');
			const error = execution.data.resultData.error!;
			expect(error.node?.name).toBe('Get chat');
			expect(error.message).toBe(`${MAY_NOT_EXIST} [item 0]`);
			expect(error.description).toMatch(
				/^Check the chat ID: .*If the chat exists, try again later/,
			);
			expect(error.description).toContain('(Svc code: unknown)');
		});

		test('with Continue On Fail, the same chat becomes an error item with the message and the fix', async () => {
			const output = nodeOutput(await successfulRun('svcE2eUnknownChatOn'), 'Get chat');
			expect(output).toEqual([
				{ error: MAY_NOT_EXIST, description: expect.stringContaining('(Svc code: unknown)') },
			]);
		});

		test('a wrong password fails the execution at the Svc node with a clear message, without the password', async () => {
			const execution = await run('svcE2eWrongPass', {
				svcApi: { host: env.sandbox.host, ...WRONG_LOGIN, ignoreSslIssues: false },
			});
			expect(execution.error).toMatch(/password/i);
			expect(execution.status).toBe('error');
			const error = execution.data.resultData.error!;
			expect(error.node?.name).toBe('Departments');
			expect(error.message).toMatch(/^wrong email or password \[item 0\]$/i);
			expect(execution.data.resultData.runData.Departments[0].error?.message).toBe(error.message);
			expect(JSON.stringify(execution)).not.toContain(WRONG_LOGIN.password);
			// 401 is never retried: one attempt only.
			const attempts = env.sandbox.control.requestLog().filter((entry) => entry.status === 401);
			expect(attempts).toHaveLength(1);
		});

		test('an API error code (invalid-agent-email) fails the execution with its meaning', async () => {
			const execution = await run('svcE2eNoOperator');
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
		let recorder: RecordingServer;
		beforeAll(async () => {
			recorder = await recordingServer(() => ({ status: 200, body: '{"stolen":false}' }));
		});
		afterAll(async () => await recorder?.close());

		test('an HTTP Request node given it sends neither the email nor the password', async () => {
			// A real n8n 2.x refuses to save such a workflow, and refuses the credential to the node when one imported by its CLI
			// runs (test/e2e/credential.test.ts).
			const steal = workflowWith(
				'svcEngineHttpSteal',
				'Engine: an HTTP Request node given the Svc credential',
				stealingNode(`http://${recorder.hostPort}/steal`),
				SANDBOX_CREDENTIAL,
			);
			const execution = await env.engine.run(steal, { credentials: env.credentials });
			const { email, password } = env.sandbox.admin;
			const basic = Buffer.from(`${email}:${password}`).toString('base64');
			expect(carrying(recorder.requests, [email, password, basic])).toEqual([]);
			if (restrictsCredentials) {
				// n8n-core asks n8n's rule (isCredentialUsableByNode) before it decrypts the credential for that node.
				expect(execution.status).toBe('error');
				expect(execution.error).toMatch(
					/^Credential type "svcApi" is restricted to specific nodes/,
				);
				expect(execution.data.resultData.error?.node?.name).toBe('Steal');
				expect(recorder.requests).toEqual([]);
			} else {
				// n8n 1.x has no such restriction. The credential has no authenticate block, so n8n attaches nothing of it.
				expect(execution.error).toBeUndefined();
				expect(execution.status).toBe('success');
				expect(nodeOutput(execution.data, 'Steal')).toEqual([{ stolen: false }]);
				expect(recorder.requests).toEqual([
					{ url: '/steal', authorization: undefined, raw: expect.any(String) as string },
				]);
			}
		});
	});
});
