// Visitor Waiting: what a wait is, the server's present from its Date header, remembered waits, the bound, bad input.
import nock from 'nock';
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import type { Chat, Cursor } from '../../../nodes/SvcChat/types';
import { BASE_URL } from '../../harness/fixtures';
import { makeChat, microsAt, triggerHarness } from './fixtures';
import { HOUR, NOW, freezeClock } from './clock';

freezeClock();

const MINUTE = 60_000;
const waiting = (more: INodeParameters = {}) => ({
	startFrom: 'beginning',
	emit: 'visitorWaiting',
	waitLongerThan: 3,
	chatOutput: 'raw',
	...more,
});
const at = (ms: number) => new Date(ms).toISOString();

/** An open chat with these messages, each [kind, time in ms]; its latest state `state`. */
function chatWith(id: number | string, messages: Array<[string, number?]>, state = 'queue'): Chat {
	const chat = makeChat(id, { states: [state] });
	chat.state_history![0] = { state, operator_id: null, at: at(NOW), department_id: 4 };
	chat.messages = messages.map(([kind, ms], index) => ({
		id: `${id}-m${index}`,
		...(ms === undefined ? {} : { created_at: at(ms) }),
		kind,
		message: `a ${kind} message`,
	})) as Chat['messages'];
	return chat;
}

/** GET /chats?since=… answered with a Date header of the server's clock at `serverMs` (none when undefined). */
function page(since: Cursor, chats: Chat[], lastTs: Cursor, serverMs?: number) {
	const headers: Record<string, string> =
		serverMs === undefined ? {} : { Date: new Date(serverMs).toUTCString() };
	return nock(BASE_URL)
		.get('/api/v2/chats')
		.query({ since: String(since) })
		.reply(200, { chats, more_chats_available: false, last_ts: lastTs }, headers);
}

/** GET /chat?id=… answered with the chat: a due wait whose chat the walk did not bring is read again. */
const chatReply = (chat: Chat) =>
	nock(BASE_URL)
		.get('/api/v2/chat')
		.query({ id: String(chat.id) })
		.reply(200, { chat });

const ids = (items: IDataObject[] | null) => (items ?? []).map((item) => item.chat_id);

describe('a wait: from the first visitor message after the latest answer until an answer or the closing', () => {
	test('which chats wait, and since when; time order decides, not the order of the list', async () => {
		const t = NOW - 10 * MINUTE;
		const chats = [
			chatWith('waits', [
				['visitor', t],
				['visitor', t + 1000],
			]),
			chatWith('file', [['file_visitor', t]]),
			chatWith('answered', [
				['visitor', t],
				['operator', t + 1000],
			]),
			chatWith('file answer', [
				['visitor', t],
				['file_operator', t + 1000],
			]),
			chatWith('closed', [['visitor', t]], 'closed'),
			// Busy notices and system kinds are no answer.
			chatWith('busy', [
				['visitor', t],
				['operator_busy', t + 1],
				['info', t + 2],
			]),
			// Listed after the answer, written before it: answered.
			chatWith('out of order', [
				['operator', t + 1000],
				['visitor', t],
			]),
			// Answered, then the visitor wrote again: a new wait, from the message after the answer.
			chatWith('again', [
				['visitor', t - MINUTE],
				['operator', t - 1000],
				['visitor', t],
			]),
			// Written in the same millisecond as the answer, listed after it: a new wait.
			chatWith('same time', [
				['visitor', t - MINUTE],
				['operator', t],
				['visitor', t],
			]),
			// A message without a time cannot start a wait.
			chatWith('untimed', [['visitor']]),
			chatWith('chatting', [['visitor', t]], 'chatting'),
		];
		page(0, chats, microsAt(NOW), NOW);
		const items = await triggerHarness(waiting(), {}).poll();
		expect(items!.map(({ chat_id, wait_began_at }) => [chat_id, wait_began_at])).toEqual([
			['waits', at(t)],
			['file', at(t)],
			['busy', at(t)],
			['again', at(t)],
			['same time', at(t)],
			['chatting', at(t)],
		]);
	});

	test("the item: chat id, wait start and seconds by the server's clock, department, operator, contact, detected_at, chat", async () => {
		const chat = chatWith(1, [['visitor', NOW - 200_000]], 'chatting');
		// Issue 59: operator_id is the chat's own, as in the chat the item carries, never its latest state's.
		chat.operator_id = 9;
		chat.state_history![0] = { state: 'queue', operator_id: null, at: at(NOW), department_id: 2 };
		chat.visitor = { id: 'v', fields: { name: 'Mei Kim', email: 'mei@mail.example' } };
		chat.messages!.push({
			id: 'c',
			created_at: at(NOW - 100_000),
			kind: 'contacts',
			message: { name: 'Other', phone: '+4930' },
		});
		// The server's clock is 1.5 s later than NOW: Date says whole seconds.
		page(0, [chat], microsAt(NOW), NOW + 1500);
		expect(await triggerHarness(waiting(), {}).poll()).toEqual([
			{
				chat_id: 1,
				wait_began_at: at(NOW - 200_000),
				waited_seconds: 201,
				department_id: 2,
				operator_id: 9,
				visitor_name: 'Mei Kim',
				visitor_email: 'mei@mail.example',
				visitor_phone: '+4930',
				detected_at: at(NOW),
				chat,
			},
		]);
	});
});

