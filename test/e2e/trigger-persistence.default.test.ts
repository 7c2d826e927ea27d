// Real n8n 2.41.1 on its default settings: what the trigger's state and chats go through a SIGKILL and a restart (issue 16).
import { SETUP_TIMEOUT_MS } from './environment';
import {
	runPersistenceScenario,
	SEEDED_CHATS,
	type PersistenceFigures,
} from './trigger-persistence.scenario';

let figures: PersistenceFigures;
beforeAll(async () => {
	figures = await runPersistenceScenario('default');
	process.stderr.write(`trigger persistence, default settings: ${JSON.stringify(figures)}\n`);
}, SETUP_TIMEOUT_MS);

test('the first poll stores its position even though it emitted nothing: n8n saves static data after activation', () => {
	expect(figures.nowPositionAfterFirstPoll).toMatch(/^\d+$/);
	expect(figures.nowPositionAfterLaterPoll).toMatch(/^\d+$/);
});

test('"Now": a chat that changed while n8n was down is emitted after the restart', () => {
	expect(figures.nowChangesEmitted).toBe(1);
});

test('a change made while n8n was down is delivered after the restart, once', () => {
	expect(figures.changeAfterRestartDelivered).toBe(true);
	expect(figures.duplicates).toBe(0);
});

test('SIGKILL during an execution: n8n marks it crashed and the trigger does not emit its chats again (the measured loss)', () => {
	expect(figures.killedExecutionStatus).toBe('crashed');
	// Only the seeded chat that changed again while n8n was down came back; the other 29 stay in the crashed execution.
	expect(figures.seededDelivered).toBe(1);
	expect(figures.seededLost).toBe(SEEDED_CHATS - 1);
});
