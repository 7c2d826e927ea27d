// Example 12 as an AI assistant uses it: the official MCP client on its published MCP Server Trigger (n8n 2.x and 1.x).
import { randomBytes } from 'node:crypto';

import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { INodePropertyOptions } from 'n8n-workflow';

import { selectors } from '../../nodes/SvcChat/actions/resources';
import { SVC_ERROR_CODES } from '../../nodes/SvcChat/transport/errors';
import type { Chat } from '../../nodes/SvcChat/types';
import { REGULAR_VISITOR } from '../../sandbox/data';
import { EXAMPLE_IDS, findExample, readExamples } from '../../scripts/examples';
import { connectMcp, publishMcpExample } from '../../scripts/mcp';
import { SETUP_TIMEOUT_MS, type E2eEnvironment } from './environment';

const UNKNOWN_EMAIL = 'nobody-here@svc.test';
const DAY_MS = 86_400_000;

/** A model-facing description the node gives an operation: its option's (n8n's own would be "Get chat in Svc Chat"). */
const described = (resource: string, value: string) =>
	(selectors[resource].options as INodePropertyOptions[]).find((one) => one.value === value)
		?.description;

/**
 * Needs a sandbox with the regular visitor (sandbox option regularVisitor). Connects over Streamable HTTP with the bearer token of a credential made here (the file holds none), lists the
 * tools, calls each, and checks what reached the sandbox. Leaves the workflow published.
 */