describe("the server's present, never n8n's clock", () => {
	test.each([
		['5 hours ahead of n8n', 5 * HOUR],
		['5 hours behind n8n', -5 * HOUR],
	])(
		'a server clock %s: no alert before the wait passes the threshold by the Date header, one right after',
		async (_, offset) => {
			const serverNow = NOW + offset;
			const staticData: IDataObject = {};
			const chat = chatWith(1, [['visitor', serverNow - 2 * MINUTE]]);
			// The chat comes once; later polls see no change, only the server's clock moving on.
			page(0, [chat], microsAt(serverNow - 2 * MINUTE), serverNow);
			expect(await triggerHarness(waiting(), staticData).poll()).toBeNull();
			const cursor = microsAt(serverNow - 2 * MINUTE);
			page(cursor, [], cursor, serverNow + MINUTE);
			expect(await triggerHarness(waiting(), staticData).poll()).toBeNull();
			page(cursor, [], cursor, serverNow + MINUTE + 1000);
			chatReply(chat);
			const [item] = (await triggerHarness(waiting(), staticData).poll())!;
			expect(item).toMatchObject({ chat_id: 1, waited_seconds: 181 });
			// Once per wait.
			page(cursor, [], cursor, serverNow + 10 * MINUTE);
			expect(await triggerHarness(waiting(), staticData).poll()).toBeNull();
			expect(staticData.waiting).toEqual({ waits: [['1', serverNow - 2 * MINUTE, 1]] });
		},
	);

	test('without a readable Date, the present is the latest change (last_ts): an alert late, never early, and a warning', async () => {
		const staticData: IDataObject = {};
		const start = NOW - 10 * HOUR;
		const cursor = microsAt(start);
		const chat = chatWith(1, [['visitor', start]]);
		page(0, [chat], cursor);
		const harness = triggerHarness(waiting(), staticData);
		// n8n's clock says 10 hours passed: the server's does not.
		expect(await harness.poll()).toBeNull();
		expect(harness.logger.warn).toHaveBeenCalledWith(expect.stringContaining('no readable Date'));
		nock(BASE_URL)
			.get('/api/v2/chats')
			.query({ since: cursor })
			.reply(200, { chats: [], more_chats_available: false, last_ts: cursor }, { Date: 'soon' });
		expect(await triggerHarness(waiting(), staticData).poll()).toBeNull();
		const later = microsAt(start + 4 * MINUTE);
		page(cursor, [chatWith(2, [['operator', start + 4 * MINUTE]], 'chatting')], later);
		chatReply(chat);
		expect(ids(await triggerHarness(waiting(), staticData).poll())).toEqual([1]);
	});
});

