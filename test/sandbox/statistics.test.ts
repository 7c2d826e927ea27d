// The sandbox's day adds up (issue 65): GET /stats for a day agrees with the operators' rows and the chats created then.
import { startSandbox, type Sandbox } from '../../sandbox';
import type { Chat, ChatMessage, ChatsReply } from '../../nodes/SvcChat/types';
import { get, manualClock } from './client';

const clock = manualClock('2025-03-10T12:00:00.000Z');
let sandbox: Sandbox;
beforeAll(async () => {
	// About 20 chats a day over the 30 days of history.
	sandbox = await startSandbox({ seed: 4, chats: 600, now: clock.now });
});
afterAll(async () => await sandbox.stop());

async function allChats(): Promise<Chat[]> {
	const chats: Chat[] = [];
	for (let since: unknown = 0, more = true; more; ) {
		const page = (await get(sandbox, 'chats', { since: String(since) })).json as ChatsReply;
		chats.push(...page.chats);
		[since, more] = [page.last_ts, page.more_chats_available];
	}
	return chats;
}

/** The first message by which an operator answered (spec 2.5's operator and file_operator kinds). */
const answerOf = (chat: Chat): ChatMessage | undefined =>
	chat.messages?.find((message) => ['operator', 'file_operator'].includes(message.kind));

type Figures = Record<string, number>;
const stats = async (date: string, mode: string) =>
	(await get(sandbox, 'stats', { date, mode })).json as Figures & Figures[];

// The first trial saw yesterday's usage say chats: 1 while the operators' rows of that day added up to 95.
test("a day's usage counts its chats, its operators' rows add up to the answered ones, and each row is its operator's", async () => {
	// Today: two chats nobody answered and one going on, beside a seeded day of about 20.
	sandbox.control.addMissedChat('fields');
	sandbox.control.addMissedChat('none');
	sandbox.control.addChats(1);
	const chats = await allChats();
	const today = clock.now().toISOString().slice(0, 10);
	for (const day of [chats[300].created_at.slice(0, 10), today]) {
		const ofDay = chats.filter((chat) => chat.created_at.startsWith(day));
		const answered = ofDay.filter((chat) => answerOf(chat));
		const usage = await stats(day, 'usage');
		expect({ day, ...usage }).toMatchObject({
			day,
			contacts: ofDay.length,
			chats: answered.length,
			missed: ofDay.length - answered.length,
			offlines: 0,
		});
		const rows = await stats(day, 'operators');
		expect(rows.reduce((sum, row) => sum + row.chats, 0)).toBe(usage.chats);
		const messages = ofDay.flatMap((chat) => chat.messages ?? []);
		for (const row of rows) {
			const own = answered.filter((chat) => answerOf(chat)?.operator_id === row.operator_id);
			const busy = messages.filter(
				(one) => one.kind === 'operator_busy' && one.operator_id === row.operator_id,
			);
			expect({ day, id: row.operator_id, chats: row.chats, busy: row.busy_messages }).toEqual({
				day,
				id: row.operator_id,
				chats: own.length,
				busy: busy.length,
			});
			expect(row.avg_chating_time).toBe(own.length ? Math.floor(row.chating_time / own.length) : 0);
			expect(row.chating_time).toBeLessThanOrEqual(row.online_time);
			if (!own.length) expect(row.chating_time).toBe(0);
		}
	}
	const seededDay = chats.filter((chat) =>
		chat.created_at.startsWith(chats[300].created_at.slice(0, 10)),
	);
	expect(seededDay.length).toBeGreaterThan(10);
	expect((await stats(today, 'usage')).missed).toBe(2);
	// A day without chats (after the sandbox's present) has nothing in either.
	expect((await stats('2030-01-01', 'operators')).every((row) => row.chats === 0)).toBe(true);
});
