// Output Transcript in Chat > Get and Get Many: every message kind, bad message shapes, time zones, operator names
// read once per execution from GET /operators (and only for Transcript), 5,000 messages, a failed GET /operators.
import { NodeApiError } from 'n8n-workflow';

import type { Chat, ChatMessage } from '../../../nodes/SvcChat/types';
import { instantPauses } from '../../harness/fixtures';
import { dropUnrequestedMocks } from '../../harness/nockSetup';
import { items, runNode, runNodeError, svc } from './runNode';

const get = { resource: 'chat', operation: 'get', chatId: '1042', output: 'transcript' };
const getMany = {
	resource: 'chat',
	operation: 'getMany',
	since: 'cursor',
	sinceCursor: '0',
	output: 'transcript',
};
const BERLIN = { timezone: 'Europe/Berlin' };

const OPERATORS = [
	{ id: 3, email: 'anna@x.io', full_name: 'Anna Petrova', status: 'online', roles: ['operator'] },
	{ id: 4, email: 'boris@x.io', full_name: ' ', status: 'online', roles: ['operator'] },
];

/** Answers GET /operators `times` times and counts the requests; every request is one more than expected fails. */
function operatorsReply(reply: unknown = OPERATORS, status = 200) {
	const seen = { requests: 0 };
	svc()
		.get('/api/v2/operators')
		.reply(() => {
			seen.requests++;
			return [status, reply];
		});
	return seen;
}

/** GET /operators answering every request (persisting), for tests that assert how many came; it may get none. */
function everyOperatorsRequest() {
	const seen = { requests: 0 };
	svc()
		.persist()
		.get('/api/v2/operators')
		.optionally()
		.reply(() => {
			seen.requests++;
			return [200, OPERATORS];
		});
	return seen;
}

const at = (second: number) => `2024-05-01T10:00:${String(second).padStart(2, '0')}Z`;

const chatWith = (messages: unknown, id: number | string = 1042): Chat => ({
	id,
	created_at: '2024-05-01T10:00:00Z',
	category: 'Orders',
	subcategory: null,
	operator_id: 3,
	rates: [{ rate: 4, operator_id: 3, created_at: at(59) }],
	messages: messages as ChatMessage[],
	state_history: [{ state: 'closed', operator_id: 3, at: at(59), department_id: 1 }],
	visitor: { id: 'v-1', fields: { name: 'Jane Roe', email: 'jane@example.com' } },
	visit_session: { ip: null, landing_page: { url: null } },
	start_page: { url: 'https://shop.example/' },
});

/** The kinds spec 2.5 lists as seen. */
const SPEC_KINDS = [
	'for_operator',
	'info',
	'events',
	'operator_busy',
	'file_operator',
	'file_visitor',
	'operator',
	'contacts_request',
	'contacts',
	'visitor',
	'keyboard',
	'keyboard_response',
];

/** One message of each kind of spec 2.5, as the sandbox generates them, and two kinds the spec does not list. */
const EVERY_KIND: ChatMessage[] = [
	{ kind: 'visitor', message: 'Hello, where is my order?' },
	{ kind: 'operator', message: 'Let me check.', operator_id: 3 },
	{
		kind: 'file_visitor',
		message: 'invoice.pdf',
		data: { guid: 'g-1', content_type: 'application/pdf', filename: 'invoice.pdf' },
	},
	{
		kind: 'file_operator',
		message: 'label.png',
		operator_id: 3,
		data: { guid: 'g-2', content_type: 'image/png', filename: 'label.png' },
	},
	{ kind: 'contacts_request', message: 'Please leave your contacts.', operator_id: 3 },
	{
		kind: 'contacts',
		message: { name: 'Jane Roe', phone: '+15550000001', email: 'jane@example.com' },
	},
	{
		kind: 'keyboard',
		message: 'How would you rate the answer?',
		operator_id: 3,
		data: { id: 'kb-1', buttonId: 'btn-1', messageId: 'm7' },
	},
	{
		kind: 'keyboard_response',
		message: 'Great',
		data: { id: 'kb-1', buttonId: 'btn-1', messageId: 'm7' },
	},
	{ kind: 'for_operator', message: 'Came from the spring campaign.' },
	{ kind: 'info', message: 'The visitor has been waiting for 2 minutes.' },
	{ kind: 'events', message: 'Visitor opened https://shop.example/cart' },
	{ kind: 'operator_busy', message: 'All operators are busy.', operator_id: 3 },
	{ kind: 'sticker', message: 'thumbs-up', operator_id: 3 },
	{ kind: 'voice_note', message: 'voice-17.ogg' },
].map((message, index) => ({ id: `m${index + 1}`, created_at: at(index + 1), ...message }));

