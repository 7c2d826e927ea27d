// Real n8n 2.41.1 with durable poll cursors on: what the trigger's state and chats go through a SIGKILL and a restart (issue 16).
import { ensureRuntime } from '../../scripts/runtime';
import {
	durableSchedule,
	pollOnceAt,
	testOutcomesOfEverySetting,
	usePersistenceScenario,
} from './trigger-persistence.scenario';

const figures = usePersistenceScenario('durable');

// Each "Now" trigger polls at seconds computed from its creation, so both outcomes are proven in every run: n8n is
// killed after the first one's first scheduled poll, and before the other's.
test('the activation poll that emitted nothing is not kept: killed before its first scheduled poll, "Now" has no position, and a chat that changed while n8n was down is not emitted (the measured loss)', () => {
	const unpolled = figures.nowKilledBeforeScheduledPoll!;
	expect(unpolled.positionAtKill).toBeUndefined();
	expect(unpolled.changesEmitted).toBe(0);
	// Its scheduled poll after the restart stored a position (it emitted nothing), and a later poll ran to its end.
	expect(unpolled.positionAtEnd).toMatch(/^\d+$/);
	expect(unpolled.laterPollEmitted).toBe(true);
});

test('the first scheduled poll stores the "Now" position though it emitted nothing: killed after it, a chat that changed while n8n was down is emitted after the restart, once', () => {
	expect(figures.now.positionAtKill).toMatch(/^\d+$/);
	expect(figures.now.positionAtEnd).toMatch(/^\d+$/);
	expect(figures.now.changesEmitted).toBe(1);
	expect(figures.now.laterPollEmitted).toBe(true);
});

testOutcomesOfEverySetting(figures);

test('each durable poll time falls due first at its own time, also after a slow first start', () => {
	// The parser of n8n's durable scheduler (@n8n/scheduler's recurrence/kinds/cron.js). As seconds of every minute, after
	// a 30 s first start (a loaded machine) the "later" time fell due a minute early, before the kill.
	type Parser = { parse(cron: string, options: object): { next(): { toDate(): Date } } };
	const { CronExpressionParser } = ensureRuntime().require('cron-parser') as {
		CronExpressionParser: Parser;
	};
	const createdAt = Date.parse('2026-11-27T03:06:58.400Z');
	for (const firstStartMs of [6_000, 30_000, 60_000]) {
		const { first, afterRestart, later } = durableSchedule(createdAt, firstStartMs);
		for (const time of [first, afterRestart, later]) {
			const [{ cronExpression }] = pollOnceAt(time).item;
			const options = { currentDate: new Date(createdAt), tz: 'Etc/UTC' };
			const due = CronExpressionParser.parse(cronExpression, options).next().toDate();
			expect(due.toISOString()).toBe(new Date(time).toISOString());
		}
	}
});
