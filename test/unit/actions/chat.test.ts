// Chat resource: Get by number or GUID id, Get Many by date or cursor with paging and limits, and the output modes.
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { Chat } from '../../../nodes/SvcChat/types';
import { SvcChat } from '../../../nodes/SvcChat/SvcChat.node';
import { createExecuteContext, testCredentials } from '../../harness/contexts';
import { HOST } from '../../harness/fixtures';
import { items, replyOperators, runNode, runNodeError, svc } from './runNode';

const afterEachRestore: Array<() => void> = [];
afterEach(() => afterEachRestore.splice(0).forEach((restore) => restore()));

const get = { resource: 'chat', operation: 'get' };
const getMany = { resource: 'chat', operation: 'getMany' };

const FULL_CHAT: Chat = {
	id: 'c0a80101-7d1e-4c4e-9a61-2f1c9e0d1a2b',
	created_at: '2024-05-01T10:00:00Z',
	category: 'Sales',
	subcategory: null,
	operator_id: 3,
	rates: [
		{ rate: 5, operator_id: 3, created_at: '2024-05-01T10:10:00Z' },
		{ rate: 4, operator_id: 3, created_at: '2024-05-01T10:11:00Z' },
	],
	messages: [
		{ id: 'm1', created_at: '2024-05-01T10:00:01Z', kind: 'visitor', message: 'Hello' },
		{
			id: 'm2',
			created_at: '2024-05-01T10:00:05Z',
			kind: 'operator',
			message: 'Hi!',
			operator_id: 3,
		},
		{
			id: 'm3',
			created_at: '2024-05-01T10:01:00Z',
			kind: 'contacts',
			message: { name: 'Jane', phone: '+1555', email: 'j@x.io' },
		},
	],
	state_history: [
		{ state: 'queue', operator_id: null, at: '2024-05-01T10:00:00Z', department_id: 1 },
		{ state: 'closed', operator_id: 3, at: '2024-05-01T10:20:00Z', department_id: 1 },
	],
	visitor: { id: 'v-77', fields: { name: 'Jane', email: 'j@x.io', phone: '+1555' } },
	visit_session: { ip: '203.0.113.9', landing_page: { url: 'https://shop.example/landing' } },
	start_page: { url: 'https://shop.example/pricing' },
};

/** FULL_CHAT's operator, as GET /operators lists them. */
const OPERATORS = [
	{ id: 3, email: 'dmitri@svc.test', full_name: 'Dmitri Sokolov', status: 'online', roles: [] },
];

const SIMPLIFIED = {
	id: FULL_CHAT.id,
	created_at: '2024-05-01T10:00:00Z',
	operator_id: 3,
	operator_name: 'Dmitri Sokolov',
	visitor_id: 'v-77',
	visitor_name: 'Jane',
	visitor_email: 'j@x.io',
	visitor_phone: '+1555',
	start_page: 'https://shop.example/pricing',
	category: 'Sales',
	subcategory: null,
	final_state: 'closed',
	department_id: 1,
	message_count: 3,
	average_rate: 4.5,
	// Visitor at 10:00:01, operator at 10:00:05; in queue from 10:00:00 until closed at 10:20:00.
	first_response_seconds: 4,
	queue_seconds: 1200,
	duration_seconds: 1200,
	last_activity_at: '2024-05-01T10:20:00Z',
};

// Each carries a visitor (spec 2.4: always present in a full chat), so none is a minimal list entry.
const chatsNumbered = (from: number, count: number): Chat[] =>
	Array.from({ length: count }, (_, i) => ({
		id: from + i,
		created_at: '2024-05-01T00:00:00Z',
		visitor: { id: `v${from + i}` },
	}));