/** The transcript of a chat with `messages`, read with Chat > Get in Berlin's time zone. */
async function transcriptOf(messages: unknown, chat: Partial<Chat> = {}): Promise<string[]> {
	svc()
		.get('/api/v2/chat')
		.query({ id: '1042' })
		.reply(200, { chat: { ...chatWith(messages), ...chat } });
	operatorsReply();
	const [item] = await runNode(get, BERLIN);
	return (item.json.transcript as string).split('\n');
}

describe('Transcript lines', () => {
	test('every kind of spec 2.5 and two kinds it does not list, each on its line, with its author', async () => {
		expect(SPEC_KINDS.every((kind) => EVERY_KIND.some((message) => message.kind === kind))).toBe(
			true,
		);
		expect(await transcriptOf(EVERY_KIND)).toEqual([
			'Chat 1042, times in Europe/Berlin',
			'[2024-05-01 12:00:01] Jane Roe (visitor): Hello, where is my order?',
			'[2024-05-01 12:00:02] Anna Petrova (operator): Let me check.',
			'[2024-05-01 12:00:03] Jane Roe (visitor): [file] invoice.pdf (application/pdf)',
			'[2024-05-01 12:00:04] Anna Petrova (operator): [file] label.png (image/png)',
			'[2024-05-01 12:00:05] System: [contacts request] Please leave your contacts.',
			'[2024-05-01 12:00:06] Jane Roe (visitor): [contacts] Jane Roe, +15550000001, jane@example.com',
			'[2024-05-01 12:00:07] System: [buttons offered] How would you rate the answer?',
			'[2024-05-01 12:00:08] Jane Roe (visitor): [button chosen] Great',
			'[2024-05-01 12:00:09] System: [note for the operator] Came from the spring campaign.',
			'[2024-05-01 12:00:10] System: [info] The visitor has been waiting for 2 minutes.',
			'[2024-05-01 12:00:11] System: [event] Visitor opened https://shop.example/cart',
			'[2024-05-01 12:00:12] System: [operator busy] All operators are busy.',
			'[2024-05-01 12:00:13] Anna Petrova (operator): [sticker] thumbs-up',
			'[2024-05-01 12:00:14] Unknown: [voice_note] voice-17.ogg',
		]);
	});

	test('the item is the simplified record plus the transcript', async () => {
		svc()
			.get('/api/v2/chat')
			.query({ id: '1042' })
			.reply(200, { chat: chatWith(EVERY_KIND) });
		operatorsReply();
		const [item] = await runNode(get, BERLIN);
		expect(item.json).toEqual({
			id: '1042',
			created_at: '2024-05-01T10:00:00Z',
			operator_id: 3,
			operator_name: 'Anna Petrova',
			visitor_id: 'v-1',
			visitor_name: 'Jane Roe',
			visitor_email: 'jane@example.com',
			// Not in the visitor fields: from the latest contacts message (docs/outputs.md, "The visitor's contact").
			visitor_phone: '+15550000001',
			start_page: 'https://shop.example/',
			category: 'Orders',
			subcategory: null,
			final_state: 'closed',
			department_id: 1,
			message_count: EVERY_KIND.length,
			average_rate: 4,
			// The visitor at :01, the operator at :02; never in queue; closed at :59, the latest time in the chat.
			first_response_seconds: 1,
			queue_seconds: null,
			duration_seconds: 59,
			last_activity_at: at(59),
			transcript: expect.stringMatching(/^Chat 1042, times in Europe\/Berlin\n/),
		});
	});

	test('a contacts message leaves out the members it lacks', async () => {
		const contacts = [
			{ name: 'Jane Roe' },
			{ phone: '+15550000001', email: 'jane@example.com' },
			{ name: ' ', phone: 42, email: null },
			{},
		].map((message, index) => ({
			id: `c${index}`,
			created_at: at(index),
			kind: 'contacts',
			message,
		}));
		expect((await transcriptOf(contacts)).slice(1)).toEqual([
			'[2024-05-01 12:00:00] Jane Roe (visitor): [contacts] Jane Roe',
			'[2024-05-01 12:00:01] Jane Roe (visitor): [contacts] +15550000001, jane@example.com',
			'[2024-05-01 12:00:02] Jane Roe (visitor): [contacts] (empty)',
			'[2024-05-01 12:00:03] Jane Roe (visitor): [contacts] (empty)',
		]);
	});

	test('an object, a list or a number where text was expected is shown readably; a broken entry keeps its line', async () => {
		const odd = [
			{ kind: 'visitor', message: { text: 'Hi', lang: 'en' } },
			{ kind: 'operator', message: ['a', 'b'], operator_id: 3 },
			{ kind: 'info', message: 42 },
			{ kind: 'visitor', message: null },
			{ kind: 'file_visitor', message: { url: 'https://files.example/1' } },
			{ kind: 'keyboard_response', message: '', data: { buttonId: 'btn-2' } },
			{ kind: 'visitor', message: 'line one\r\nline two\n\nline three' },
			{ kind: 'constructor', message: 'x' },
			{ kind: 7, message: 'no text kind' },
		].map((message, index) => ({ id: `o${index}`, created_at: at(index), ...message }));
		const lines = await transcriptOf([...odd, null, 'just text']);
		expect(lines.slice(1)).toEqual([
			'[2024-05-01 12:00:00] Jane Roe (visitor): {"text":"Hi","lang":"en"}',
			'[2024-05-01 12:00:01] Anna Petrova (operator): ["a","b"]',
			'[2024-05-01 12:00:02] System: [info] 42',
			'[2024-05-01 12:00:03] Jane Roe (visitor): (empty)',
			'[2024-05-01 12:00:04] Jane Roe (visitor): [file] {"url":"https://files.example/1"}',
			'[2024-05-01 12:00:05] Jane Roe (visitor): [button chosen] btn-2',
			'[2024-05-01 12:00:06] Jane Roe (visitor): line one / line two / line three',
			'[2024-05-01 12:00:07] Unknown: [constructor] x',
			'[2024-05-01 12:00:08] Unknown: [no kind] no text kind',
			'[time unknown] Unknown: [no kind] (empty)',
			'[time unknown] Unknown: [no kind] just text',
		]);
		expect(lines.join('\n')).not.toContain('[object Object]');
	});

	test('an operator missing from GET /operators, or without a name there, is named by id', async () => {
		const messages = [
			{ kind: 'operator', message: 'a', operator_id: 99 },
			{ kind: 'file_operator', message: 'f.txt', operator_id: 4 },
			{ kind: 'operator', message: 'c' },
		].map((message, index) => ({ id: `p${index}`, created_at: at(index), ...message }));
		expect((await transcriptOf(messages)).slice(1)).toEqual([
			'[2024-05-01 12:00:00] Operator 99: a',
			'[2024-05-01 12:00:01] Operator 4: [file] f.txt',
			'[2024-05-01 12:00:02] Operator: c',
		]);
	});

	test('a visitor without a name is "Visitor"', async () => {
		const visitor = { id: 'v-2', fields: {} };
		const [, line] = await transcriptOf([EVERY_KIND[0]], { visitor });
		expect(line).toBe('[2024-05-01 12:00:01] Visitor: Hello, where is my order?');
	});

	test.each([
		['missing', undefined],
		['empty', []],
		['not a list', 'broken'],
	])('a chat whose messages are %s says so', async (_case, messages) => {
		expect(await transcriptOf(messages)).toEqual([
			'Chat 1042, times in Europe/Berlin',
			'No messages.',
		]);
	});

	test('a chat listed minimal is read in full first, then transcribed', async () => {
		svc()
			.get('/api/v2/chats')
			.query({ since: '0' })
			.reply(200, {
				chats: [{ id: 5, created_at: at(0) }],
				more_chats_available: false,
				last_ts: 9,
			});
		const chat: Chat = { id: 5, created_at: at(0), visitor: { id: 'v-5' } };
		svc().get('/api/v2/chat').query({ id: '5' }).reply(200, { chat });
		operatorsReply();
		const [item] = await runNode(getMany, BERLIN);
		expect(item.json).toMatchObject({ id: '5', message_count: 0 });
		expect(item.json.transcript).toBe('Chat 5, times in Europe/Berlin\nNo messages.');
	});
});

