// New Rating: each rating once (its identity, the starting point, the Ratings filter, the bounded memory, restarts).
import nock from 'nock';
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { SEEN_EVENTS_CAP, takeUnseen } from '../../../nodes/SvcChat/trigger/poll';
import type { Chat, Rate } from '../../../nodes/SvcChat/types';
import { BASE_URL } from '../../harness/fixtures';
import { dropUnrequestedMocks } from '../../harness/nockSetup';
import {
	everyOperatorsRequest,
	failPage,
	makeChat,
	microsAt,
	replyPage,
	triggerHarness,
	type ChatShape,
} from './fixtures';
import { DAY, freezeClock, HOUR, NOW } from './clock';

freezeClock();

/** GET /operators, which names the rated operators once per poll that has a rating to emit. */
let operatorReads: { requests: number };
beforeEach(() => (operatorReads = everyOperatorsRequest()));

const newRating = (more: INodeParameters = {}) => ({
	startFrom: 'beginning',
	emit: 'newRating',
	chatOutput: 'raw',
	...more,
});

const rate = (value: unknown, createdAt?: unknown, operatorId = 7) =>
	({ rate: value, operator_id: operatorId, created_at: createdAt }) as Rate;

const rated = (id: number | string, rates: Rate[], shape?: ChatShape): Chat => ({
	...makeChat(id, shape),
	rates,
});

/** What an item says of its rating, without detected_at and the chat. */
const ratingsOf = (items: IDataObject[] | null) =>
	(items ?? []).map(({ chat_id, rating, operator_id, rated_at }) => [
		chat_id,
		rating,
		operator_id,
		rated_at,
	]);

const AT = '2025-05-01T10:00:00.000Z';
const LATER = '2025-05-01T11:00:00.000Z';

test("an item per rating: the chat id, the rating, the rated operator's id and name, its time, detected_at and the chat", async () => {
	const chat = rated(1, [rate(5, AT, 3)]);
	replyPage(0, [chat], 100);
	expect(await triggerHarness(newRating(), {}).poll()).toEqual([
		{
			chat_id: 1,
			rating: 5,
			operator_id: 3,
			rated_at: AT,
			operator_name: 'Dmitri Sokolov',
			detected_at: new Date(NOW).toISOString(),
			chat,
		},
	]);
	expect(operatorReads.requests).toBe(1);
});

describe("the rated operator's name", () => {
	test('one GET /operators per poll, shared with Transcript; none when no rating is emitted', async () => {
		const staticData: IDataObject = {};
		const chats = [
			rated(1, [rate(1, AT, 3), rate(2, AT, 7)]),
			rated(2, [rate(5, AT, '7' as unknown as number)]),
		];
		replyPage(0, chats, 100);
		const parameters = newRating({ chatOutput: 'transcript' });
		const items = (await triggerHarness(parameters, staticData).poll())!;
		// Looked up by the id as sent, a number or its text; an operator GET /operators does not list is null.
		expect(items.map((item) => item.operator_name)).toEqual([
			'Dmitri Sokolov',
			'Anna Petrova',
			'Anna Petrova',
		]);
		expect(String((items[0].chat as IDataObject).transcript)).toMatch(/^Chat 1, times in /);
		expect(operatorReads.requests).toBe(1);
		replyPage(100, [rated(1, [rate(1, AT, 3), rate(2, AT, 7)], { messages: 2 })], 200);
		replyPage(200, [rated(3, [rate(4, AT, 99)])], 300);
		expect(await triggerHarness(parameters, staticData).poll()).toBeNull();
		const [unknown] = (await triggerHarness(newRating(), staticData).poll())!;
		expect(unknown.operator_name).toBeNull();
		expect(operatorReads.requests).toBe(2);
	});

	test('a failed GET /operators fails the poll and keeps the place: the next poll emits the ratings, named', async () => {
		dropUnrequestedMocks();
		const staticData: IDataObject = {};
		replyPage(0, [rated(1, [rate(1, AT, 3)])], 100);
		// The first try and its 3 retries.
		nock(BASE_URL).get('/api/v2/operators').times(4).reply(502, 'Bad Gateway');
		await expect(triggerHarness(newRating(), staticData).poll()).rejects.toMatchObject({
			description: expect.stringMatching(/the ratings come at the next poll that reads them/),
		});
		expect(staticData).toEqual({});
		replyPage(0, [rated(1, [rate(1, AT, 3)])], 100);
		operatorReads = everyOperatorsRequest();
		const items = await triggerHarness(newRating(), staticData).poll();
		expect(items?.map((item) => item.operator_name)).toEqual(['Dmitri Sokolov']);
		expect(staticData.cursor).toBe('100');
	});
});