describe('remembered waits while the workflow was unpublished, and failures', () => {
	const start = NOW - 10 * MINUTE;
	const remembered = () => ({
		startedFrom: 'beginning',
		cursor: '5',
		catchingUp: false,
		waiting: { waits: [['1', start, 0]] },
	});

	test('answered or closed meanwhile: the walk brings the change and no alert comes', async () => {
		const ends: Array<[Array<[string, number]>, string]> = [
			[
				[
					['visitor', start],
					['operator', NOW - MINUTE],
				],
				'chatting',
			],
			[[['visitor', start]], 'closed'],
		];
		for (const [kinds, state] of ends) {
			const staticData: IDataObject = remembered();
			page('5', [chatWith(1, kinds, state)], '6', NOW);
			expect(await triggerHarness(waiting(), staticData).poll()).toBeNull();
			expect(staticData.waiting).toEqual({ waits: [] });
		}
	});

	test('a due chat the walk did not bring is read again: still waiting, it is alerted; deleted, it is dropped', async () => {
		let staticData: IDataObject = remembered();
		page('5', [], '6', NOW);
		const chat = chatWith(1, [['visitor', start]]);
		nock(BASE_URL).get('/api/v2/chat').query({ id: '1' }).reply(200, { chat });
		expect(await triggerHarness(waiting(), staticData).poll()).toEqual([
			expect.objectContaining({ chat_id: 1, waited_seconds: 600, chat }),
		]);

		staticData = remembered();
		page('5', [], '6', NOW);
		nock(BASE_URL).get('/api/v2/chat').query({ id: '1' }).reply(404, '');
		expect(await triggerHarness(waiting(), staticData).poll()).toBeNull();
		expect(staticData.waiting).toEqual({ waits: [] });
		expect(nock.isDone()).toBe(true);
	});

	test('a failed read of a due chat fails the poll and keeps the stored place and waits', async () => {
		const staticData: IDataObject = remembered();
		page('5', [], '6', NOW);
		nock(BASE_URL).get('/api/v2/chat').query({ id: '1' }).times(4).reply(502, 'Bad Gateway');
		await expect(triggerHarness(waiting(), staticData).poll()).rejects.toThrow('(502)');
		expect(staticData).toMatchObject(remembered());
	});

	test('answered, then waiting again: one alert per wait', async () => {
		const staticData: IDataObject = {};
		const first = chatWith(1, [['visitor', NOW - 10 * MINUTE]]);
		page(0, [first], '1', NOW);
		expect(ids(await triggerHarness(waiting(), staticData).poll())).toEqual([1]);
		const again = chatWith(1, [
			['visitor', NOW - 10 * MINUTE],
			['operator', NOW - 9 * MINUTE],
			['visitor', NOW - 5 * MINUTE],
		]);
		page('1', [again], '2', NOW);
		const [item] = (await triggerHarness(waiting(), staticData).poll())!;
		expect(item).toMatchObject({ chat_id: 1, wait_began_at: at(NOW - 5 * MINUTE) });
		page('2', [again], '3', NOW + HOUR);
		expect(await triggerHarness(waiting(), staticData).poll()).toBeNull();
	});

	test('Start From: a wait that began before the starting point is not watched', async () => {
		const startDate = at(NOW - 5 * MINUTE);
		const staticData: IDataObject = {};
		const from = microsAt(NOW - 5 * MINUTE);
		const chats = [
			chatWith(1, [['visitor', NOW - 6 * MINUTE]]),
			chatWith(2, [['visitor', NOW - 4 * MINUTE]]),
		];
		page(from, chats, '9', NOW);
		const parameters = waiting({ startFrom: 'date', startDate, waitLongerThan: 1 });
		expect(ids(await triggerHarness(parameters, staticData).poll())).toEqual([2]);
	});
});

