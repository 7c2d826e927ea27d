// Start From "Now": the first activation emits nothing old and anchors on the server's own cursor, whatever n8n's clock says.
import type { IDataObject } from 'n8n-workflow';

import {
	BOUND,
	chatRange,
	failPage,
	makeChat,
	microsAt,
	replyPage,
	triggerHarness,
} from './fixtures';
import { DAY, freezeClock, HOUR, NOW } from './clock';
import { ids } from '../../harness/fixtures';

const fromNow = { startFrom: 'now', emit: 'everyChange', output: 'raw' };

freezeClock();

test('the first run emits nothing and sets the cursor; the next run emits the changes', async () => {
	const staticData: IDataObject = {};
	const recent = replyPage(
		microsAt(NOW - HOUR),
		[
			makeChat(1, { createdAt: '2025-06-01T11:10:00.000Z' }),
			makeChat(2, { createdAt: '2025-06-01T11:40:00.000Z' }),
		],
		'1748778000000000',
	);
	expect(await triggerHarness(fromNow, staticData).poll()).toBeNull();
	expect(recent.isDone()).toBe(true);
	expect(staticData).toEqual({
		...BOUND,
		startedFrom: 'now',
		cursor: '1748778000000000',
		catchingUp: false,
		newChatsFrom: '2025-06-01T11:40:00.000Z',
	});

	replyPage('1748778000000000', [makeChat(2, { messages: 2 }), makeChat(3)], '1748778100000000');
	const changes = await triggerHarness(fromNow, staticData).poll();
	expect(ids(changes)).toEqual([2, 3]);
	expect(staticData.cursor).toBe('1748778100000000');
});

test("n8n's clock ahead of the server: an empty look-back is not trusted, a wider one anchors on a server cursor", async () => {
	const staticData: IDataObject = {};
	// The server has nothing after n8n's "an hour ago" and echoes that cursor back: storing it would skip real changes.
	replyPage(microsAt(NOW - HOUR), [], microsAt(NOW - HOUR));
	const wider = replyPage(microsAt(NOW - DAY), [makeChat(1)], '1748700000000000', true);
	const rest = replyPage('1748700000000000', [makeChat(2)], '1748700000000500', false);
	expect(await triggerHarness(fromNow, staticData).poll()).toBeNull();
	expect(wider.isDone() && rest.isDone()).toBe(true);
	expect(staticData.cursor).toBe('1748700000000500');
	expect(staticData.catchingUp).toBe(false);
});

test('an account without any chat anchors on the cursor the server gives for since=0', async () => {
	const staticData: IDataObject = {};
	for (const lookBack of [HOUR, DAY, 7 * DAY, 30 * DAY, 365 * DAY])
		replyPage(microsAt(NOW - lookBack), [], microsAt(NOW - lookBack));
	const fromZero = replyPage(0, [], 0);
	expect(await triggerHarness(fromNow, staticData).poll()).toBeNull();
	expect(fromZero.isDone()).toBe(true);
	expect(staticData).toEqual({ ...BOUND, startedFrom: 'now', cursor: '0', catchingUp: false });

	// The first chat ever is then a change like any other.
	replyPage(0, [makeChat(1)], 10);
	expect(ids(await triggerHarness(fromNow, staticData).poll())).toEqual([1]);
});

test('a long backlog is read over several polls, bounded by Max Chats per Poll, emitting nothing', async () => {
	// Server cursors after the look-back start: a cursor never moves backwards.
	const later = (micros: number) => String(NOW * 1000 + micros);
	const staticData: IDataObject = {};
	const parameters = { ...fromNow, options: { maxChatsPerPoll: 100 } };
	replyPage(microsAt(NOW - HOUR), chatRange(1, 100), later(1000), true);
	const nextPage = replyPage(later(1000), chatRange(101, 40), later(2000), false);

	expect(await triggerHarness(parameters, staticData).poll()).toBeNull();
	expect(nextPage.isDone()).toBe(false);
	expect(staticData).toMatchObject({ cursor: later(1000), catchingUp: true });

	expect(await triggerHarness(parameters, staticData).poll()).toBeNull();
	expect(staticData).toMatchObject({ cursor: later(2000), catchingUp: false });

	replyPage(later(2000), [makeChat(5, { messages: 3 })], later(3000));
	expect(ids(await triggerHarness(parameters, staticData).poll())).toEqual([5]);
});

test('a failing first request throws and stores nothing', async () => {
	const staticData: IDataObject = {};
	failPage(microsAt(NOW - HOUR));
	await expect(triggerHarness(fromNow, staticData).poll()).rejects.toThrow('(502)');
	expect(staticData).toEqual({});
});