test('Chat Output shapes the chat each item carries, and Include Cursor adds where the poll stopped', async () => {
	replyPage(0, [rated(1, [rate(4, AT)], { states: ['queue', 'closed'] })], 100);
	const parameters = newRating({ chatOutput: 'simplified', options: { includeCursor: true } });
	const [item] = (await triggerHarness(parameters, {}).poll())!;
	expect(item.chat).toMatchObject({ id: '1', final_state: 'closed', average_rate: 4 });
	expect(item.chat).not.toHaveProperty('rates');
	expect(item.last_ts).toBe('100');
});

test('a chat delivered again for another change, or a new rating, emits no rating twice', async () => {
	const staticData: IDataObject = {};
	replyPage(0, [rated(1, [rate(5, AT)]), rated(2, [])], 100);
	expect(ratingsOf(await triggerHarness(newRating(), staticData).poll())).toEqual([[1, 5, 7, AT]]);

	// A message and a closing: the chat comes again with the same rating.
	replyPage(100, [rated(1, [rate(5, AT)], { messages: 3, states: ['closed'] })], 200);
	expect(await triggerHarness(newRating(), staticData).poll()).toBeNull();
	expect(staticData.cursor).toBe('200');

	// A second rating, of another operator: only it is new.
	replyPage(200, [rated(1, [rate(5, AT), rate(2, LATER, 8)], { messages: 3 })], 300);
	expect(ratingsOf(await triggerHarness(newRating(), staticData).poll())).toEqual([
		[1, 2, 8, LATER],
	]);
	replyPage(300, [rated(1, [rate(5, AT), rate(2, LATER, 8)], { messages: 4 })], 400);
	expect(await triggerHarness(newRating(), staticData).poll()).toBeNull();
});

test('two equal ratings in one chat are two ratings: each is emitted once, and a third equal one is new', async () => {
	const staticData: IDataObject = {};
	replyPage(0, [rated(1, [rate(3, AT), rate(3, AT)]), rated(2, [rate(3, AT)])], 100);
	// Equal ratings of another chat are other ratings too.
	expect(ratingsOf(await triggerHarness(newRating(), staticData).poll())).toEqual([
		[1, 3, 7, AT],
		[1, 3, 7, AT],
		[2, 3, 7, AT],
	]);
	replyPage(100, [rated(1, [rate(3, AT), rate(3, AT)], { messages: 2 })], 200);
	expect(await triggerHarness(newRating(), staticData).poll()).toBeNull();
	replyPage(200, [rated(1, [rate(3, AT), rate(3, AT), rate(3, AT)], { messages: 2 })], 300);
	expect(ratingsOf(await triggerHarness(newRating(), staticData).poll())).toEqual([[1, 3, 7, AT]]);
});

test('a rating without a readable created_at is new even after the Start Date, and emitted once by its identity', async () => {
	const startDate = '2025-05-01T09:00:00.000Z';
	const staticData: IDataObject = {};
	const rates = [rate(1, '2025-04-30T00:00:00.000Z'), rate(2), rate(3, 'last week'), rate(4, AT)];
	const from = microsAt(Date.parse(startDate));
	replyPage(from, [rated(1, rates)], `${from}1`);
	const parameters = newRating({ startFrom: 'date', startDate });
	expect(ratingsOf(await triggerHarness(parameters, staticData).poll())).toEqual([
		[1, 2, 7, null],
		[1, 3, 7, 'last week'],
		[1, 4, 7, AT],
	]);
	replyPage(`${from}1`, [rated(1, rates, { messages: 2 })], `${from}2`);
	expect(await triggerHarness(parameters, staticData).poll()).toBeNull();
});

