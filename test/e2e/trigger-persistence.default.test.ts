// Real n8n 2.41.1 on its default settings: what the trigger's state and chats go through a SIGKILL and a restart, and what n8n's API shows of that state.
import { testOutcomesOfEverySetting, usePersistenceScenario } from './trigger-persistence.scenario';

const figures = usePersistenceScenario('default');

test('the first poll stores its position even though it emitted nothing: n8n saves static data after activation', () => {
	expect(figures.now.positionAtKill).toMatch(/^\d+$/);
	expect(figures.now.positionAtEnd).toMatch(/^\d+$/);
});

test('"Now": a chat that changed while n8n was down is emitted after the restart, once', () => {
	expect(figures.now.changesEmitted).toBe(1);
	// A later poll ran to its end (it emitted a chat created after the first one) and did not emit the change again.
	expect(figures.now.laterPollEmitted).toBe(true);
});

testOutcomesOfEverySetting(figures);

describe("what n8n's REST API returns with the workflows: no credential field in the triggers' static data", () => {
	test('neither the host (in any spelling) nor the admin e-mail appears in any static data, fresh or migrated', () => {
		expect(figures.readBack?.credentialFieldsFound).toEqual([]);
	});

	test('each trigger keeps only the digest of its server and account', () => {
		const { states, expectedDigests } = figures.readBack!;
		for (const key of ['now', 'all', 'migrated'] as const)
			expect(states[key]?.boundTo).toBe(expectedDigests[key]);
	});

	test('a trigger saved with host and e-mail in clear keeps its cursor, and its next save drops them', () => {
		const { states, migratedSince } = figures.readBack!;
		expect(states.migrated).not.toHaveProperty('host');
		expect(states.migrated).not.toHaveProperty('account');
		expect(states.migrated).toMatchObject({ startedFrom: 'beginning', catchingUp: false });
		// Same server typed another way: it went on from the imported cursor, never back to the Beginning of History.
		expect(migratedSince[0]).toBe('1');
		expect(migratedSince).not.toContain('0');
		expect(Number(states.migrated?.cursor)).toBeGreaterThan(1);
	});
});