describe('Chat > Get', () => {
	test('gets a GUID chat raw', async () => {
		svc().get('/api/v2/chat').query({ id: FULL_CHAT.id }).reply(200, { chat: FULL_CHAT });
		const output = await runNode({ ...get, chatId: FULL_CHAT.id, output: 'raw' });
		expect(output).toEqual([{ json: FULL_CHAT, pairedItem: { item: 0 } }]);
	});

	test('simplified (the default) is one flat record', async () => {
		replyOperators(OPERATORS);
		svc().get('/api/v2/chat').query({ id: '1042' }).reply(200, { chat: FULL_CHAT });
		const output = await runNode({ ...get, chatId: ' 1042 ' });
		expect(output).toEqual([{ json: SIMPLIFIED, pairedItem: { item: 0 } }]);
	});

	test('a numeric id from an expression is accepted', async () => {
		replyOperators(OPERATORS);
		svc().get('/api/v2/chat').query({ id: '1042' }).reply(200, { chat: FULL_CHAT });
		await runNode({ ...get, chatId: 1042 });
	});

	test('one item per message, each paired with the input item', async () => {
		svc().get('/api/v2/chat').query({ id: '1042' }).reply(200, { chat: FULL_CHAT });
		const output = await runNode({ ...get, chatId: '1042', output: 'messages' });
		expect(
			output.map((item) => [
				item.json.message_id,
				item.json.kind,
				item.json.text,
				item.json.chat_id,
			]),
		).toEqual([
			['m1', 'visitor', 'Hello', FULL_CHAT.id],
			['m2', 'operator', 'Hi!', FULL_CHAT.id],
			['m3', 'contacts', 'Jane, +1555, j@x.io', FULL_CHAT.id],
		]);
		expect(
			output.every((item) => item.pairedItem && (item.pairedItem as { item: number }).item === 0),
		).toBe(true);
	});

	test('a message without text (a file) has text null, its file name and its data', async () => {
		const data = { filename: 'invoice.pdf', url: 'https://files.example/invoice.pdf' };
		const file = { id: 'm9', created_at: '2024-05-01T10:02:00Z', kind: 'visitor', data };
		const chat = { ...FULL_CHAT, messages: [file] };
		svc().get('/api/v2/chat').query({ id: '1042' }).reply(200, { chat });
		const [row] = await runNode({ ...get, chatId: '1042', output: 'messages' });
		expect(row.json).toMatchObject({
			message_id: 'm9',
			text: null,
			file_name: 'invoice.pdf',
			data,
		});
	});

	test.each([
		['an error reply', 200, { error: 'chat-not-found' }],
		['a 404', 404, 'Not Found'],
		['an empty object', 200, {}],
	])('an unknown id (%s) is a clear "chat not found"', async (_case, status, body) => {
		svc().get('/api/v2/chat').query({ id: '999' }).reply(status, body);
		const error = await runNodeError({ ...get, chatId: '999' });
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toBe('Chat "999" not found [item 0]');
	});

	test('as a tool (Svc Chat Tool), the error a model reads has no item number and says what to do', async () => {
		svc().get('/api/v2/chat').query({ id: '999' }).reply(404, 'Not Found');
		const node = new SvcChat();
		const context = createExecuteContext({
			description: { ...node.description, name: 'svcChatTool' },
			parameters: { ...get, chatId: '999' },
			credentials: testCredentials(HOST),
		});
		const error = (await node.execute.call(context).catch((thrown: unknown) => thrown)) as Error & {
			description?: string;
		};
		expect(error.message).toBe('Chat "999" not found');
		expect(error.description).toBe(
			'Check the chat ID: give the ID of an existing chat, as a list of chats shows it.',
		);
	});

	const MAY_NOT_EXIST =
		'Chat "999" could not be read, and the server gave no reason: the chat may not exist';
	const mayNotExistFix = (code: string) =>
		`Check the chat ID: give the ID of an existing chat, as a list of chats shows it. If the chat exists, try again later, and if it persists, contact Svc support with the time of the request. (Svc code: ${code})`;

	test.each([['unknown'], ['svc-internal-trouble'], ['constructor']])(
		'GET /chat answering %s (no reason given) names the chat, says it may not exist and keeps the code',
		async (code) => {
			svc().get('/api/v2/chat').query({ id: '999' }).reply(200, { error: code });
			const error = await runNodeError({ ...get, chatId: '999' });
			expect(error).toBeInstanceOf(NodeApiError);
			expect(error.message).toBe(`${MAY_NOT_EXIST} [item 0]`);
			expect(error.description).toBe(mayNotExistFix(code));
			expect((error as NodeApiError).context.svcError).toBe(code);
		},
	);

	test("GET /chat answering a documented code (argument-missing) keeps that code's own message", async () => {
		svc().get('/api/v2/chat').query({ id: '999' }).reply(200, { error: 'argument-missing' });
		const error = await runNodeError({ ...get, chatId: '999' });
		expect(error.message).toBe('A required query argument is missing [item 0]');
		expect(error.description).toContain('Svc code: argument-missing');
	});

	test.each([
		['chat-not-found', 'Chat "999" not found'],
		['unknown', MAY_NOT_EXIST],
	])(
		'continue-on-fail: an id answered with %s becomes an error item naming it, the next id is read',
		async (code, message) => {
			svc().get('/api/v2/chat').query({ id: '999' }).reply(200, { error: code });
			svc().get('/api/v2/chat').query({ id: '1' }).reply(200, { chat: FULL_CHAT });
			const ids = ['999', '1'];
			const output = await runNode((i) => ({ ...get, chatId: ids[i], output: 'raw' }), {
				items: items(2),
				continueOnFail: true,
			});
			expect(output[0]).toEqual({
				json: { error: message, description: expect.stringContaining('Check the chat ID') },
				pairedItem: { item: 0 },
			});
			expect(output[1]).toEqual({ json: FULL_CHAT, pairedItem: { item: 1 } });
		},
	);

	test('an empty id is a parameter error', async () => {
		const error = await runNodeError({ ...get, chatId: '' });
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.message).toBe("'Chat' is empty [item 0]");
	});
});