test('a value outside 1 to 5 is passed on as sent by default; a set range matches only the numbers in it', async () => {
	const rates = [rate(0, AT), rate(7, AT), rate('5', AT), rate(null, AT), rate(2, AT), rate(1, AT)];
	replyPage(0, [rated(1, rates)], 100);
	const every = await triggerHarness(newRating(), {}).poll();
	expect(every?.map((item) => item.rating)).toEqual([0, 7, '5', null, 2, 1]);

	const staticData: IDataObject = {};
	replyPage(0, [rated(1, rates)], 100);
	const bad = newRating({ ratings: { range: { from: 1, to: 2 } } });
	expect((await triggerHarness(bad, staticData).poll())?.map((item) => item.rating)).toEqual([
		2, 1,
	]);
	// Those passed over are remembered too: widening the range later does not bring them back as new.
	replyPage(100, [rated(1, [...rates, rate(5, LATER)], { messages: 2 })], 200);
	const wide = newRating({ ratings: { range: { from: 1, to: 5 } } });
	expect(ratingsOf(await triggerHarness(wide, staticData).poll())).toEqual([[1, 5, 7, LATER]]);
});

test.each([
	['backwards', { from: 5, to: 1 }, 'from 5 to 1'],
	['below 1', { from: 0, to: 2 }, 'from 0 to 2'],
	['above 5', { from: 4, to: 6 }, 'from 4 to 6'],
	['not whole', { from: 1.5, to: 2 }, 'from 1.5 to 2'],
	['text', { from: '1', to: 2 }, 'from "1" to 2'],
])(
	'a Ratings range %s is an error that names the field and the fix, and changes nothing',
	async (_case, range, shown) => {
		const staticData: IDataObject = { startedFrom: 'beginning', cursor: '5', catchingUp: false };
		const before = structuredClone(staticData);
		const poll = triggerHarness(newRating({ ratings: { range } }), staticData).poll();
		await expect(poll).rejects.toThrow(
			`'Ratings' must be whole numbers from 1 to 5, 'From' not above 'To': not ${shown}`,
		);
		await expect(poll).rejects.toHaveProperty(
			'description',
			expect.stringMatching(/'From' and 'To' between 1 and 5, e\.g\. 1 to 2 .*remove the range/),
		);
		expect(staticData).toEqual(before);
	},
);

describe('the first poll, by Start From', () => {
	const rates = [rate(1, '2019-03-01T00:00:00.000Z'), rate(5, AT)];

	test('Beginning of History: every rating, however old', async () => {
		replyPage(0, [rated(1, rates)], 100);
		expect(ratingsOf(await triggerHarness(newRating(), {}).poll())).toEqual([
			[1, 1, 7, '2019-03-01T00:00:00.000Z'],
			[1, 5, 7, AT],
		]);
	});

	test('Specific Date: ratings given from that date on', async () => {
		const startDate = '2025-01-01T00:00:00.000Z';
		replyPage(microsAt(Date.parse(startDate)), [rated(1, rates)], 100);
		const parameters = newRating({ startFrom: 'date', startDate });
		expect(ratingsOf(await triggerHarness(parameters, {}).poll())).toEqual([[1, 5, 7, AT]]);
	});

	test("Now: nothing at activation, then ratings from the server's position, not n8n's clock", async () => {
		// The server's clock is two hours behind n8n's: its last hour is empty, its position is NOW - 2 h.
		const position = NOW - 2 * HOUR;
		const staticData: IDataObject = {};
		const parameters = newRating({ startFrom: 'now' });
		replyPage(microsAt(NOW - HOUR), [], microsAt(NOW - HOUR));
		replyPage(microsAt(NOW - DAY), [rated(1, [rate(5, AT)])], microsAt(position));
		expect(await triggerHarness(parameters, staticData).poll()).toBeNull();
		expect(staticData).toMatchObject({ cursor: microsAt(position), catchingUp: false });

		const iso = (ms: number) => new Date(ms).toISOString();
		const before = rate(1, iso(position - HOUR));
		const after = rate(2, iso(position + HOUR / 2)); // before n8n's clock, after the server's position
		replyPage(microsAt(position), [rated(1, [rate(5, AT), before, after], { messages: 2 })], 900);
		expect(ratingsOf(await triggerHarness(parameters, staticData).poll())).toEqual([
			[1, 2, 7, iso(position + HOUR / 2)],
		]);
		expect(staticData.events).toMatchObject({ of: 'newRating', from: iso(position) });
	});
});