describe("Transcript times, in the workflow's time zone", () => {
	/** What Intl alone says the local time is, one lookup per time: the reference the transcript must match. */
	const intlTime = (timeZone: string, ms: number) => {
		const parts = new Intl.DateTimeFormat('en-US', {
			timeZone,
			hourCycle: 'h23',
			year: 'numeric',
			month: '2-digit',
			day: '2-digit',
			hour: '2-digit',
			minute: '2-digit',
			second: '2-digit',
		}).formatToParts(ms);
		const part = (type: string) => parts.find((one) => one.type === type)?.value;
		return `${part('year')}-${part('month')}-${part('day')} ${part('hour')}:${part('minute')}:${part('second')}`;
	};

	test.each([
		// Summer time begins at 01:00 UTC in Berlin; Adelaide's and Lord Howe's changes fall on half hours.
		['Europe/Berlin', Date.UTC(2024, 2, 31, 0, 0, 0)],
		['America/New_York', Date.UTC(2024, 10, 3, 5, 0, 0)],
		['Australia/Adelaide', Date.UTC(2024, 9, 5, 16, 0, 0)],
		['Australia/Lord_Howe', Date.UTC(2024, 9, 5, 15, 0, 0)],
		['Asia/Kathmandu', Date.UTC(2024, 0, 1, 0, 0, 0)],
		// -00:44:30 until 00:44:30 UTC: the offset changes inside an hour, and not by whole minutes.
		['Africa/Monrovia', Date.UTC(1972, 0, 6, 23, 50, 0)],
		// Whole hours before and after, changed at 04:01 UTC: inside an hour too.
		['America/Goose_Bay', Date.UTC(2010, 2, 14, 3, 0, 0)],
	])('%s: each time matches Intl, across a change of offset', async (timeZone, fromMs) => {
		// Every 61 seconds for two hours, so that times fall on both sides of the change, and in its quarter hour.
		const times = Array.from({ length: 120 }, (_, index) => fromMs + index * 61_000);
		const messages = times.map((ms, index) => ({
			id: `t${index}`,
			created_at: new Date(ms).toISOString(),
			kind: 'info',
			message: 'tick',
		}));
		svc()
			.get('/api/v2/chat')
			.query({ id: '1042' })
			.reply(200, { chat: chatWith(messages) });
		operatorsReply();
		const [item] = await runNode(get, { timezone: timeZone });
		const lines = (item.json.transcript as string).split('\n');
		expect(lines[0]).toBe(`Chat 1042, times in ${timeZone}`);
		expect(lines.slice(1)).toEqual(
			times.map((ms) => `[${intlTime(timeZone, ms)}] System: [info] tick`),
		);
		// The change of offset lies within the times: they are not all at one offset.
		const offsets = new Set(
			times.map((ms) => Date.parse(`${intlTime(timeZone, ms).replace(' ', 'T')}Z`) - ms),
		);
		expect(offsets.size).toBe(timeZone === 'Asia/Kathmandu' ? 1 : 2);
	});

	test('a time written with an offset, or as a date alone, is read too', async () => {
		const messages = [
			{ id: 'a', created_at: '2024-05-01T12:00:09+02:00', kind: 'info', message: 'offset' },
			{ id: 'b', created_at: '2024-05-01', kind: 'info', message: 'date' },
			{ id: 'c', created_at: '2024-05-01T10:00:61Z', kind: 'info', message: 'no such second' },
			{ id: 'd', created_at: '2024-05-01T25:00:00Z', kind: 'info', message: 'no such hour' },
		];
		expect((await transcriptOf(messages)).slice(1)).toEqual([
			'[2024-05-01 12:00:09] System: [info] offset',
			'[2024-05-01 02:00:00] System: [info] date',
			'[time unknown] System: [info] no such second',
			'[time unknown] System: [info] no such hour',
		]);
	});

	test('a time zone the runtime does not know (a saved "DEFAULT") gives UTC and says so', async () => {
		svc()
			.get('/api/v2/chat')
			.query({ id: '1042' })
			.reply(200, { chat: chatWith(EVERY_KIND) });
		operatorsReply();
		const [item] = await runNode(get, { timezone: 'DEFAULT' });
		const lines = (item.json.transcript as string).split('\n');
		expect(lines[0]).toBe('Chat 1042, times in UTC');
		expect(lines[1]).toBe('[2024-05-01 10:00:01] Jane Roe (visitor): Hello, where is my order?');
	});

	test("n8n's default zone when the workflow sets none (America/New_York in the harness, as in n8n)", async () => {
		svc()
			.get('/api/v2/chat')
			.query({ id: '1042' })
			.reply(200, { chat: chatWith(EVERY_KIND) });
		operatorsReply();
		const [item] = await runNode(get);
		expect((item.json.transcript as string).split('\n').slice(0, 2)).toEqual([
			'Chat 1042, times in America/New_York',
			'[2024-05-01 06:00:01] Jane Roe (visitor): Hello, where is my order?',
		]);
	});
});

