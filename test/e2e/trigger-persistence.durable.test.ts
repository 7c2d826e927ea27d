// Real n8n 2.41.1 with durable poll cursors on: what the trigger's state and chats go through a SIGKILL and a restart (issue 16).
import { SETUP_TIMEOUT_MS } from './environment';
import {
	runPersistenceScenario,
	SEEDED_CHATS,
	type PersistenceFigures,
} from './trigger-persistence.scenario';

let figures: PersistenceFigures;
beforeAll(async () => {
	figures = await runPersistenceScenario('durable');
	process.stderr.write(`trigger persistence, durable cursors: ${JSON.stringify(figures)}\n`);
}, SETUP_TIMEOUT_MS);

// Whether a scheduled poll (once a minute) ran before the position is read depends on where activation falls in the
// minute, so the two outcomes are tied together rather than one of them assumed.
test('the activation poll that emitted nothing is not kept; a "Now" position exists only once a scheduled poll has run', () => {
	expect(figures.nowPositionAfterLaterPoll).toMatch(/^\d+$/);
	if (figures.nowPositionAfterFirstPoll === undefined) {
		// No position yet: a chat that changed while n8n was down is not emitted (the measured loss).
		expect(figures.nowChangesEmitted).toBe(0);
	} else {
		// A scheduled poll had already stored a position: the change is emitted, once.
		expect(figures.nowPositionAfterFirstPoll).toMatch(/^\d+$/);
		expect(figures.nowChangesEmitted).toBe(1);
	}
});

test('a change made while n8n was down is delivered after the restart, once', () => {
	expect(figures.changeAfterRestartDelivered).toBe(true);
	expect(figures.duplicates).toBe(0);
});

test('SIGKILL during an execution: n8n marks it crashed and the trigger does not emit its chats again (the measured loss)', () => {
	expect(figures.killedExecutionStatus).toBe('crashed');
	expect(figures.seededDelivered).toBe(1);
	expect(figures.seededLost).toBe(SEEDED_CHATS - 1);
});