test("switched to New Rating on an active trigger (Now), it starts at the trigger's place; each event keeps its own memory", async () => {
	const place = Date.parse(LATER);
	const staticData: IDataObject = {
		startedFrom: 'now',
		cursor: microsAt(place),
		catchingUp: false,
	};
	const later = (step: number) => String(place * 1000 + step);
	replyPage(
		microsAt(place),
		[rated(1, [rate(5, AT), rate(4, '2025-05-01T11:30:00.000Z')])],
		later(1),
	);
	expect(
		ratingsOf(await triggerHarness(newRating({ startFrom: 'now' }), staticData).poll()),
	).toEqual([[1, 4, 7, '2025-05-01T11:30:00.000Z']]);

	// Every Change keeps the memory; back on New Rating, nothing is told twice.
	replyPage(later(1), [rated(1, [rate(4, '2025-05-01T11:30:00.000Z')], { messages: 2 })], later(2));
	const everyChange = { startFrom: 'now', emit: 'everyChange', output: 'raw' };
	expect(await triggerHarness(everyChange, staticData).poll()).toHaveLength(1);
	replyPage(later(2), [rated(1, [rate(4, '2025-05-01T11:30:00.000Z')], { messages: 3 })], later(3));
	expect(await triggerHarness(newRating({ startFrom: 'now' }), staticData).poll()).toBeNull();
});

test('a failed poll emits nothing and keeps the state, so the next poll emits each rating once', async () => {
	const staticData: IDataObject = {};
	replyPage(0, [rated(1, [rate(5, AT)])], 100);
	await triggerHarness(newRating(), staticData).poll();
	const before = structuredClone(staticData);
	failPage(100);
	await expect(triggerHarness(newRating(), staticData).poll()).rejects.toThrow('(502)');
	expect(staticData).toEqual(before);

	replyPage(100, [rated(1, [rate(5, AT), rate(1, LATER)], { messages: 2 })], 200);
	expect(ratingsOf(await triggerHarness(newRating(), staticData).poll())).toEqual([
		[1, 1, 7, LATER],
	]);
});

test('across restarts: the state n8n saves as JSON and reads back emits no rating twice', async () => {
	let saved = '{}';
	const pollAfterRestart = async () => {
		const staticData = JSON.parse(saved) as IDataObject;
		const items = await triggerHarness(newRating(), staticData).poll();
		saved = JSON.stringify(staticData);
		return ratingsOf(items);
	};
	replyPage(0, [rated(1, [rate(5, AT)]), rated(2, [rate(3, AT), rate(3, AT)])], 100);
	expect(await pollAfterRestart()).toHaveLength(3);
	replyPage(
		100,
		[rated(2, [rate(3, AT), rate(3, AT)], { messages: 2 }), rated(1, [rate(5, AT)])],
		200,
	);
	expect(await pollAfterRestart()).toEqual([]);
	// The memory holds digests, not the ratings' text.
	expect(saved).not.toContain(AT);
});

describe('the bound: at most SEEN_EVENTS_CAP digests, least recently delivered dropped first', () => {
	test('at the cap, a dropped rating whose chat comes again is emitted again: a duplicate, never a loss', async () => {
		const staticData: IDataObject = {};
		replyPage(0, [rated(1, [rate(5, AT)])], 100);
		await triggerHarness(newRating(), staticData).poll();
		const events = staticData.events as { seen: string[] };
		const fillers = Array.from({ length: SEEN_EVENTS_CAP - 1 }, (_, i) => `filler-${i}`);
		events.seen = [...events.seen, ...fillers];

		// Another chat's rating fills the last place: chat 1's, the least recently delivered, is dropped.
		replyPage(100, [rated(2, [rate(4, AT)])], 200);
		expect(ratingsOf(await triggerHarness(newRating(), staticData).poll())).toEqual([
			[2, 4, 7, AT],
		]);
		expect((staticData.events as { seen: string[] }).seen).toHaveLength(SEEN_EVENTS_CAP);
		// 10,000 digests of 16 characters: the static data n8n saves each poll stays under 200 kB.
		expect(JSON.stringify(staticData).length).toBeLessThan(200_000);

		replyPage(200, [rated(1, [rate(5, AT)], { messages: 2 })], 300);
		expect(ratingsOf(await triggerHarness(newRating(), staticData).poll())).toEqual([
			[1, 5, 7, AT],
		]);
	});

	test('a key delivered again moves to the most recent end, so it is dropped last', () => {
		const full = Array.from({ length: SEEN_EVENTS_CAP }, (_, i) => String(i));
		const found = ['0', 'new'].map((key) => ({ key, at: AT }));
		const { fresh, seen } = takeUnseen(found, undefined, full, SEEN_EVENTS_CAP);
		expect(fresh.map(({ key }) => key)).toEqual(['new']);
		expect(seen).toHaveLength(SEEN_EVENTS_CAP);
		expect(seen.slice(-2)).toEqual(['0', 'new']);
		expect(seen[0]).toBe('2');
	});
});