describe('GET /operators for Transcript', () => {
	test('a chat of 5,000 messages: one GET /chat, one GET /operators, one line per message', async () => {
		const messages = Array.from({ length: 5000 }, (_, index) => ({
			id: `m${index}`,
			created_at: new Date(Date.UTC(2024, 4, 1) + index * 1000).toISOString(),
			kind: index % 2 ? 'operator' : 'visitor',
			message: `message ${index}`,
			...(index % 2 ? { operator_id: 3 } : {}),
		}));
		const chats = { requests: 0 };
		svc()
			.get('/api/v2/chat')
			.query({ id: '1042' })
			.reply(() => {
				chats.requests++;
				return [200, { chat: chatWith(messages) }];
			});
		const operators = operatorsReply();
		const [item] = await runNode(get, BERLIN);
		const lines = (item.json.transcript as string).split('\n');
		expect(lines).toHaveLength(5001);
		expect(lines[5000]).toBe('[2024-05-01 03:23:19] Anna Petrova (operator): message 4999');
		expect({ chats: chats.requests, operators: operators.requests }).toEqual({
			chats: 1,
			operators: 1,
		});
	});

	test('is read once per execution: Get Many over 3 items, and Get over 3 items', async () => {
		svc()
			.get('/api/v2/chats')
			.query({ since: '0' })
			.times(3)
			.reply(200, { chats: [chatWith(EVERY_KIND)], more_chats_available: false, last_ts: 9 });
		let operators = operatorsReply();
		const many = await runNode(getMany, { items: items(3) });
		expect(many.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(many.every((item) => String(item.json.transcript).includes('Anna Petrova'))).toBe(true);
		expect(operators.requests).toBe(1);

		svc()
			.get('/api/v2/chat')
			.query({ id: '1042' })
			.times(3)
			.reply(200, { chat: chatWith(EVERY_KIND) });
		operators = operatorsReply();
		expect(await runNode(get, { items: items(3) })).toHaveLength(3);
		expect(operators.requests).toBe(1);
	});

	test('is read again by the next execution, so a renamed operator shows under the new name', async () => {
		for (const name of ['Anna Petrova', 'Anna Ivanova']) {
			svc()
				.get('/api/v2/chat')
				.query({ id: '1042' })
				.reply(200, { chat: chatWith(EVERY_KIND) });
			operatorsReply([{ ...OPERATORS[0], full_name: name }]);
			const [item] = await runNode(get);
			expect(item.json.transcript).toContain(`${name} (operator): Let me check.`);
		}
	});

	test.each(['raw', 'messages', 'selectedFields'])(
		'is never read for Output %s',
		async (output) => {
			svc()
				.get('/api/v2/chats')
				.query({ since: '0' })
				.reply(200, { chats: [chatWith(EVERY_KIND)], more_chats_available: false, last_ts: 9 });
			const operators = everyOperatorsRequest();
			expect((await runNode({ ...getMany, output })).length).toBeGreaterThan(0);
			expect(operators.requests).toBe(0);
			dropUnrequestedMocks();
		},
	);

	test('with Output per item, only the items asking for Simplified or Transcript need it: one request', async () => {
		const outputs = ['raw', 'transcript', 'simplified', 'transcript'];
		svc()
			.get('/api/v2/chat')
			.query({ id: '1042' })
			.times(4)
			.reply(200, { chat: chatWith(EVERY_KIND) });
		const operators = everyOperatorsRequest();
		const output = await runNode((index) => ({ ...get, output: outputs[index] }), {
			items: items(4),
		});
		expect(output.map((item) => 'transcript' in item.json)).toEqual([false, true, false, true]);
		expect(operators.requests).toBe(1);
		dropUnrequestedMocks();
	});

	test('a failed GET /operators fails the item and says why the node asked; it is not asked again per item', async () => {
		instantPauses({ maxRetries: 0 });
		svc()
			.get('/api/v2/chat')
			.query({ id: '1042' })
			.times(3)
			.reply(200, { chat: chatWith(EVERY_KIND) });
		const operators = operatorsReply('Bad Gateway', 502);
		const output = await runNode(get, { items: items(3), continueOnFail: true });
		expect(operators.requests).toBe(1);
		expect(output).toHaveLength(3);
		for (const [index, item] of output.entries()) {
			expect(item.pairedItem).toEqual({ item: index });
			expect(item.json.error).toBe('The server cannot process the request (502)');
			expect(item.json.description).toMatch(
				/Transcript names the operators from Get many operators; choose another Output to go without their names\.$/,
			);
		}

		svc()
			.get('/api/v2/chat')
			.query({ id: '1042' })
			.reply(200, { chat: chatWith(EVERY_KIND) });
		operatorsReply({ error: 'unknown' });
		const error = await runNodeError(get);
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.description).toMatch(/Transcript names the operators/);
	});
});

describe('Output One Item per Message, with the same reading of a message', () => {
	test('an object where text was expected is JSON, a number is text, contacts lack what is missing', async () => {
		const messages = [
			{ kind: 'visitor', message: { text: 'Hi' } },
			{ kind: 'info', message: 42 },
			{ kind: 'contacts', message: { phone: '+1555' } },
		].map((message, index) => ({ id: `x${index}`, created_at: at(index), ...message }));
		svc()
			.get('/api/v2/chat')
			.query({ id: '1042' })
			.reply(200, { chat: chatWith(messages) });
		const output = await runNode({ ...get, output: 'messages' });
		expect(output.map((item) => item.json.text)).toEqual(['{"text":"Hi"}', '42', '+1555']);
	});
});
