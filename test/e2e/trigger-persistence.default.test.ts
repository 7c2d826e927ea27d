// Real n8n 2.41.1 on its default settings: what the trigger's state and chats go through a SIGKILL and a restart (issue 16).
import { testOutcomesOfEverySetting, usePersistenceScenario } from './trigger-persistence.scenario';

const figures = usePersistenceScenario('default');

test('the first poll stores its position even though it emitted nothing: n8n saves static data after activation', () => {
	expect(figures.nowPositionAfterFirstPoll).toMatch(/^\d+$/);
	expect(figures.nowPositionAfterLaterPoll).toMatch(/^\d+$/);
});

test('"Now": a chat that changed while n8n was down is emitted after the restart', () => {
	expect(figures.nowChangesEmitted).toBe(1);
});

testOutcomesOfEverySetting(figures);
