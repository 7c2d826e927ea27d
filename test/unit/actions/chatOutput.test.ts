// Chat outputs for people and AI agents: Selected Fields (small items), and what Limit counts with One Item per Message.
import { NodeOperationError } from 'n8n-workflow';

import type { Chat } from '../../../nodes/SvcChat/types';
import { SvcChat } from '../../../nodes/SvcChat/SvcChat.node';
import { SvcChatTrigger } from '../../../nodes/SvcChat/SvcChatTrigger.node';
import { replyOperators, runNode, runNodeError, svc } from './runNode';

const get = { resource: 'chat', operation: 'get' };
const getMany = { resource: 'chat', operation: 'getMany', since: 'cursor', sinceCursor: '0' };

const chatWithMessages = (id: number, messages: number): Chat => ({
	id,
	created_at: '2024-05-01T10:00:00Z',
	category: 'Sales',
	operator_id: 3,
	messages: Array.from({ length: messages }, (_, index) => ({
		id: `${id}-m${index}`,
		created_at: '2024-05-01T10:00:01Z',
		kind: 'visitor',
		message: `text ${index}`,
	})),
	visitor: { id: `v-${id}`, fields: { name: 'Jane' } },
	visit_session: { ip: '203.0.113.9', landing_page: { url: 'https://shop.example/landing' } },
	start_page: { url: 'https://shop.example/pricing' },
	state_history: null,
	rates: [],
});

describe('Selected Fields', () => {
	test('gives the chat ID and only the chosen fields, as the API sends them', async () => {
		const chat = chatWithMessages(7, 2);
		svc().get('/api/v2/chat').query({ id: '7' }).reply(200, { chat });
		const output = await runNode({
			...get,
			chatId: '7',
			output: 'selectedFields',
			fields: ['category', 'visitor'],
		});
		expect(output).toEqual([
			{ json: { id: 7, category: 'Sales', visitor: chat.visitor }, pairedItem: { item: 0 } },
		]);
	});

	test('by default: created at, operator and visitor, no messages', async () => {
		svc()
			.get('/api/v2/chat')
			.query({ id: '7' })
			.reply(200, { chat: chatWithMessages(7, 2) });
		const [item] = await runNode({ ...get, chatId: '7', output: 'selectedFields' });
		expect(Object.keys(item.json).sort()).toEqual(['created_at', 'id', 'operator_id', 'visitor']);
	});

	test('a field the chat does not carry is left out, not made up (a list entry is read in full first)', async () => {
		svc()
			.get('/api/v2/chats')
			.query({ since: '0' })
			.reply(200, {
				chats: [{ id: 1, created_at: '2024-05-01T00:00:00Z' }],
				more_chats_available: false,
				last_ts: 5,
			});
		const withoutCategory: Chat = { ...chatWithMessages(1, 2) };
		delete withoutCategory.category;
		svc().get('/api/v2/chat').query({ id: '1' }).reply(200, { chat: withoutCategory });
		const output = await runNode({
			...getMany,
			output: 'selectedFields',
			fields: ['created_at', 'category', 'messages'],
		});
		expect(output.map((item) => item.json)).toEqual([
			{ id: 1, created_at: withoutCategory.created_at, messages: withoutCategory.messages },
		]);
	});

	test('an unknown field from an expression is refused, naming the field', async () => {
		const error = await runNodeError({
			...get,
			chatId: '7',
			output: 'selectedFields',
			fields: ['visitor', 'password'],
		});
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.message).toMatch(/^'Fields' must be a list of chat fields/);
	});

	test('is offered by both chat operations, for the AI tool, and not by the trigger', () => {
		const { properties } = new SvcChat().description;
		const outputs = properties.filter((property) => property.name === 'output');
		expect(outputs).toHaveLength(2);
		for (const output of outputs)
			expect((output.options as Array<{ value: string }>).map((option) => option.value)).toContain(
				'selectedFields',
			);
	});
});

describe('Limit with One Item per Message', () => {
	test('counts chats, not items: Limit 2 gives every message of 2 chats', async () => {
		const chats = [chatWithMessages(1, 3), chatWithMessages(2, 4), chatWithMessages(3, 5)];
		svc()
			.get('/api/v2/chats')
			.query({ since: '0' })
			.reply(200, { chats, more_chats_available: false, last_ts: 9 });
		const output = await runNode({ ...getMany, limit: 2, output: 'messages' });
		expect(output).toHaveLength(7);
		expect([...new Set(output.map((item) => item.json.chat_id))]).toEqual([1, 2]);
	});

	test('the field says so', () => {
		const limits = new SvcChat().description.properties.filter(
			(property) =>
				property.name === 'limit' && property.displayOptions?.show?.resource?.includes('chat'),
		);
		expect(limits).toHaveLength(1);
		expect(limits[0].hint).toMatch(/counts chats, not items/i);
	});
});

// Issue 42: a chat of 11 messages had final_state null; the spec allows state_history to be null.
describe('Simplified output of a chat without a state history', () => {
	test('gives final_state null, and the option says when that happens, in both nodes', async () => {
		replyOperators();
		svc()
			.get('/api/v2/chat')
			.query({ id: '1' })
			.reply(200, { chat: chatWithMessages(1, 11) });
		const [item] = await runNode({ ...get, chatId: '1', output: 'simplified' });
		expect(item.json).toMatchObject({ message_count: 11, final_state: null });
		const nodes = [new SvcChat(), new SvcChatTrigger()];
		const simplified = nodes.flatMap(({ description }) =>
			description.properties
				.filter((property) => property.name === 'output')
				.flatMap((property) => property.options as Array<{ value: string; description: string }>)
				.filter((option) => option.value === 'simplified'),
		);
		expect(simplified).toHaveLength(3);
		for (const option of simplified)
			expect(option.description).toMatch(/final state \(null when the chat has no state history\)/);
	});
});
