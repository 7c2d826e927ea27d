// Fuzzing: every Svc Chat operation and the trigger's parameters get values of every wrong type; the node answers with
// success or an n8n error that names the field, never a crash. SVC_FUZZ_RUNS sets the runs per property (npm run fuzz).
import { FUZZED_ACTIONS, fuzzedAction, storedTriggerStates, triggerOperation } from './catalogue';
import { problemsOf, runAction, runTrigger, type Outcome } from './runner';
import { assertFuzz, FUZZ_RUNS, FUZZ_SEED, useHardeningSandbox } from './setup';

const TIMEOUT_MS = Math.max(120_000, FUZZ_RUNS * 2_000);

const env = useHardeningSandbox();

/** How runs ended, per property, printed once so a change in the mix is visible. */
const tally: Record<string, Record<string, number>> = {};

function count(name: string, outcome: Outcome): void {
	const kind = outcome.ok
		? outcome.items.some((item) => item.json.error !== undefined)
			? 'error items'
			: 'success'
		: (outcome.error as Error).constructor.name;
	tally[name] ??= {};
	tally[name][kind] = (tally[name][kind] ?? 0) + 1;
}

afterAll(() => {
	const lines = Object.entries(tally).map(
		([name, kinds]) =>
			`  ${name}: ${Object.entries(kinds)
				.map(([kind, n]) => `${kind} ${n}`)
				.join(', ')}`,
	);
	console.log(`fuzz: ${FUZZ_RUNS} runs per property, seed ${FUZZ_SEED}\n${lines.join('\n')}`);
});

describe('Svc Chat', () => {
	// Every operation the node has, by name; each is built from the sandbox's facts once it runs.
	test.each(FUZZED_ACTIONS)(
		'%s',
		async (name) => {
			const operation = fuzzedAction(env.facts, name);
			await assertFuzz(operation, async (run) => {
				env.sandbox.control.reset();
				const outcome = await runAction(env.credentials, run);
				count(name, outcome);
				return problemsOf(
					outcome,
					run.items.flatMap((item) => item.hostile),
				);
			});
		},
		TIMEOUT_MS,
	);
});

test(
	'Svc Chat Trigger: every parameter and any stored state; a failed poll leaves the stored state as it was',
	async () => {
		await assertFuzz(
			triggerOperation(env.facts),
			async (run) => {
				env.sandbox.control.reset();
				// Seeded chats are all answered: one missed chat gives Missed Chat's Fetch Test Event a sample (with none,
				// it is an error that says so, as the unit tests check).
				env.sandbox.control.addMissedChat();
				const { outcome, staticDataBefore, staticDataAfter } = await runTrigger(
					env.credentials,
					run,
				);
				count('trigger', outcome);
				const problems = problemsOf(outcome, run.items[0].hostile);
				if (!outcome.ok && staticDataAfter !== staticDataBefore)
					problems.push(`the failed poll changed the stored state to ${staticDataAfter}`);
				return problems;
			},
			storedTriggerStates(env.facts),
		);
	},
	TIMEOUT_MS,
);
