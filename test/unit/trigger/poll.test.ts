// The trigger's cursor rules: paging, the per-poll bound, failures that never lose or repeat a chat, dedup, last_ts as sent.
import nock from 'nock';
import { DateTime } from 'luxon';
import type { IDataObject } from 'n8n-workflow';

import {
	BOUND,
	chatRange,
	failPage,
	fromBeginning,
	makeChat,
	replyOperatorNames,
	replyPage,
	triggerHarness,
} from './fixtures';
import { BASE_URL, ids } from '../../harness/fixtures';
import { dropUnrequestedMocks } from '../../harness/nockSetup';
import { toEpochMs } from '../../../nodes/SvcChat/helpers/time';

test('Beginning of History reads since=0 and pages across 3 pages in one poll', async () => {
	const staticData: IDataObject = {};
	const pages = [
		replyPage(0, chatRange(1, 100), 1000, true),
		replyPage(1000, chatRange(101, 100), 2000, true),
		replyPage(2000, chatRange(201, 50), 3000, false),
	];
	const items = await triggerHarness(fromBeginning, staticData).poll();
	expect(ids(items)).toEqual(chatRange(1, 250).map((chat) => chat.id));
	expect(pages.every((scope) => scope.isDone())).toBe(true);
	expect(staticData).toEqual({
		...BOUND,
		startedFrom: 'beginning',
		cursor: '3000',
		catchingUp: false,
	});

	// The next poll starts where this one stopped.
	const next = replyPage(3000, [makeChat(7, { messages: 2 })], 3100);
	const changes = await triggerHarness(fromBeginning, staticData).poll();
	expect(changes).toEqual([makeChat(7, { messages: 2 })]);
	expect(next.isDone()).toBe(true);
	expect(staticData.cursor).toBe('3100');
});

test('a poll due while the last one still runs gives way: each chat comes once, and the next poll goes on from where that one ended', async () => {
	const staticData: IDataObject = {};
	// The first poll's page comes late; n8n starts the next poll when it is due, without waiting. The server would answer
	// the second poll the same page.
	const page = { chats: chatRange(1, 3), more_chats_available: false, last_ts: 300 };
	const server = nock(BASE_URL)
		.get('/api/v2/chats')
		.query({ since: '0' })
		.times(2)
		.delay(200)
		.reply(200, page);
	const first = triggerHarness(fromBeginning, staticData);
	const second = triggerHarness(fromBeginning, staticData);
	const [items, skipped] = await Promise.all([first.poll(), second.poll()]);
	expect(ids(items)).toEqual([1, 2, 3]);
	expect(skipped).toBeNull();
	expect(server.pendingMocks()).toHaveLength(1);
	expect(second.logger.warn).toHaveBeenCalledWith(
		expect.stringContaining('the previous poll is still running, so this one was skipped'),
	);
	dropUnrequestedMocks();
	const next = replyPage(300, [makeChat(9)], 400);
	expect(ids(await triggerHarness(fromBeginning, staticData).poll())).toEqual([9]);
	expect(next.isDone()).toBe(true);
});

test('a poll with nothing new returns null but still takes the server cursor', async () => {
	const staticData: IDataObject = { startedFrom: 'beginning', cursor: '500', catchingUp: false };
	replyPage(500, [], 500);
	expect(await triggerHarness(fromBeginning, staticData).poll()).toBeNull();
	expect(staticData).toEqual({
		...BOUND,
		startedFrom: 'beginning',
		cursor: '500',
		catchingUp: false,
	});
});

test('Max Chats per Poll stops at the end of the page that reaches it; the rest follows on the next poll', async () => {
	const staticData: IDataObject = {};
	const parameters = { ...fromBeginning, options: { maxChatsPerPoll: 150 } };
	replyPage(0, chatRange(1, 100), 1000, true);
	replyPage(1000, chatRange(101, 100), 2000, true);
	const third = replyPage(2000, chatRange(201, 100), 3000, false);

	const first = await triggerHarness(parameters, staticData).poll();
	expect(ids(first)).toEqual(chatRange(1, 200).map((chat) => chat.id));
	expect(third.isDone()).toBe(false);
	expect(staticData.cursor).toBe('2000');

	const second = await triggerHarness(parameters, staticData).poll();
	expect(ids(second)).toEqual(chatRange(201, 100).map((chat) => chat.id));
	expect(staticData.cursor).toBe('3000');
});

test("n8n's poll budget stops paging early, after at least one page", async () => {
	const staticData: IDataObject = {};
	replyPage(0, chatRange(1, 100), 1000, true);
	const second = replyPage(1000, chatRange(101, 10), 2000, false);
	const harness = triggerHarness(fromBeginning, staticData);
	harness.context.getPollBudgetMs.mockReturnValue(0);
	expect(await harness.poll()).toHaveLength(100);
	expect(second.isDone()).toBe(false);
	expect(staticData.cursor).toBe('1000');
	dropUnrequestedMocks();
});

