// The Emit modes: Every Change, Finished Chats Only and New Chats Only (with its bounded memory of seen chats).
import type { IDataObject } from 'n8n-workflow';

import { SEEN_IDS_CAP, rememberSeen, takeNewChats } from '../../../nodes/SvcChat/trigger/poll';
import { makeChat, microsAt, replyPage, triggerHarness } from './fixtures';
import { ids } from '../../harness/fixtures';

const settings = (emit: string, startFrom = 'beginning') => ({ startFrom, emit, output: 'raw' });

afterEach(() => jest.restoreAllMocks());

test('Every Change emits a chat again each time it changes', async () => {
	const staticData: IDataObject = {};
	replyPage(0, [makeChat(1), makeChat(2)], 100);
	expect(ids(await triggerHarness(settings('everyChange'), staticData).poll())).toEqual([1, 2]);
	replyPage(100, [makeChat(1, { messages: 2 })], 200);
	expect(await triggerHarness(settings('everyChange'), staticData).poll()).toEqual([
		makeChat(1, { messages: 2 }),
	]);
});

test('Finished Chats Only emits chats whose latest state is closed, and moves the cursor past the others', async () => {
	const staticData: IDataObject = {};
	replyPage(
		0,
		[
			makeChat(1, { states: ['queue', 'chatting', 'closed'] }),
			makeChat(2, { states: ['queue', 'chatting'] }),
			makeChat(3, { states: ['closed', 'chatting'] }), // reopened: its latest entry is not closed
			makeChat(4, { states: [] }),
		],
		100,
	);
	expect(ids(await triggerHarness(settings('finishedChats'), staticData).poll())).toEqual([1]);

	replyPage(100, [makeChat(2, { states: ['queue', 'chatting'], messages: 4 })], 200);
	expect(await triggerHarness(settings('finishedChats'), staticData).poll()).toBeNull();
	expect(staticData.cursor).toBe('200');

	replyPage(200, [makeChat(2, { states: ['queue', 'chatting', 'closed'], messages: 4 })], 300);
	expect(ids(await triggerHarness(settings('finishedChats'), staticData).poll())).toEqual([2]);
});

test('New Chats Only emits each chat once, the first time it is seen', async () => {
	const staticData: IDataObject = {};
	replyPage(0, [makeChat(1), makeChat(2)], 100);
	expect(ids(await triggerHarness(settings('newChats'), staticData).poll())).toEqual([1, 2]);
	expect(staticData.seenIds).toEqual(['1', '2']);

	replyPage(
		100,
		[makeChat(2, { messages: 5 }), makeChat(3), makeChat(1, { states: ['closed'] })],
		200,
	);
	expect(ids(await triggerHarness(settings('newChats'), staticData).poll())).toEqual([3]);
	expect(staticData.seenIds).toEqual(['2', '3', '1']);

	replyPage(200, [makeChat(3, { messages: 2 })], 300);
	expect(await triggerHarness(settings('newChats'), staticData).poll()).toBeNull();
	expect(staticData.cursor).toBe('300');
});

test('New Chats Only with a Specific Date leaves out chats created before it', async () => {
	const startDate = '2024-01-01T01:00:00.000Z';
	const staticData: IDataObject = {};
	replyPage(
		microsAt(Date.parse(startDate)),
		[
			makeChat('old', { createdAt: '2023-12-31T00:00:00.000Z' }),
			makeChat('new', { createdAt: '2024-01-01T02:00:00.000Z' }),
		],
		100,
	);
	const items = await triggerHarness(
		{ ...settings('newChats', 'date'), startDate },
		staticData,
	).poll();
	expect(ids(items)).toEqual(['new']);
	expect(staticData.seenIds).toEqual(['new']);
});

test('New Chats Only with Now: chats created before activation are not new when they change later', async () => {
	const NOW = Date.UTC(2025, 5, 1, 12);
	jest.spyOn(Date, 'now').mockReturnValue(NOW);
	const staticData: IDataObject = {};
	replyPage(
		microsAt(NOW - 3_600_000),
		[
			makeChat('a', { createdAt: '2025-05-20T08:00:00.000Z' }),
			makeChat('b', { createdAt: '2025-06-01T11:30:00.000Z' }),
		],
		String(NOW * 1000 + 1000),
	);
	expect(await triggerHarness(settings('newChats', 'now'), staticData).poll()).toBeNull();
	expect(staticData.newChatsFrom).toBe('2025-06-01T11:30:00.000Z');

	replyPage(
		String(NOW * 1000 + 1000),
		[
			makeChat('older', { createdAt: '2025-05-01T00:00:00.000Z' }), // never seen, but from before activation
			makeChat('b', { createdAt: '2025-06-01T11:30:00.000Z', messages: 2 }),
			makeChat('c', { createdAt: '2025-06-01T11:30:00.000Z' }), // same instant as the newest old chat, but unseen
			makeChat('d', { createdAt: '2025-06-01T12:05:00.000Z' }),
		],
		String(NOW * 1000 + 2000),
	);
	expect(ids(await triggerHarness(settings('newChats', 'now'), staticData).poll())).toEqual([
		'c',
		'd',
	]);
});

test('the seen list is capped: the least recently delivered ids are dropped first', () => {
	const full = Array.from({ length: SEEN_IDS_CAP }, (_, index) => String(index));
	const next = rememberSeen(full, ['0', 'x']);
	expect(next).toHaveLength(SEEN_IDS_CAP);
	expect(next.slice(-2)).toEqual(['0', 'x']); // '0' was delivered again, so it is kept
	expect(next).not.toContain('1'); // the least recently delivered goes
	expect(next[0]).toBe('2');
});

test('a chat whose id was dropped from the capped list is emitted again (a duplicate, never a loss)', () => {
	const state = {
		startedFrom: 'beginning',
		cursor: '0',
		catchingUp: false,
		seenIds: Array.from({ length: SEEN_IDS_CAP }, (_, i) => `s${i}`),
	};
	const first = takeNewChats(state, [makeChat('fresh')]);
	expect(first.chats.map((chat) => chat.id)).toEqual(['fresh']);
	expect(first.seenIds).toHaveLength(SEEN_IDS_CAP);
	expect(first.seenIds).not.toContain('s0');
	const next = { ...state, seenIds: first.seenIds };
	expect(takeNewChats(next, [makeChat('s0')]).chats.map((chat) => chat.id)).toEqual(['s0']);
});

test('a chat with an unreadable created_at is treated as new rather than dropped', () => {
	const state = {
		startedFrom: 'now',
		cursor: '0',
		catchingUp: false,
		newChatsFrom: '2025-01-01T00:00:00.000Z',
	};
	expect(
		takeNewChats(state, [makeChat(1, { createdAt: 'yesterday-ish' })]).chats.map((chat) => chat.id),
	).toEqual([1]);
});

test('takeNewChats returns the next seen list and leaves the state it is given untouched', () => {
	const state = { startedFrom: 'beginning', cursor: '0', catchingUp: false, seenIds: ['a'] };
	const { chats, seenIds } = takeNewChats(state, [makeChat('a'), makeChat('b')]);
	expect(chats.map((chat) => chat.id)).toEqual(['b']);
	expect(seenIds).toEqual(['a', 'b']);
	expect(state.seenIds).toEqual(['a']);
});