export function testMcpServer(env: E2eEnvironment): void {
	describe('examples/12: the MCP server, through the official MCP client', () => {
		const token = `mcp-${randomBytes(24).toString('hex')}`;
		const example = findExample(readExamples(), EXAMPLE_IDS.mcpServer);
		const toolDescription = (name: string) =>
			example.nodes.find((node) => node.name === name)?.parameters.toolDescription;
		let url: string;
		let client: Client;
		/** The sandbox's regular visitor's chats, as the API orders them (oldest change first). */
		let theirs: Chat[];
		const resultTexts: string[] = [];
		/** Calls a tool: its result, the result's text, and what reached the sandbox meanwhile ("METHOD path"). */
		async function call(name: string, args: Record<string, unknown>) {
			const before = env.sandbox.control.requestLog().length;
			const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
			const text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
			const requests = env.sandbox.control.requestLog().slice(before);
			resultTexts.push(text);
			return { result, text, sent: requests.map(({ method, path }) => `${method} ${path}`) };
		}
		/**
		 * The bound on /chats requests of a search that read back to `searchedBackTo`: one per 100 chats changed since
		 * (the seeded chats are spread evenly over 30 days), plus one per window (at most 4) and one for the clocks.
		 */
		const bound = (searchedBackTo: unknown) => {
			const spanMs = Date.now() - Date.parse(String(searchedBackTo));
			return Math.ceil((env.sandbox.control.chatCount() * spanMs) / (30 * DAY_MS) / 100) + 5;
		};

		beforeAll(async () => {
			theirs = env.sandbox.control.regularVisitorChats().map(({ chat }) => chat);
			url = await publishMcpExample(env.n8n, token);
			client = await connectMcp(url, token);
		}, SETUP_TIMEOUT_MS);

		afterAll(async () => await client?.close());

		test('it lists the four tools, with their input schemas and what each does and returns', async () => {
			const { tools } = await client.listTools();
			const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
			const argumentsOf = (name: string) =>
				Object.keys(byName[name]?.inputSchema.properties ?? {}).sort();
			expect(Object.keys(byName).sort()).toEqual([
				'Get_chat_transcript',
				'List_operators',
				'Recent_chats_of_a_visitor',
				'Set_operator_status',
			]);
			expect(argumentsOf('Get_chat_transcript')).toEqual(['chatId']);
			expect(argumentsOf('Recent_chats_of_a_visitor')).toEqual(['contact']);
			expect(argumentsOf('List_operators')).toEqual([]);
			expect(argumentsOf('Set_operator_status')).toEqual(['email', 'status']);
			// $fromAI gives no enum (generateZodSchema): the statuses are in the input's description.
			expect(byName.Set_operator_status.inputSchema.properties?.status).toMatchObject({
				type: 'string',
				description: 'The new status, one of: dinner, invisible, offline, online, pre-dinner',
			});
			// n8n gives $fromAI one type: the ID goes as text, and the description says so.
			expect(byName.Get_chat_transcript.inputSchema.properties?.chatId).toMatchObject({
				type: 'string',
				description: expect.stringMatching(/as text: "10032"/),
			});
			// Nor can $fromAI mark a text non-empty (generateZodSchema: z.string(), no minLength): the description says it.
			const contact = byName.Recent_chats_of_a_visitor.inputSchema.properties?.contact;
			expect(contact).toMatchObject({
				type: 'string',
				description: expect.stringMatching(/never empty$/),
			});
			expect(contact).not.toHaveProperty('minLength');
			expect(byName.Recent_chats_of_a_visitor.description).toMatch(/contact must not be empty/);
			// What each tool returns, in the example's words; Set operator status keeps the node's own.
			for (const name of ['Get chat transcript', 'List operators', 'Recent chats of a visitor'])
				expect(byName[name.replaceAll(' ', '_')].description).toBe(toolDescription(name));
			expect(byName.Get_chat_transcript.description).toMatch(/Returns one item: .*transcript/);
			expect(byName.List_operators.description).not.toMatch(/filter/i);
			expect(byName.Recent_chats_of_a_visitor.description).toMatch(/last 30 days.*chats_found: 0/);
			expect(byName.Set_operator_status.description).toBe(described('operator', 'setStatus'));
		});

		test('Get chat transcript: the chat by ID as a transcript, read and nothing sent', async () => {
			const chat = theirs[theirs.length - 1];
			const { result, text, sent } = await call('Get_chat_transcript', { chatId: String(chat.id) });
			expect(result.isError).toBeFalsy();
			expect(text).toContain(`Chat ${chat.id}, times in`);
			expect(sent).toContain('GET /api/v2/chat');
			expect(sent.filter((line) => !line.startsWith('GET'))).toEqual([]);
		});

		test('Get chat transcript: an ID no chat has is an error the model can act on', async () => {
			const { result, text } = await call('Get_chat_transcript', { chatId: '999999999' });
			expect(result.isError).toBe(true);
			expect(text).toContain('Chat "999999999" not found');
			expect(text).toContain('Check the chat ID: give the ID of an existing chat');
			expect(text).not.toMatch(/\[item \d+\]|Get many chats/);
		});

		test('Recent chats of a visitor: by email and by phone, the 5 newest, newest first, in few requests', async () => {
			const expected = theirs
				.slice(-5)
				.reverse()
				// Transcript gives every chat's id as text (docs/outputs.md), numbers and GUIDs alike.
				.map((chat) => String(chat.id));
			for (const contact of [REGULAR_VISITOR.emails[1], REGULAR_VISITOR.phones[0]]) {
				const { result, text, sent } = await call('Recent_chats_of_a_visitor', { contact });
				expect(result.isError).toBeFalsy();
				const reply = JSON.parse(text) as Array<{
					id: unknown;
					transcript: string;
					searched_back_to: string;
				}>;
				expect(reply.map((chat) => chat.id)).toEqual(expected);
				expect(reply.map((chat) => chat.transcript.split(',')[0])).toEqual(
					expected.map((id) => `Chat ${String(id)}`),
				);
				const pages = sent.filter((line) => line === 'GET /api/v2/chats').length;
				expect(pages).toBeLessThanOrEqual(bound(reply[0].searched_back_to));
				expect(sent.filter((line) => !line.startsWith('GET'))).toEqual([]);
			}
		});

		test('Recent chats of a visitor: an unknown email says none in the last 30 days, and nothing is sent', async () => {
			const { result, text, sent } = await call('Recent_chats_of_a_visitor', {
				contact: UNKNOWN_EMAIL,
			});
			expect(result.isError).toBeFalsy();
			const [reply, ...more] = JSON.parse(text) as Array<Record<string, unknown>>;
			expect(more).toEqual([]);
			expect(reply).toEqual({ chats_found: 0, searched_back_to: expect.stringMatching(/Z$/) });
			const lookedBack = Date.now() - Date.parse(String(reply.searched_back_to));
			expect(Math.abs(lookedBack - 30 * DAY_MS)).toBeLessThan(10 * 60_000);
			expect(sent.filter((line) => !line.startsWith('GET'))).toEqual([]);
		});

		test('Recent chats of a visitor: an empty contact is refused with what to give instead; no chat is read', async () => {
			for (const contact of ['', '   ']) {
				const { result, text, sent } = await call('Recent_chats_of_a_visitor', { contact });
				expect(result.isError).toBe(true);
				expect(text).toContain("'Visitor' is empty: the tool's input `contact` was given no value");
				expect(text).toContain(
					'Call the tool again with `contact` not empty: The email address or phone number of the visitor, as they gave it; never empty.',
				);
				expect(text).not.toMatch(/\[item \d+\]/);
				// No chat of anyone: no transcript, no visitor's contact, and the sandbox was asked nothing.
				expect(text).not.toMatch(/Chat \d+, times in|chats_found|@mail\.example/);
				expect(sent).toEqual([]);
			}
		});

		test('List operators and Set operator status; an unknown email changes nobody', async () => {
			const operators = env.sandbox.control.getOperators();
			const listed = await call('List_operators', {});
			for (const operator of operators) expect(listed.text).toContain(operator.email);
			expect(listed.sent).toEqual(['GET /api/v2/operators']);

			// Someone who is not offline (a command cannot bring an offline operator back), to the other break.
			const operator = operators.find((one) => one.status !== 'offline');
			if (!operator) throw new Error('every operator of the sandbox is offline');
			const status = operator.status === 'dinner' ? 'pre-dinner' : 'dinner';
			const set = await call('Set_operator_status', { email: operator.email, status });
			expect(set.result.isError).toBeFalsy();
			expect(set.text).toContain('"result":"ok"');
			expect(set.sent).toEqual(['POST /api/v2/rt/agent_status']);
			const after = env.sandbox.control.getOperators();
			expect(after.find((one) => one.email === operator.email)?.status).toBe(status);

			const unknown = await call('Set_operator_status', { email: UNKNOWN_EMAIL, status });
			expect(unknown.text).toContain(SVC_ERROR_CODES['invalid-agent-email'].message);
			expect(env.sandbox.control.getOperators()).toEqual(after);
			// Issue 65: what to send, in words that fit the tools the model has; a made-up status is named as such.
			expect(unknown.text).toContain('as a list of the operators shows it');
			expect(unknown.text).not.toMatch(/Get many operators/);
			const away = await call('Set_operator_status', { email: operator.email, status: 'away' });
			expect(away.result.isError).toBe(true);
			expect(away.text).toContain(
				'\'Status\' is "away", which Svc does not know: the statuses are dinner, invisible, offline, online, pre-dinner',
			);
			expect(away.text).toContain('Call the tool again with `status` set to one of them.');
			expect(away.sent).toEqual([]);
		});

		test('a wrong token is refused before any tool runs: nothing reaches the sandbox', async () => {
			const before = env.sandbox.control.requestLog().length;
			await expect(connectMcp(url, `${token}-wrong`)).rejects.toThrow(
				/Authorization data is wrong/,
			);
			expect(env.sandbox.control.requestLog().slice(before)).toEqual([]);
		});

		test('no secret in the workflow file, any tool result or what n8n said', () => {
			const { password } = env.sandbox.admin;
			expect(resultTexts.length).toBeGreaterThanOrEqual(8);
			for (const text of [JSON.stringify(example), ...resultTexts, env.n8n.serverOutput]) {
				expect(text).not.toContain(token);
				expect(text).not.toContain(password);
			}
		});
	});
}