test('page 2 failing after retries returns page 1; the next poll resumes at page 2, losing and repeating nothing', async () => {
	const staticData: IDataObject = { startedFrom: 'beginning', cursor: '100', catchingUp: false };
	replyPage(100, chatRange(1, 100), 1000, true);
	const failing = failPage(1000);

	const harness = triggerHarness(fromBeginning, staticData);
	const first = await harness.poll();
	expect(failing.isDone()).toBe(true); // one try and three retries
	expect(ids(first)).toEqual(chatRange(1, 100).map((chat) => chat.id));
	expect(staticData.cursor).toBe('1000');
	expect(harness.logger.warn).toHaveBeenCalledWith(
		expect.stringContaining('next poll resumes at cursor 1000'),
	);

	replyPage(1000, chatRange(101, 100), 2000, true);
	replyPage(2000, chatRange(201, 20), 3000, false);
	const second = await triggerHarness(fromBeginning, staticData).poll();
	expect(ids(second)).toEqual(chatRange(101, 120).map((chat) => chat.id));

	const emitted = [...ids(first), ...ids(second)];
	expect(new Set(emitted).size).toBe(emitted.length);
	expect(emitted).toEqual(chatRange(1, 220).map((chat) => chat.id));
	expect(staticData.cursor).toBe('3000');
});

test('the first page failing throws, so n8n shows the error, and leaves the stored state untouched', async () => {
	const stored = { startedFrom: 'beginning', cursor: '4200', catchingUp: false };
	const staticData: IDataObject = { ...stored };
	const failing = failPage(4200);
	await expect(triggerHarness(fromBeginning, staticData).poll()).rejects.toThrow(
		'The server cannot process the request (502)',
	);
	expect(failing.isDone()).toBe(true);
	expect(staticData).toEqual(stored);
});

test('an API error on the first page (not retried) also throws and keeps the cursor', async () => {
	const stored = { startedFrom: 'beginning', cursor: '4200', catchingUp: false };
	const staticData: IDataObject = { ...stored };
	nock(BASE_URL)
		.get('/api/v2/chats')
		.query({ since: '4200' })
		.reply(200, { error: 'no-tariff-option' });
	await expect(triggerHarness(fromBeginning, staticData).poll()).rejects.toThrow();
	expect(staticData).toEqual(stored);
});

test('a chat delivered twice within one poll is emitted once, in its latest version, at its latest position', async () => {
	const staticData: IDataObject = {};
	replyPage(0, [makeChat(1), makeChat(2), makeChat(3)], 1000, true);
	replyPage(
		1000,
		[makeChat(4), makeChat(1, { messages: 3, states: ['chatting', 'closed'] })],
		2000,
		false,
	);
	const items = await triggerHarness(fromBeginning, staticData).poll();
	expect(ids(items)).toEqual([2, 3, 4, 1]);
	expect(items?.[3]).toEqual(makeChat(1, { messages: 3, states: ['chatting', 'closed'] }));
});

test('last_ts given as a number is stored as a string and passed back', async () => {
	const staticData: IDataObject = {};
	replyPage(0, [makeChat(1)], 1700000000000123, false);
	await triggerHarness(fromBeginning, staticData).poll();
	expect(staticData.cursor).toBe('1700000000000123');

	const next = replyPage('1700000000000123', [makeChat(2)], 1700000000000456);
	expect(ids(await triggerHarness(fromBeginning, staticData).poll())).toEqual([2]);
	expect(next.isDone()).toBe(true);
});

test('last_ts given as a string is stored and passed back exactly as sent, even where a number would differ', async () => {
	const staticData: IDataObject = {};
	const asSent = '00017000000000000123'; // leading zeros, and 20 digits: beyond what a JavaScript number holds exactly
	replyPage(0, [makeChat(1)], asSent, false);
	await triggerHarness(fromBeginning, staticData).poll();
	expect(staticData.cursor).toBe(asSent);

	const next = replyPage(asSent, [makeChat(2)], '17000000000000000456');
	expect(ids(await triggerHarness(fromBeginning, staticData).poll())).toEqual([2]);
	expect(next.isDone()).toBe(true);
	expect(staticData.cursor).toBe('17000000000000000456');
});

test('Include Cursor adds the cursor the poll stopped at to every item, in every output mode', async () => {
	replyPage(0, [makeChat(1, { messages: 2 })], 1000, true);
	replyPage(1000, [makeChat(2, { messages: 1 })], '2000', false);
	const items = await triggerHarness(
		{ ...fromBeginning, output: 'messages', options: { includeCursor: true } },
		{},
	).poll();
	expect(items?.map((item) => [item.chat_id, item.message_id, item.last_ts])).toEqual([
		[1, '1-m1', '2000'],
		[1, '1-m2', '2000'],
		[2, '2-m1', '2000'],
	]);
});

