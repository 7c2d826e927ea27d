// "Fetch Test Event" (manual mode): a few recent chats to map fields from, and the stored cursor is never read or written.
import type { IDataObject } from 'n8n-workflow';

import type { Chat } from '../../../nodes/SvcChat/types';
import {
	chatRange,
	makeChat,
	microsAt,
	replyOperatorNames,
	replyPage,
	triggerHarness,
} from './fixtures';
import { DAY, freezeClock, HOUR, NOW } from './clock';
import { ids } from '../../harness/fixtures';
import { dropUnrequestedMocks } from '../../harness/nockSetup';

/** A server cursor after the look-back start (a cursor never moves backwards). */
const after = (micros: number) => String(NOW * 1000 + micros);

freezeClock();

const storedState = () => ({
	startedFrom: 'beginning',
	cursor: '123456',
	catchingUp: false,
	seenIds: ['1', '2'],
});

test('returns the 5 most recent chats and leaves static data untouched', async () => {
	const staticData: IDataObject = storedState();
	replyPage(microsAt(NOW - HOUR), [], microsAt(NOW - HOUR));
	replyPage(microsAt(NOW - DAY), chatRange(1, 8), '5000');
	const harness = triggerHarness(
		{ startFrom: 'beginning', emit: 'everyChange', output: 'raw' },
		staticData,
		'manual',
	);
	const items = await harness.poll();
	expect(ids(items)).toEqual([4, 5, 6, 7, 8]);
	expect(harness.context.getWorkflowStaticData).not.toHaveBeenCalled();
	expect(staticData).toEqual(storedState());
});

// Issue 42: the last hour held 2 chats and the test event showed 2, though the last day and week held more.
test('looks further back, a day, then a week, until it finds 5 chats', async () => {
	const lastHour = [makeChat(11), makeChat(12)];
	const lastDay = [makeChat(9), makeChat(10), ...lastHour];
	replyPage(microsAt(NOW - HOUR), lastHour, after(1));
	replyPage(microsAt(NOW - DAY), lastDay, after(1));
	replyPage(microsAt(NOW - 7 * DAY), [...chatRange(1, 8), ...lastDay], after(1));
	const items = await triggerHarness(
		{ startFrom: 'now', emit: 'everyChange', output: 'raw' },
		{},
		'manual',
	).poll();
	expect(ids(items)).toEqual([8, 9, 10, 11, 12]);
});

test('with fewer than 5 chats in a year, it shows those of the whole history', async () => {
	for (const lookBack of [HOUR, DAY, 7 * DAY, 30 * DAY, 365 * DAY])
		replyPage(microsAt(NOW - lookBack), [makeChat(3)], after(1));
	replyPage(0, chatRange(1, 3), after(1));
	const items = await triggerHarness(
		{ startFrom: 'now', emit: 'everyChange', output: 'raw' },
		{},
		'manual',
	).poll();
	expect(ids(items)).toEqual([1, 2, 3]);
});

test('a wider look-back is read within the same bound of 3 pages', async () => {
	replyPage(microsAt(NOW - HOUR), [makeChat(400)], after(1));
	replyPage(microsAt(NOW - DAY), chatRange(1, 100), after(1), true);
	replyPage(after(1), chatRange(101, 100), after(2), true);
	replyPage(after(2), chatRange(201, 100), after(3), true);
	const fourth = replyPage(after(3), chatRange(301, 100), after(4), true);
	const items = await triggerHarness(
		{ startFrom: 'now', emit: 'everyChange', output: 'raw' },
		{},
		'manual',
	).poll();
	expect(ids(items)).toEqual([296, 297, 298, 299, 300]);
	expect(fourth.isDone()).toBe(false);
	dropUnrequestedMocks();
});

test('reads at most 3 pages, never the whole history', async () => {
	const staticData: IDataObject = {};
	replyPage(microsAt(NOW - HOUR), chatRange(1, 100), after(1), true);
	replyPage(after(1), chatRange(101, 100), after(2), true);
	replyPage(after(2), chatRange(201, 100), after(3), true);
	const fourth = replyPage(after(3), chatRange(301, 100), after(4), true);
	const items = await triggerHarness(
		{ startFrom: 'now', emit: 'everyChange', output: 'raw' },
		staticData,
		'manual',
	).poll();
	expect(ids(items)).toEqual([296, 297, 298, 299, 300]);
	expect(fourth.isDone()).toBe(false);
	dropUnrequestedMocks();
	expect(staticData).toEqual({});
});

/** Fewer than a page in every look-back step: the sample is read from the whole history, `chats` as its one page. */
function onlyInHistory(chats: Chat[], lastTs: string) {
	for (const lookBack of [HOUR, DAY, 7 * DAY, 30 * DAY, 365 * DAY])
		replyPage(microsAt(NOW - lookBack), [], microsAt(NOW - lookBack));
	replyPage(0, chats, lastTs);
}

test('Finished Chats Only shows finished chats, looking back to a page of chats; Include Cursor shows its cursor', async () => {
	onlyInHistory(
		[
			makeChat(1, { states: ['closed'] }),
			makeChat(2),
			makeChat(3, { states: ['queue', 'closed'] }),
			makeChat(4),
			makeChat(5),
		],
		after(77),
	);
	replyOperatorNames();
	const items = await triggerHarness(
		{
			startFrom: 'now',
			emit: 'finishedChats',
			output: 'simplified',
			options: { includeCursor: true },
		},
		{},
		'manual',
	).poll();
	expect(items?.map((item) => [item.id, item.final_state, item.last_ts])).toEqual([
		['1', 'closed', after(77)],
		['3', 'closed', after(77)],
	]);
});

test('with no finished chat among the recent ones, it still shows recent chats so fields can be mapped', async () => {
	onlyInHistory(chatRange(1, 5), '77');
	const items = await triggerHarness(
		{ startFrom: 'now', emit: 'finishedChats', output: 'raw' },
		{},
		'manual',
	).poll();
	expect(ids(items)).toEqual([1, 2, 3, 4, 5]);
});

// Issue 59: New Chats Only showed the recently changed chats, as Every Change does, not the newest created.
test('New Chats Only shows the newest chats by their creation, newest first, whatever changed last', async () => {
	const created = (id: number, daysAgo: number) =>
		makeChat(id, { createdAt: new Date(NOW - daysAgo * DAY).toISOString() });
	onlyInHistory(
		[2, 9, 1, 8, 3, 7, 6].map((daysAgo, index) => created(index + 1, daysAgo)),
		'77',
	);
	const items = await triggerHarness(
		{ startFrom: 'now', emit: 'newChats', output: 'raw' },
		{},
		'manual',
	).poll();
	expect(ids(items)).toEqual([3, 1, 5, 7, 6]);
});

test('an account without chats gives a clear error instead of an empty result', async () => {
	for (const lookBack of [HOUR, DAY, 7 * DAY, 30 * DAY, 365 * DAY])
		replyPage(microsAt(NOW - lookBack), [], microsAt(NOW - lookBack));
	replyPage(0, [], 0);
	const staticData: IDataObject = storedState();
	await expect(
		triggerHarness(
			{ startFrom: 'now', emit: 'everyChange', output: 'raw' },
			staticData,
			'manual',
		).poll(),
	).rejects.toThrow('No chats found on the server');
	expect(staticData).toEqual(storedState());
});
