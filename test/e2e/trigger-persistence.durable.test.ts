// Real n8n 2.41.1 with durable poll cursors on: what the trigger's state and chats go through a SIGKILL and a restart (issue 16).
import { testOutcomesOfEverySetting, usePersistenceScenario } from './trigger-persistence.scenario';

const figures = usePersistenceScenario('durable');

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

testOutcomesOfEverySetting(figures);