test('Simplified output uses the shared chat formatter, response times included', async () => {
	const chat = makeChat(5, { messages: 4, states: ['queue', 'chatting', 'closed'] });
	// Created at 00:05; the visitor writes at 00:06, the operator answers at 00:08; in queue 30 s; closed at 00:20.
	const minute = (m: number, s = 0) => `2024-01-01T00:${String(m).padStart(2, '0')}:${s}0Z`;
	chat.messages!.forEach((message, index) => (message.created_at = minute(6 + 2 * index)));
	[minute(5), minute(5, 3), minute(20)].forEach(
		(when, index) => (chat.state_history![index].at = when),
	);
	replyPage(0, [chat], 1000);
	replyOperatorNames();
	const items = await triggerHarness({ ...fromBeginning, output: 'simplified' }, {}).poll();
	expect(items).toEqual([
		expect.objectContaining({
			id: '5',
			operator_id: 7,
			operator_name: 'Anna Petrova',
			final_state: 'closed',
			message_count: 4,
			visitor_id: 'visitor-5',
			first_response_seconds: 120,
			queue_seconds: 30,
			duration_seconds: 900,
			last_activity_at: minute(20),
		}),
	]);
});

test('changing Start From on an active workflow takes effect: the cursor restarts from the new point', async () => {
	const staticData: IDataObject = { startedFrom: 'beginning', cursor: '9000', catchingUp: false };
	const startDate = '2024-03-01T00:00:00.000Z';
	const dateCursor = String(Date.parse(startDate) * 1000);
	const fromDate = replyPage(
		dateCursor,
		[makeChat(1, { createdAt: '2024-03-02T00:00:00.000Z' })],
		'1709400000000000',
	);
	const parameters = { startFrom: 'date', startDate, emit: 'everyChange', output: 'raw' };
	expect(ids(await triggerHarness(parameters, staticData).poll())).toEqual([1]);
	expect(fromDate.isDone()).toBe(true);
	expect(staticData).toEqual({
		...BOUND,
		startedFrom: `date:${dateCursor}`,
		cursor: '1709400000000000',
		catchingUp: false,
		newChatsFrom: startDate,
	});

	// Unchanged settings keep the cursor; going back to Beginning of History starts from 0 again.
	replyPage('1709400000000000', [], '1709400000000000');
	expect(await triggerHarness(parameters, staticData).poll()).toBeNull();
	replyPage(0, [makeChat(9)], 100);
	expect(ids(await triggerHarness(fromBeginning, staticData).poll())).toEqual([9]);
	expect(staticData).toEqual({
		...BOUND,
		startedFrom: 'beginning',
		cursor: '100',
		catchingUp: false,
	});
});

test("a Start Date without a time zone (as n8n's date picker gives it) is read as UTC", async () => {
	const staticData: IDataObject = {};
	const scope = replyPage(String(Date.UTC(2024, 2, 1) * 1000), [], '5');
	await triggerHarness(
		{ startFrom: 'date', startDate: '2024-03-01T00:00:00', emit: 'everyChange', output: 'raw' },
		staticData,
	).poll();
	expect(scope.isDone()).toBe(true);
	expect(staticData.startedFrom).toBe(`date:${Date.UTC(2024, 2, 1) * 1000}`);
});

test('an invalid Start Date is a clear parameter error, before any request', async () => {
	const staticData: IDataObject = {};
	await expect(
		triggerHarness(
			{ startFrom: 'date', startDate: 'not a date', emit: 'everyChange', output: 'raw' },
			staticData,
		).poll(),
	).rejects.toThrow("'Start Date' is not a valid date");
	expect(staticData).toEqual({});
});

test('a Start Date from an expression ({{ $now.minus(…) }}), as a Luxon DateTime or its text, is read as that moment', async () => {
	// Midnight in Berlin, 23:00 UTC the day before.
	const startDate = DateTime.fromISO('2024-03-01T00:00:00', { zone: 'Europe/Berlin' });
	const moment = Date.UTC(2024, 1, 29, 23);
	expect(toEpochMs(startDate)).toBe(moment);
	const staticData: IDataObject = {};
	const scope = replyPage(String(moment * 1000), [], '5');
	const parameters = { startFrom: 'date', startDate: startDate.toString(), emit: 'newChats' };
	await triggerHarness({ ...parameters, output: 'raw' }, staticData).poll();
	expect(scope.isDone()).toBe(true);
	expect(staticData.newChatsFrom).toBe('2024-02-29T23:00:00.000Z');
});

test('a stored state that is not ours (or damaged) is replaced by a fresh start', async () => {
	const staticData: IDataObject = { startedFrom: 'beginning', cursor: 'abc', catchingUp: false };
	const scope = replyPage(0, [makeChat(1)], 10);
	await triggerHarness(fromBeginning, staticData).poll();
	expect(scope.isDone()).toBe(true);
	expect(staticData.cursor).toBe('10');
});
