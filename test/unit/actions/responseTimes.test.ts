// Response times in the Simplified record: first response, time in queue, length and last activity, each by the
// server's times, with messages out of order or without times, state_history null and minimal list entries.
import type { IExecuteFunctions } from 'n8n-workflow';

import {
	ANSWERING_KINDS,
	CHAT_OUTPUT_OPTIONS,
	chatFormatter,
} from '../../../nodes/SvcChat/output/chatOutput';
import { findEvents } from '../../../nodes/SvcChat/trigger/events';
import type { Chat, ChatMessage, StateEntry } from '../../../nodes/SvcChat/types';
import { replyOperators, runNode, svc } from './runNode';

/** 2024-05-01 10:mm:ss UTC, as the API writes its times. */
const at = (minute: number, second = 0) =>
	`2024-05-01T10:${String(minute).padStart(2, '0')}:${String(second).padStart(2, '0')}Z`;

const message = (kind: string, created_at: unknown, extra: Partial<ChatMessage> = {}) =>
	({
		id: `m-${kind}-${String(created_at)}`,
		kind,
		created_at,
		message: 'text',
		...extra,
	}) as ChatMessage;
const state = (name: string, when: unknown): StateEntry =>
	({
		state: name,
		operator_id: name === 'queue' ? null : 3,
		at: when,
		department_id: 1,
	}) as StateEntry;

/** A full chat of spec 2.4 created at 10:00:00 with these messages and states. */
const chatWith = (
	messages: ChatMessage[],
	states: StateEntry[] | null = [
		state('queue', at(0)),
		state('chatting', at(1)),
		state('closed', at(9)),
	],
): Chat => ({
	id: 1042,
	created_at: at(0),
	category: null,
	subcategory: null,
	operator_id: 3,
	rates: [],
	messages,
	state_history: states,
	visitor: { id: 'v-1', fields: {} },
	visit_session: { ip: null, landing_page: { url: null } },
	start_page: { url: 'https://shop.example/' },
});

let simplify: (chats: Chat[]) => Array<Record<string, unknown>>;
beforeAll(async () => {
	// Simplified reads nothing from the server: the context is never used.
	simplify = await chatFormatter({} as IExecuteFunctions, 'simplified', {
		operatorNames: new Map(),
	});
});

const timesOf = (chat: Chat) => {
	const [record] = simplify([chat]);
	return {
		first_response_seconds: record.first_response_seconds,
		queue_seconds: record.queue_seconds,
		duration_seconds: record.duration_seconds,
		last_activity_at: record.last_activity_at,
	};
};

const conversation = [
	message('visitor', at(0, 10)),
	message('operator', at(1, 40), { operator_id: 3 }),
	message('visitor', at(2, 0)),
	message('operator', at(3, 5), { operator_id: 3 }),
];

describe('a chat of the spec shape (queue, chatting, closed)', () => {
	test('gives all four, by the server times in the chat', () => {
		expect(timesOf(chatWith(conversation))).toEqual({
			first_response_seconds: 90,
			queue_seconds: 60,
			duration_seconds: 540,
			last_activity_at: at(9),
		});
	});

	test('Get chat in the action node gives them in the Simplified record', async () => {
		replyOperators();
		svc()
			.get('/api/v2/chat')
			.query({ id: '1042' })
			.reply(200, { chat: chatWith(conversation) });
		const [item] = await runNode({ resource: 'chat', operation: 'get', chatId: '1042' });
		expect(item.json).toMatchObject({
			id: '1042',
			final_state: 'closed',
			first_response_seconds: 90,
			queue_seconds: 60,
			duration_seconds: 540,
			last_activity_at: at(9),
		});
	});

	test('keeps milliseconds and reads time zones and microseconds as the server writes them', () => {
		const chat = chatWith(
			[
				message('visitor', '2024-05-01T12:00:10.250+02:00'),
				message('operator', '2024-05-01T10:00:12.750123Z', { operator_id: 3 }),
			],
			[state('queue', '2024-05-01T10:00:00.000Z'), state('closed', '2024-05-01T12:00:30.5+02:00')],
		);
		expect(timesOf(chat)).toEqual({
			first_response_seconds: 2.5,
			queue_seconds: 30.5,
			duration_seconds: 30.5,
			// The server's own text, not one made by n8n.
			last_activity_at: '2024-05-01T12:00:30.5+02:00',
		});
	});
});