describe('Fetch Test Event', () => {
	const sample = (parameters: INodeParameters, staticData: IDataObject = {}) =>
		triggerHarness(parameters, staticData, 'manual').poll();

	test('shows the 5 newest ratings of recently changed chats and leaves the state alone', async () => {
		const staticData: IDataObject = { startedFrom: 'beginning', cursor: '7', catchingUp: false };
		// The last hour holds fewer chats than a page: the look-back widens to the day, whose pages are read on.
		replyPage(microsAt(NOW - HOUR), [rated(9, [rate(1, AT)])], microsAt(NOW));
		const more = true;
		const day = [rated(1, [rate(1, AT), rate(2, AT), rate(3, AT)]), rated(2, [])];
		replyPage(microsAt(NOW - DAY), day, microsAt(NOW - HOUR), more);
		replyPage(
			microsAt(NOW - HOUR),
			[rated(3, [rate(4, AT), rate(5, AT), rate(1, LATER)])],
			microsAt(NOW),
		);
		const items = await sample(newRating(), staticData);
		expect(ratingsOf(items)).toEqual([
			[3, 1, 7, LATER],
			[3, 5, 7, AT],
			[3, 4, 7, AT],
			[1, 3, 7, AT],
			[1, 2, 7, AT],
		]);
		expect(staticData).toEqual({ startedFrom: 'beginning', cursor: '7', catchingUp: false });
	});

	test("the newest by rated_at, not by their chat's latest change", async () => {
		const older = (day: number) => new Date(NOW - day * DAY).toISOString();
		// Chat 2 changed last (a late message) but was rated weeks ago: its rating is not among the newest.
		const chats = [
			rated(1, [rate(5, older(6)), rate(4, older(5)), rate(3, older(4))]),
			rated(3, [rate(2, older(3)), rate(1, older(2)), rate(2, older(1))]),
			rated(2, [rate(1, older(20))]),
		];
		for (const lookBack of [HOUR, DAY, 7 * DAY, 30 * DAY, 365 * DAY])
			replyPage(microsAt(NOW - lookBack), [], microsAt(NOW));
		replyPage(0, chats, microsAt(NOW));
		expect(ratingsOf(await sample(newRating()))).toEqual([
			[3, 2, 7, older(1)],
			[3, 1, 7, older(2)],
			[3, 2, 7, older(3)],
			[1, 3, 7, older(4)],
			[1, 4, 7, older(5)],
		]);
	});

	test('with none in the Ratings range, it shows the others; with no rating at all, it says so', async () => {
		for (const lookBack of [HOUR, DAY, 7 * DAY, 30 * DAY, 365 * DAY])
			replyPage(microsAt(NOW - lookBack), [], microsAt(NOW));
		replyPage(0, [rated(1, [rate(5, AT)])], microsAt(NOW));
		const good = await sample(newRating({ ratings: { range: { from: 1, to: 2 } } }));
		expect(ratingsOf(good)).toEqual([[1, 5, 7, AT]]);

		for (const lookBack of [HOUR, DAY, 7 * DAY, 30 * DAY, 365 * DAY])
			replyPage(microsAt(NOW - lookBack), [], microsAt(NOW));
		replyPage(0, [rated(1, []), rated(2, [])], microsAt(NOW));
		await expect(sample(newRating())).rejects.toThrow('No rating found in recently changed chats');
	});
});
