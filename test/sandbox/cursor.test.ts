// Spec 4.6 cursor semantics: each chat exactly once per walk, at most 100 per reply, redelivery after a change.
import { startSandbox, type Sandbox } from '../../sandbox';
import type { Chat, ChatsReply } from '../../nodes/SvcChat/types';
import { get, manualClock } from './client';

const clock = manualClock('2025-06-01T08:00:00.000Z');
let sandbox: Sandbox;

beforeAll(async () => {
	sandbox = await startSandbox({ seed: 11, chats: 1000, now: clock.now });
});
afterAll(async () => await sandbox.stop());
beforeEach(() => {
	clock.set('2025-06-01T08:00:00.000Z');
	sandbox.control.reset();
});

async function page(since: string | number, target: Sandbox = sandbox): Promise<ChatsReply> {
	const reply = await get(target, 'chats', { since: String(since) });
	expect(reply.status).toBe(200);
	return reply.json as ChatsReply;
}

/** Follows last_ts while more_chats_available is true, as rule 3 says; calls `between` after each page. */
async function walk(since: string | number, between: (pageNumber: number) => void = () => {}) {
	const pages: ChatsReply[] = [];
	let cursor = since;
	for (;;) {
		const current = await page(cursor);
		pages.push(current);
		between(pages.length);
		cursor = current.last_ts;
		if (!current.more_chats_available)
			return { pages, chats: pages.flatMap((p) => p.chats), lastTs: cursor };
	}
}

const idsOf = (chats: Chat[]) => chats.map((chat) => String(chat.id));

test('paging 1,000 chats from 0 yields each exactly once, at most 100 per reply, with a rising cursor', async () => {
	const { pages, chats, lastTs } = await walk(0);
	expect(pages.length).toBe(10);
	for (const current of pages) expect(current.chats.length).toBeLessThanOrEqual(100);
	expect(pages.slice(0, -1).every((current) => current.more_chats_available)).toBe(true);
	expect(pages.at(-1)!.more_chats_available).toBe(false);
	expect(new Set(idsOf(chats)).size).toBe(1000);
	expect(chats).toHaveLength(1000);
	const cursors = pages.map((current) => current.last_ts as number);
	for (let i = 1; i < cursors.length; i++) expect(cursors[i]).toBeGreaterThan(cursors[i - 1]);
	expect(lastTs).toBe(sandbox.control.latestCursor());
	for (const cursor of cursors) expect(Number.isSafeInteger(cursor)).toBe(true);
});

test('a chat changed after delivery is delivered again later; one changed before delivery comes once, in its latest version', async () => {
	// A read-only walk first, to know which chat page 8 holds (reading changes nothing).
	const preview = await walk(0);
	const notYetDelivered = preview.pages[7].chats[50];
	const firstPage = await page(0);
	const delivered = firstPage.chats[5];
	const closedLater = firstPage.chats[6];
	const { chats } = await walk(firstPage.last_ts, (pageNumber) => {
		if (pageNumber !== 2) return;
		clock.advance(1000);
		sandbox.control.updateChat(delivered.id);
		sandbox.control.closeChat(closedLater.id);
		sandbox.control.updateChat(notYetDelivered.id);
	});
	const all = [...firstPage.chats, ...chats];
	expect(all).toHaveLength(1000 + 2);
	const again = all.filter((chat) => String(chat.id) === String(delivered.id));
	expect(again.map((chat) => chat.messages!.length)).toEqual([
		delivered.messages!.length,
		delivered.messages!.length + 1,
	]);
	expect(again[1].messages!.at(-1)).toMatchObject({
		kind: 'visitor',
		created_at: '2025-06-01T08:00:01.000Z',
	});
	const closed = all.filter((chat) => String(chat.id) === String(closedLater.id));
	expect(closed).toHaveLength(2);
	expect(closed[1].state_history!.at(-1)).toMatchObject({
		state: 'closed',
		at: '2025-06-01T08:00:01.000Z',
	});
	const once = all.filter((chat) => String(chat.id) === String(notYetDelivered.id));
	expect(once).toHaveLength(1);
	expect(once[0].messages).toHaveLength(notYetDelivered.messages!.length + 1);
	// The changed chats come last, in the order they changed.
	expect(idsOf(all.slice(-3))).toEqual(idsOf([delivered, closedLater, notYetDelivered]));
});