test('times in the form the API writes are read to the millisecond, across midnight, month and year ends', () => {
	const pairs = [
		['2024-05-01T23:59:30.000Z', '2024-05-02T00:00:15.500Z', 45.5],
		['2024-02-29T23:59:59.999Z', '2024-03-01T00:00:00.000Z', 0.001],
		['2024-12-31T23:00:00.000Z', '2025-01-01T01:30:00.250Z', 9000.25],
	] as const;
	for (const [asked, answered, seconds] of pairs) {
		const chat = chatWith([
			message('visitor', asked),
			message('operator', answered, { operator_id: 3 }),
		]);
		expect([asked, timesOf(chat).first_response_seconds]).toEqual([asked, seconds]);
	}
});

test('text in that form that is no time (hour 25, month 13, letters, other marks) is left out', () => {
	for (const bad of [
		'2024-05-01T25:00:00.000Z',
		'2024-13-01T10:00:00.000Z',
		'2024-05-01T10:6x:00.000Z',
		'2024-05-01T10:00:00.00xZ',
		'2024/05/01T10:00:00.000Z',
		'2024-05-01T10-00-00.000Z',
	]) {
		const chat = chatWith(
			[message('visitor', bad), message('operator', at(5), { operator_id: 3 })],
			null,
		);
		expect([bad, timesOf(chat)]).toEqual([
			bad,
			{
				first_response_seconds: null,
				queue_seconds: null,
				duration_seconds: null,
				last_activity_at: at(5),
			},
		]);
	}
});

describe('first_response_seconds', () => {
	test('is null with no answer yet, or no message from the visitor', () => {
		expect(timesOf(chatWith([message('visitor', at(0, 5))])).first_response_seconds).toBeNull();
		expect(
			timesOf(chatWith([message('operator', at(0, 5), { operator_id: 3 })])).first_response_seconds,
		).toBeNull();
		expect(timesOf(chatWith([])).first_response_seconds).toBeNull();
	});

	test('an answer is an operator or file_operator message; busy notices, forms and unknown kinds are not', () => {
		const notAnswers = [
			'operator_busy',
			'keyboard',
			'contacts_request',
			'info',
			'events',
			'for_operator',
			'sticker',
		];
		const chat = chatWith([
			message('visitor', at(0, 10)),
			...notAnswers.map((kind, index) => message(kind, at(0, 20 + index), { operator_id: 3 })),
		]);
		expect(timesOf(chat).first_response_seconds).toBeNull();
		chat.messages!.push(message('file_operator', at(2, 10), { operator_id: 3 }));
		expect(timesOf(chat).first_response_seconds).toBe(120);
		expect([...ANSWERING_KINDS].sort()).toEqual(['file_operator', 'operator']);
	});

	test('the visitor writes visitor, file_visitor, contacts and keyboard_response: the earliest starts it', () => {
		for (const kind of ['visitor', 'file_visitor', 'contacts', 'keyboard_response']) {
			const chat = chatWith([
				message('visitor', at(1, 0)),
				message(kind, at(0, 30)),
				message('operator', at(1, 30), { operator_id: 3 }),
			]);
			expect([kind, timesOf(chat).first_response_seconds]).toEqual([kind, 60]);
		}
	});

	test("an operator's greeting before the visitor's first message answers nothing", () => {
		const chat = chatWith([
			message('operator', at(0, 5), { operator_id: 3 }),
			message('visitor', at(0, 20)),
			message('operator', at(0, 50), { operator_id: 3 }),
		]);
		expect(timesOf(chat).first_response_seconds).toBe(30);
	});

	test('an answer in the same millisecond as the question counts, as 0', () => {
		const chat = chatWith([
			message('visitor', at(0, 5)),
			message('operator', at(0, 5), { operator_id: 3 }),
		]);
		expect(timesOf(chat).first_response_seconds).toBe(0);
	});

	test('messages out of order are taken by their times, not their places in the list', () => {
		const chat = chatWith([
			message('operator', at(3, 5), { operator_id: 3 }),
			message('visitor', at(2, 0)),
			message('operator', at(1, 40), { operator_id: 3 }),
			message('visitor', at(0, 10)),
		]);
		expect(timesOf(chat)).toEqual(timesOf(chatWith(conversation)));
		expect(timesOf(chat).first_response_seconds).toBe(90);
	});

	test('a message whose created_at is missing or not a time is left out; it still counts as a message', () => {
		const chat = chatWith(
			[
				message('visitor', undefined),
				message('visitor', 'yesterday'),
				message('operator', null, { operator_id: 3 }),
				message('visitor', at(0, 30)),
				message('operator', 17, { operator_id: 3 }),
				message('operator', at(2, 0), { operator_id: 3 }),
			],
			null,
		);
		const [record] = simplify([chat]);
		expect(record).toMatchObject({
			message_count: 6,
			first_response_seconds: 90,
			last_activity_at: at(2, 0),
		});
		// Without a time on either side there is nothing to measure.
		const untimed = chatWith([
			message('visitor', undefined),
			message('operator', at(1), { operator_id: 3 }),
		]);
		expect(timesOf(untimed).first_response_seconds).toBeNull();
		const unanswered = chatWith([
			message('visitor', at(0, 5)),
			message('operator', '', { operator_id: 3 }),
		]);
		expect(timesOf(unanswered).first_response_seconds).toBeNull();
	});

	test('a messages list that is missing, or entries that are not objects, give null and no error', () => {
		const chat = chatWith([]);
		delete chat.messages;
		expect(timesOf(chat).first_response_seconds).toBeNull();
		const odd = chatWith([null, 'text', message('visitor', at(0, 5))] as unknown as ChatMessage[]);
		expect(timesOf(odd)).toMatchObject({ first_response_seconds: null, last_activity_at: at(9) });
	});
});