describe('Chat > Get Many', () => {
	test('a date becomes a microsecond cursor; a time without a zone is UTC whatever the server zone', async () => {
		const serverZone = process.env.TZ;
		process.env.TZ = 'America/New_York';
		afterEachRestore.push(() =>
			serverZone === undefined ? delete process.env.TZ : (process.env.TZ = serverZone),
		);
		svc()
			.get('/api/v2/chats')
			.query({ since: '1714521600000000' })
			.times(2)
			.reply(200, { chats: [], more_chats_available: false, last_ts: 1714521600000000 });
		expect(await runNode({ ...getMany, sinceDate: '2024-05-01T00:00:00' })).toEqual([]);
		await runNode({ ...getMany, sinceDate: '2024-05-01T02:00:00+02:00' });
	});

	test('Return All follows last_ts over every page', async () => {
		svc()
			.get('/api/v2/chats')
			.query({ since: '0' })
			.reply(200, { chats: chatsNumbered(1, 100), more_chats_available: true, last_ts: 500 });
		svc()
			.get('/api/v2/chats')
			.query({ since: '500' })
			.reply(200, { chats: chatsNumbered(101, 100), more_chats_available: true, last_ts: '900' });
		svc()
			.get('/api/v2/chats')
			.query({ since: '900' })
			.reply(200, { chats: chatsNumbered(201, 5), more_chats_available: false, last_ts: 950 });
		const output = await runNode({
			...getMany,
			since: 'cursor',
			sinceCursor: '0',
			returnAll: true,
			output: 'raw',
			options: { includeCursor: true },
		});
		expect(output).toHaveLength(205);
		expect(output.map((item) => item.json.id)).toEqual(
			Array.from({ length: 205 }, (_, i) => i + 1),
		);
		expect(new Set(output.map((item) => item.json.last_ts))).toEqual(new Set(['950']));
	});

	test('with Include Cursor, a limit inside a page takes that page whole, so the cursor moves past every chat returned', async () => {
		svc()
			.get('/api/v2/chats')
			.query({ since: '123' })
			.reply(200, { chats: chatsNumbered(1, 100), more_chats_available: true, last_ts: 500 });
		const output = await runNode({
			...getMany,
			since: 'cursor',
			sinceCursor: '123',
			limit: 3,
			output: 'raw',
			options: { includeCursor: true },
		});
		expect(output.map((item) => item.json)).toEqual(
			chatsNumbered(1, 100).map((chat) => ({ ...chat, last_ts: '500' })),
		);
	});

	test('without Include Cursor, a limit inside a page gives exactly Limit chats', async () => {
		svc()
			.get('/api/v2/chats')
			.query({ since: '123' })
			.reply(200, { chats: chatsNumbered(1, 100), more_chats_available: true, last_ts: 500 });
		const output = await runNode({
			...getMany,
			since: 'cursor',
			sinceCursor: '123',
			limit: 3,
			output: 'raw',
		});
		expect(output.map((item) => item.json)).toEqual(chatsNumbered(1, 3));
	});

	test.each(['raw', 'simplified', 'messages'])(
		'a minimal list entry is read in full with GET /chat (output %s)',
		async (output) => {
			const listed = { id: FULL_CHAT.id, created_at: FULL_CHAT.created_at };
			svc()
				.get('/api/v2/chats')
				.query({ since: '0' })
				.reply(200, { chats: [listed], more_chats_available: false, last_ts: 9 });
			svc().get('/api/v2/chat').query({ id: FULL_CHAT.id }).reply(200, { chat: FULL_CHAT });
			if (output === 'simplified') replyOperators(OPERATORS);
			const result = await runNode({
				...getMany,
				since: 'cursor',
				sinceCursor: '0',
				returnAll: true,
				output,
			});
			const expected = { raw: [FULL_CHAT], simplified: [SIMPLIFIED], messages: ['m1', 'm2', 'm3'] }[
				output
			];
			expect(
				output === 'messages'
					? result.map((item) => item.json.message_id)
					: result.map((item) => item.json),
			).toEqual(expected);
		},
	);

	test('a minimal entry that cannot be read is an error naming the chat, or an error item with Continue On Fail', async () => {
		const listed = { id: 77, created_at: '2024-05-01T00:00:00Z' };
		for (let run = 0; run < 2; run++) {
			svc()
				.get('/api/v2/chats')
				.query({ since: '0' })
				.reply(200, {
					chats: [...chatsNumbered(1, 2), listed],
					more_chats_available: false,
					last_ts: 9,
				});
			svc().get('/api/v2/chat').query({ id: '77' }).reply(200, { error: 'unknown' });
		}
		const error = await runNodeError({
			...getMany,
			since: 'cursor',
			sinceCursor: '0',
			returnAll: true,
		});
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toContain('Chat 77 was listed with only its id and created_at');
		expect(error.message).toContain('gave no reason');
		const output = await runNode(
			{ ...getMany, since: 'cursor', sinceCursor: '0', returnAll: true },
			{ continueOnFail: true },
		);
		expect(output).toEqual([
			{
				json: {
					error: expect.stringContaining('Chat 77 was listed'),
					description: expect.any(String),
				},
				pairedItem: { item: 0 },
			},
		]);
	});

	test('the default limit is 50 chats', async () => {
		svc()
			.get('/api/v2/chats')
			.query({ since: '0' })
			.reply(200, { chats: chatsNumbered(1, 100), more_chats_available: true, last_ts: 500 });
		replyOperators();
		const output = await runNode({ ...getMany, since: 'cursor', sinceCursor: '0' });
		expect(output).toHaveLength(50);
		expect(output[0].json).toEqual(
			expect.objectContaining({ id: '1', final_state: null, message_count: 0 }),
		);
		expect(output[0].json).not.toHaveProperty('last_ts');
	});

	test('a chat delivered twice is emitted once, in its latest version', async () => {
		const older = { ...FULL_CHAT, id: 5, messages: FULL_CHAT.messages!.slice(0, 1) };
		const newer = { ...FULL_CHAT, id: 5 };
		svc()
			.get('/api/v2/chats')
			.query({ since: '0' })
			.reply(200, {
				chats: [older, { id: 6, created_at: 'x', visitor: { id: 'v6' } }],
				more_chats_available: true,
				last_ts: 10,
			});
		svc()
			.get('/api/v2/chats')
			.query({ since: '10' })
			.reply(200, { chats: [newer], more_chats_available: false, last_ts: 20 });
		replyOperators();
		const output = await runNode({
			...getMany,
			since: 'cursor',
			sinceCursor: '0',
			returnAll: true,
		});
		expect(output.map((item) => [item.json.id, item.json.message_count])).toEqual([
			['6', 0],
			['5', 3],
		]);
	});

	test('one item per message across chats', async () => {
		svc()
			.get('/api/v2/chats')
			.query({ since: '0' })
			.reply(200, {
				chats: [FULL_CHAT, { ...FULL_CHAT, id: 2 }],
				more_chats_available: false,
				last_ts: 1,
			});
		const output = await runNode({
			...getMany,
			since: 'cursor',
			sinceCursor: '0',
			returnAll: true,
			output: 'messages',
		});
		expect(output.map((item) => `${item.json.chat_id}/${item.json.message_id}`)).toEqual([
			`${FULL_CHAT.id}/m1`,
			`${FULL_CHAT.id}/m2`,
			`${FULL_CHAT.id}/m3`,
			'2/m1',
			'2/m2',
			'2/m3',
		]);
	});

	test.each([
		[
			'a cursor that is not digits',
			{ since: 'cursor', sinceCursor: '17e14' },
			"'Since Cursor' must be digits only",
		],
		['an empty date', { sinceDate: '' }, "'Since Date' is empty"],
		['a date that is not a date', { sinceDate: 'yesterday' }, "'Since Date' is not a date"],
	])('%s is a parameter error', async (_case, parameters, message) => {
		const error = await runNodeError({ ...getMany, ...parameters });
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.message).toContain(message);
		expect(error.description).toBeTruthy();
	});

	test('a malformed reply is a NodeApiError, not a crash', async () => {
		svc().get('/api/v2/chats').query({ since: '0' }).reply(200, { chats: 'nope' });
		const error = await runNodeError({ ...getMany, since: 'cursor', sinceCursor: '0' });
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toContain('unexpected shape');
	});
});