test('since past the end: no chats, more false, and a last_ts that picks up the next change', async () => {
	const end = sandbox.control.latestCursor();
	const past = await page(end + 3_600_000_000);
	expect(past).toEqual({ chats: [], more_chats_available: false, last_ts: end });
	expect(await page(end)).toEqual({ chats: [], more_chats_available: false, last_ts: end });
	clock.advance(5000);
	const [added] = sandbox.control.addChats(1);
	const next = await page(past.last_ts);
	expect(idsOf(next.chats)).toEqual([String(added.id)]);
	expect(next.more_chats_available).toBe(false);
	expect(next.last_ts).toBe(Date.parse('2025-06-01T08:00:05.000Z') * 1000);
});

test('new changes take the clock in microseconds, strictly increasing even within one millisecond', () => {
	clock.set('2025-06-01T09:00:00.000Z');
	sandbox.control.addChats(1);
	expect(sandbox.control.latestCursor()).toBe(Date.parse('2025-06-01T09:00:00.000Z') * 1000);
	sandbox.control.mutateRandomChats(3);
	expect(sandbox.control.latestCursor()).toBe(Date.parse('2025-06-01T09:00:00.000Z') * 1000 + 3);
});

test('last_ts is a string when configured, and a string cursor is accepted back', async () => {
	sandbox.control.setSettings({ lastTsAsString: true });
	const first = await page(0);
	expect(typeof first.last_ts).toBe('string');
	expect(first.last_ts).toMatch(/^\d+$/);
	const second = await page(first.last_ts);
	expect(typeof second.last_ts).toBe('string');
	expect(second.chats).toHaveLength(100);
	expect(idsOf(second.chats).some((id) => idsOf(first.chats).includes(id))).toBe(false);
	const started = await startSandbox({ chats: 3, lastTsAsString: true });
	try {
		expect(await page(0, started)).toEqual({
			chats: expect.any(Array),
			more_chats_available: false,
			last_ts: String(started.control.latestCursor()),
		});
	} finally {
		await started.stop();
	}
});

test('allVersions lists every version since reset, and a walk from 0 shows only the latest ones', async () => {
	const before = sandbox.control.allVersions();
	expect(before).toHaveLength(1000);
	const changed = sandbox.control.mutateRandomChats(25);
	const added = sandbox.control.addChats(2);
	const versions = sandbox.control.allVersions();
	expect(versions).toEqual([
		...before,
		...changed.map(sandbox.control.fingerprint),
		...added.map(sandbox.control.fingerprint),
	]);
	const { chats } = await walk(0);
	expect(chats).toHaveLength(1002);
	const latest = new Map<string, string>();
	for (const version of versions) latest.set(version.slice(0, version.indexOf(':')), version);
	expect(chats.map(sandbox.control.fingerprint).sort()).toEqual([...latest.values()].sort());
	sandbox.control.reset();
	expect(sandbox.control.allVersions()).toEqual(before);
	expect(sandbox.control.chatCount()).toBe(1000);
});

test('random mutations are deterministic from the seed', async () => {
	const fixed = () => new Date('2025-06-01T08:00:00.000Z');
	const [a, b] = await Promise.all([
		startSandbox({ seed: 4, chats: 50, now: fixed }),
		startSandbox({ seed: 4, chats: 50, now: fixed }),
	]);
	try {
		const first = a.control.mutateRandomChats(20).map(a.control.fingerprint);
		expect(b.control.mutateRandomChats(20).map(b.control.fingerprint)).toEqual(first);
		expect(new Set(first).size).toBeGreaterThan(1);
	} finally {
		await Promise.all([a.stop(), b.stop()]);
	}
});

test('with minimalChatsInLists, some listed chats carry only id and created_at (spec 2.4)', async () => {
	sandbox.control.setSettings({ minimalChatsInLists: true });
	const { chats } = await walk(0);
	const minimal = chats.filter((chat) => Object.keys(chat).length === 2);
	expect(minimal.length).toBeGreaterThan(100);
	for (const chat of minimal) expect(Object.keys(chat).sort()).toEqual(['created_at', 'id']);
	// GET /chat still gives the whole chat.
	const whole = (await get(sandbox, 'chat', { id: String(minimal[0].id) })).json as { chat: Chat };
	expect(whole.chat.messages!.length).toBeGreaterThan(0);
});