describe('queue_seconds', () => {
	test('sums every time in queue; a repeated queue entry (another department) continues the wait', () => {
		const states = [
			state('queue', at(0)),
			state('queue', at(0, 30)),
			state('chatting', at(2)),
			state('chatting', at(3)),
			state('queue', at(4)),
			state('chatting', at(4, 45)),
			state('closed', at(9)),
		];
		expect(timesOf(chatWith(conversation, states)).queue_seconds).toBe(120 + 45);
	});

	test('a chat closed from the queue (missed) waited until it was closed', () => {
		const states = [state('queue', at(0)), state('closed', at(5))];
		expect(timesOf(chatWith([message('visitor', at(0, 5))], states)).queue_seconds).toBe(300);
	});

	test('is null for a chat never queued, one still in queue, and state_history null', () => {
		expect(
			timesOf(chatWith(conversation, [state('chatting', at(0)), state('closed', at(9))]))
				.queue_seconds,
		).toBeNull();
		// Still waiting: the wait has not ended, and n8n's clock is not used to end it, even after an earlier wait.
		const requeued = [state('queue', at(0)), state('chatting', at(1)), state('queue', at(5))];
		expect(timesOf(chatWith(conversation, requeued)).queue_seconds).toBeNull();
		expect(timesOf(chatWith(conversation, null)).queue_seconds).toBeNull();
	});

	test('is null when a time of a queue span is missing or runs backwards', () => {
		const missingStart = [
			state('queue', undefined),
			state('chatting', at(1)),
			state('closed', at(9)),
		];
		const missingEnd = [state('queue', at(0)), state('chatting', 'soon'), state('closed', at(9))];
		const backwards = [state('queue', at(3)), state('chatting', at(1)), state('closed', at(9))];
		for (const states of [missingStart, missingEnd, backwards])
			expect(timesOf(chatWith(conversation, states)).queue_seconds).toBeNull();
		// A bad time outside the queue spans does not matter.
		const laterBad = [
			state('queue', at(0)),
			state('chatting', at(1)),
			state('chatting', 'x'),
			state('closed', at(9)),
		];
		expect(timesOf(chatWith(conversation, laterBad)).queue_seconds).toBe(60);
	});
});