// Issue 65: a table of chats keyed by id and showing the operator's name takes every chat.
describe('Simplified and Transcript: the id as text, the operator by name', () => {
	test.each(['simplified', 'transcript'])(
		'%s: a numeric and a GUID id are both text; operator_name from one GET /operators per run, null for an operator gone',
		async (output) => {
			const gone = { ...FULL_CHAT, id: 10029, operator_id: 99 };
			svc()
				.get('/api/v2/chats')
				.query({ since: '0' })
				.times(2)
				.reply(200, { chats: [FULL_CHAT, gone], more_chats_available: false, last_ts: 9 });
			replyOperators(OPERATORS); // once for both items: nock fails a second request
			const records = await runNode(
				{ ...getMany, since: 'cursor', sinceCursor: '0', returnAll: true, output },
				{ items: items(2) },
			);
			expect(records.map(({ json }) => [json.id, json.operator_id, json.operator_name])).toEqual([
				[FULL_CHAT.id, 3, 'Dmitri Sokolov'],
				['10029', 99, null],
				[FULL_CHAT.id, 3, 'Dmitri Sokolov'],
				['10029', 99, null],
			]);
		},
	);

	test('Get chat names the operator too, and gives a numeric id as text', async () => {
		replyOperators(OPERATORS);
		svc()
			.get('/api/v2/chat')
			.query({ id: '1042' })
			.reply(200, { chat: { ...FULL_CHAT, id: 1042 } });
		const [{ json }] = await runNode({ ...get, chatId: '1042' });
		expect(json).toMatchObject({ id: '1042', operator_id: 3, operator_name: 'Dmitri Sokolov' });
	});

	test('no chats, no GET /operators', async () => {
		svc()
			.get('/api/v2/chats')
			.query({ since: '0' })
			.reply(200, { chats: [], more_chats_available: false, last_ts: 9 });
		const none = await runNode({ ...getMany, since: 'cursor', sinceCursor: '0', returnAll: true });
		expect(none).toEqual([]);
	});
});
