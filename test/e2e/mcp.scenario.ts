// Example 12 as an AI assistant uses it: the official MCP client on its published MCP Server Trigger (n8n 2.x and 1.x).
import { randomBytes } from 'node:crypto';

import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { INodePropertyOptions } from 'n8n-workflow';

import { selectors } from '../../nodes/SvcChat/actions/resources';
import { SVC_ERROR_CODES } from '../../nodes/SvcChat/transport/errors';
import type { Chat } from '../../nodes/SvcChat/types';
import { EXAMPLE_IDS, findExample, readExamples } from '../../scripts/examples';
import { connectMcp, publishMcpExample } from '../../scripts/mcp';
import { sandboxAllChats, SETUP_TIMEOUT_MS, type E2eEnvironment } from './environment';

const UNKNOWN_EMAIL = 'nobody-here@svc.test';
const DAY_MS = 86_400_000;

/** A model-facing description the node gives an operation: its option's (n8n's own would be "Get chat in Svc Chat"). */
const described = (resource: string, value: string) =>
	(selectors[resource].options as INodePropertyOptions[]).find((one) => one.value === value)
		?.description;

/**
 * Connects over Streamable HTTP with the bearer token of a credential made here (the file holds none), lists the
 * tools, calls each, and checks what reached the sandbox. Leaves the workflow published.
 */
export function testMcpServer(env: E2eEnvironment): void {
	describe('examples/12: the MCP server, through the official MCP client', () => {
		const token = `mcp-${randomBytes(24).toString('hex')}`;
		const example = findExample(readExamples(), EXAMPLE_IDS.mcpServer);
		let url: string;
		let client: Client;
		let chats: Chat[];
		const resultTexts: string[] = [];
		/** The chat IDs of a visitor, oldest change first, by the visitor field `field` (email, phone). */
		const chatsOf = (field: string, value: string) =>
			chats.filter((chat) => chat.visitor?.fields?.[field] === value).map((chat) => chat.id);
		/** Calls a tool: its result, the result's text, and what reached the sandbox meanwhile ("METHOD path"). */
		async function call(name: string, args: Record<string, unknown>) {
			const before = env.sandbox.control.requestLog().length;
			const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
			const text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
			const requests = env.sandbox.control.requestLog().slice(before);
			resultTexts.push(text);
			return { result, text, sent: requests.map(({ method, path }) => `${method} ${path}`) };
		}

		beforeAll(async () => {
			chats = (await sandboxAllChats(env.sandbox)).chats;
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
			expect(byName.Get_chat_transcript.inputSchema.properties?.chatId).toMatchObject({
				type: 'string',
				description: expect.stringMatching(/a number such as 1042/),
			});
			// The Svc Chat tools leave Tool Description as it comes: the node's own, per operation.
			expect(byName.Get_chat_transcript.description).toBe(described('chat', 'get'));
			expect(byName.Get_chat_transcript.description).toMatch(/Returns .*transcript/);
			expect(byName.List_operators.description).toBe(described('operator', 'getMany'));
			expect(byName.Set_operator_status.description).toBe(described('operator', 'setStatus'));
			expect(byName.Recent_chats_of_a_visitor.description).toMatch(
				/Returns chat_ids and transcripts/,
			);
		});

		test('Get chat transcript: the chat by ID as a transcript, read and nothing sent', async () => {
			const chat = chats[chats.length - 1];
			const { result, text, sent } = await call('Get_chat_transcript', { chatId: String(chat.id) });
			expect(result.isError).toBeFalsy();
			expect(text).toContain(`Chat ${chat.id}, times in`);
			expect(sent).toContain('GET /api/v2/chat');
			expect(sent.filter((line) => !line.startsWith('GET'))).toEqual([]);
		});

		test('Recent chats of a visitor: by email and by phone, that visitor’s latest (at most 5), bounded reads only', async () => {
			// A visitor all of whose chats lie inside the tool's 30 days, with email and phone.
			const recent = (chat: Chat) => Date.parse(chat.created_at) > Date.now() - 29 * DAY_MS;
			const visitor = chats.find(({ visitor }) => {
				const { email, phone } = visitor?.fields ?? {};
				const theirs = chats.filter((chat) => chat.visitor?.fields?.email === email);
				return email && phone && theirs.every(recent);
			})?.visitor?.fields;
			if (!visitor) throw new Error('the sandbox has no recent visitor with an email and a phone');
			for (const field of ['email', 'phone']) {
				const contact = String(visitor[field]);
				const { result, text, sent } = await call('Recent_chats_of_a_visitor', { contact });
				expect(result.isError).toBeFalsy();
				// n8n gives the sub-workflow's items: one, from the Aggregate node.
				const [reply] = JSON.parse(text) as Array<{ chat_ids: unknown[]; transcripts: string[] }>;
				expect(reply.chat_ids).toEqual(chatsOf(field, contact).slice(-5));
				expect(reply.transcripts.map((transcript) => transcript.split(',')[0])).toEqual(
					reply.chat_ids.map((id) => `Chat ${String(id)}`),
				);
				// At most 500 chats read: 5 pages of /chats.
				const pages = sent.filter((line) => line === 'GET /api/v2/chats').length;
				expect(pages).toBeGreaterThan(0);
				expect(pages).toBeLessThanOrEqual(5);
				expect(sent.filter((line) => !line.startsWith('GET'))).toEqual([]);
			}
		});

		test('Recent chats of a visitor: an unknown email gives empty lists, and nothing is sent', async () => {
			const { result, text, sent } = await call('Recent_chats_of_a_visitor', {
				contact: UNKNOWN_EMAIL,
			});
			expect(result.isError).toBeFalsy();
			expect(JSON.parse(text)).toEqual([{ chat_ids: [], transcripts: [] }]);
			expect(sent.filter((line) => !line.startsWith('GET'))).toEqual([]);
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
			expect(resultTexts.length).toBeGreaterThanOrEqual(7);
			for (const text of [JSON.stringify(example), ...resultTexts, env.n8n.serverOutput]) {
				expect(text).not.toContain(token);
				expect(text).not.toContain(password);
			}
		});
	});
}