describe('duration_seconds', () => {
	test('runs from created_at to the latest entry when that is closed; closed twice, to the second', () => {
		const states = [
			state('queue', at(0)),
			state('closed', at(4)),
			state('chatting', at(6)),
			state('closed', at(8)),
		];
		expect(timesOf(chatWith(conversation, states)).duration_seconds).toBe(480);
	});

	test('is null for a chat not closed, reopened, or with state_history null', () => {
		const open = [state('queue', at(0)), state('chatting', at(1))];
		const reopened = [state('queue', at(0)), state('closed', at(4)), state('chatting', at(6))];
		for (const states of [open, reopened, null])
			expect(timesOf(chatWith(conversation, states)).duration_seconds).toBeNull();
	});

	test('is null when created_at or the closing time is not a time, or the closing comes before created_at', () => {
		const noStart = { ...chatWith(conversation), created_at: 'unknown' };
		expect(timesOf(noStart).duration_seconds).toBeNull();
		const badEnd = [state('queue', at(0)), state('closed', '')];
		expect(timesOf(chatWith(conversation, badEnd)).duration_seconds).toBeNull();
		const early = { ...chatWith(conversation), created_at: at(10) };
		expect(timesOf(early).duration_seconds).toBeNull();
	});
});

describe('last_activity_at', () => {
	test('is the latest message or state change, wherever it stands in the lists', () => {
		const states = [state('queue', at(0)), state('closed', at(3)), state('chatting', at(1))];
		const messages = [
			message('visitor', at(7)),
			message('info', at(12)),
			message('operator', at(5)),
		];
		expect(timesOf(chatWith(messages, states)).last_activity_at).toBe(at(12));
		expect(timesOf(chatWith([message('visitor', at(2))], states)).last_activity_at).toBe(at(3));
	});

	test('ratings, created_at and times that are not times do not count; no time at all gives null', () => {
		const chat = chatWith([message('visitor', 'later')], [state('queue', undefined)]);
		chat.rates = [{ rate: 5, operator_id: 3, created_at: at(30) }];
		expect(timesOf(chat).last_activity_at).toBeNull();
	});
});

test('a minimal list entry ({id, created_at}) gives nulls, not an error (Get Many reads those in full first)', () => {
	const [record] = simplify([{ id: 7, created_at: at(0) }]);
	expect(record).toMatchObject({
		id: '7',
		message_count: 0,
		final_state: null,
		first_response_seconds: null,
		queue_seconds: null,
		duration_seconds: null,
		last_activity_at: null,
	});
});

test('Missed Chat and first_response_seconds share one rule of what answers: no missed chat has a response time', () => {
	const missedWith = (kind: string) =>
		chatWith(
			[message('visitor', at(0, 5)), message(kind, at(1), { operator_id: 3 })],
			[state('queue', at(0)), state('closed', at(5))],
		);
	for (const kind of ['operator', 'file_operator', 'operator_busy', 'keyboard']) {
		const chat = missedWith(kind);
		const missed = findEvents(chat, 'missedChat').length === 1;
		expect([kind, missed, timesOf(chat).first_response_seconds === null]).toEqual([
			kind,
			missed,
			missed,
		]);
	}
	expect(findEvents(missedWith('operator_busy'), 'missedChat')).toHaveLength(1);
});

test("Simplified's option text names each response time field and says what it measures, as the record names them", () => {
	const [record] = simplify([chatWith(conversation)]);
	const timeFields = Object.keys(record).filter(
		(key) => /_seconds$|_at$/.test(key) && key !== 'created_at',
	);
	expect(timeFields).toEqual([
		'first_response_seconds',
		'queue_seconds',
		'duration_seconds',
		'last_activity_at',
	]);
	const text = CHAT_OUTPUT_OPTIONS.find((option) => option.value === 'simplified')!.description!;
	// Each field by its name, followed by what it measures.
	for (const field of timeFields) expect(text).toMatch(new RegExp(`\\b${field}: [a-z]`));
	expect(text).toMatch(/queue_seconds: [^;]*null while in it/);
	expect(text).toMatch(/department_id of the latest state/);
});

test("department_id is the latest state entry's, so that a report can be split by department; null without one", () => {
	const moved = [state('queue', at(0)), { ...state('chatting', at(1)), department_id: 3 }];
	const [record] = simplify([chatWith(conversation, moved)]);
	expect(record.department_id).toBe(3);
	const unassigned = [state('queue', at(0)), { ...state('chatting', at(1)), department_id: null }];
	expect(simplify([chatWith(conversation, unassigned)])[0].department_id).toBeNull();
	expect(simplify([chatWith(conversation, null)])[0].department_id).toBeNull();
	// A state_history that is not a list (a broken reply) gives null too, not an error.
	expect(simplify([chatWith(conversation, 'x' as never)])[0].department_id).toBeNull();
});