test('10,000 visitors waiting at once are all remembered and alerted; beyond the bound the latest begun are dropped, with a warning', async () => {
	const staticData: IDataObject = {};
	const parameters = waiting({ options: { maxChatsPerPoll: 20_000 } });
	const chats = Array.from({ length: 10_001 }, (_, index) =>
		chatWith(index + 1, [['visitor', NOW - HOUR + index]]),
	);
	page(0, chats.slice(0, 10_000), '1', NOW);
	expect(await triggerHarness(parameters, staticData).poll()).toHaveLength(10_000);
	expect((staticData.waiting as { waits: unknown[] }).waits).toHaveLength(10_000);

	// One more, not yet due: the bound drops an alerted wait (at worst a repeated alert), never this one.
	page('1', [chatWith('new', [['visitor', NOW]])], '2', NOW);
	const next = triggerHarness(parameters, staticData);
	expect(await next.poll()).toBeNull();
	const { waits } = staticData.waiting as { waits: Array<[string, number, number]> };
	expect(waits).toHaveLength(10_000);
	expect(waits.at(-1)).toEqual(['new', NOW, 0]);
	expect(next.logger.warn).not.toHaveBeenCalled();

	// 10,001 waits not yet alerted: the one begun last is dropped, and the log says so.
	const fresh: IDataObject = {};
	page(0, chats, '1', NOW - 2 * HOUR);
	const full = triggerHarness(parameters, fresh);
	expect(await full.poll()).toBeNull();
	const kept = (fresh.waiting as { waits: Array<[string]> }).waits;
	expect(kept).toHaveLength(10_000);
	expect(kept.some(([id]) => id === '10001')).toBe(false);
	expect(full.logger.warn).toHaveBeenCalledWith(
		expect.stringContaining('more than 10000 visitors are waiting; the 1 latest'),
	);
});

describe("'Wait Longer Than'", () => {
	test.each([0, -1, 'three', '', null, [5], true])(
		'%p is an error that names the field and the fix',
		async (value) => {
			await expect(
				triggerHarness(waiting({ waitLongerThan: value }), {}).poll(),
			).rejects.toMatchObject({
				message: expect.stringContaining(
					"'Wait Longer Than (Minutes)' must be a number of minutes above 0",
				),
				description: expect.stringContaining('0.5 for 30 seconds'),
			});
		},
	);

	test('fractions and numbers as text: 0.05 minutes is 3 seconds', async () => {
		page(
			0,
			[chatWith(1, [['visitor', NOW - 3000]]), chatWith(2, [['visitor', NOW - 2000]])],
			'1',
			NOW,
		);
		expect(ids(await triggerHarness(waiting({ waitLongerThan: '0.04' }), {}).poll())).toEqual([1]);
	});
});

test('Fetch Test Event: the chats waiting now, the latest wait first, however short; with none, "Nobody is waiting"', async () => {
	const staticData: IDataObject = {};
	const chats = [
		chatWith(1, [['visitor', NOW - 1000]]),
		chatWith(2, [['visitor', NOW - 5000]]),
		chatWith(3, [
			['visitor', NOW - 9000],
			['operator', NOW - 8000],
		]),
	];
	// Fewer than a page: the sample looks back step by step, each step answered alike.
	nock(BASE_URL)
		.get('/api/v2/chats')
		.query(true)
		.reply(200, { chats, more_chats_available: false, last_ts: microsAt(NOW) }, { Date: at(NOW) })
		.persist();
	const sample = await triggerHarness(waiting(), staticData, 'manual').poll();
	// Issue 59: the waits just begun, not the weeks-old ones, so the one made to test it shows first.
	expect(sample!.map(({ chat_id, waited_seconds }) => [chat_id, waited_seconds])).toEqual([
		[1, 1],
		[2, 5],
	]);
	expect(staticData).toEqual({});
	nock.cleanAll();
	nock(BASE_URL)
		.get('/api/v2/chats')
		.query(true)
		.reply(200, { chats: [chats[2]], more_chats_available: false, last_ts: microsAt(NOW) })
		.persist();
	await expect(triggerHarness(waiting(), staticData, 'manual').poll()).rejects.toThrow(
		'Nobody is waiting',
	);
	nock.cleanAll();
});
