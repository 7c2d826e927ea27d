// Secrets: the whole hostile-server matrix, wrong credentials, the credential test and the fuzzer run with a recognisable
// password behind a proxy that echoes it into every faulted or refused reply. Neither the password nor the Basic value
// may appear in any thrown or serialised error, output item, log line or console line.
import { format, inspect } from 'node:util';

import type { SvcCredentials } from '../../nodes/SvcChat/transport/request';
import { testCredentials } from '../harness/contexts';
import { errorViews, leaksOf } from '../unit/transport/support';
import { FUZZED_ACTIONS, fuzzedAction, storedTriggerStates, triggerOperation } from './catalogue';
import { startEchoProxy, type EchoProxy } from './echoProxy';
import { MATRIX_FAULTS, matrixOperations, type MatrixOperation } from './hostileMatrix';
import { runAction, runTrigger, type FuzzRun, type Outcome } from './runner';
import { assertFuzz, FUZZ_RUNS, useHardeningSandbox } from './setup';

/** Recognisable, and long enough that any 10-character piece of it found in a text is a leak. */
const CANARY = 'Canary-Pw-5e81c0d9b4-svc';
const ADMIN = { email: 'admin@svc.test', password: CANARY };
/** An unknown user with the same password: every request is refused (401, then 403 once locked out). */
const WRONG_USER = { email: 'nobody@svc.test', password: CANARY };
const basic = ({ email, password }: { email: string; password: string }) =>
	Buffer.from(`${email}:${password}`).toString('base64');
const SECRETS = [CANARY, basic(ADMIN), basic(WRONG_USER)];
/** The fuzz test proper judges every outcome; here a quarter of its runs, through the echoing proxy, look for the secrets. */
const RUNS = Math.max(20, Math.round(FUZZ_RUNS / 4));

const env = useHardeningSandbox(ADMIN);
let proxy: EchoProxy;
let credentials: SvcCredentials;
beforeAll(async () => {
	proxy = await startEchoProxy(env.sandbox);
	credentials = testCredentials(proxy.host, ADMIN);
});
afterAll(async () => await proxy?.stop());
// Console spies of single tests.
afterEach(() => jest.restoreAllMocks());

const consoleLines: string[] = [];
beforeEach(() => {
	for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
		jest
			.spyOn(console, method)
			.mockImplementation((...args: unknown[]) => void consoleLines.push(format(...args)));
	}
});

/** Where the secrets show up in what a run left behind: its error or output, the node's log and the console. */
function leaksAfter(outcome: Outcome, logLines: string[]): string[] {
	const views = outcome.ok
		? {
				output: `${JSON.stringify(outcome.items)}\n${inspect(outcome.items, { depth: 10, maxStringLength: 2_000 })}`,
			}
		: errorViews(outcome.error);
	return leaksOf(
		{ ...views, log: logLines.join('\n'), console: consoleLines.splice(0).join('\n') },
		SECRETS,
	);
}

async function run(
	target: MatrixOperation,
	using: SvcCredentials,
	continueOnFail: boolean,
): Promise<string[]> {
	const fuzzRun: FuzzRun = {
		items: [{ stored: target.parameters, values: {}, hostile: [] }],
		continueOnFail,
		mode: 'trigger',
		staticData: {},
	};
	const logLines: string[] = [];
	const outcome = target.trigger
		? (await runTrigger(using, fuzzRun, logLines)).outcome
		: await runAction(using, fuzzRun, logLines);
	return leaksAfter(outcome, logLines).map(
		(leak) => `${target.name}${continueOnFail ? ' (continue on fail)' : ''}: ${leak}`,
	);
}

/** Every operation against 20 MB replies takes tens of seconds on a busy 2-core machine; speed is the benchmarks' business. */
const MATRIX_TIMEOUT_MS = 180_000;

describe('the hostile-server matrix', () => {
	test.each(MATRIX_FAULTS.map((fault) => [fault.name, fault] as const))(
		'%s, every operation',
		async (_name, fault) => {
			const echoedBefore = proxy.echoed();
			const leaks: string[] = [];
			for (const target of matrixOperations(env.facts)) {
				// 20 MB replies are slow to send; with continue-on-fail they take the same error path again.
				for (const continueOnFail of target.trigger || fault.spec.kind === 'huge'
					? [false]
					: [false, true]) {
					env.sandbox.control.reset();
					env.sandbox.control.injectFault({ ...fault.spec, path: `/api/v2/${target.path}` });
					leaks.push(...(await run(target, credentials, continueOnFail)));
				}
			}
			expect(leaks).toEqual([]);
			// The secrets really were in the replies (a slow reply is a healthy one, and a reset has no reply to echo into).
			if (fault.spec.kind !== 'delay' && fault.spec.kind !== 'reset')
				expect(proxy.echoed()).toBeGreaterThan(echoedBefore);
		},
		MATRIX_TIMEOUT_MS,
	);

	test('wrong credentials, every operation', async () => {
		const echoedBefore = proxy.echoed();
		const leaks: string[] = [];
		for (const target of matrixOperations(env.facts)) {
			for (const continueOnFail of target.trigger ? [false] : [false, true]) {
				leaks.push(...(await run(target, testCredentials(proxy.host, WRONG_USER), continueOnFail)));
			}
		}
		expect(leaks).toEqual([]);
		expect(proxy.echoed()).toBeGreaterThan(echoedBefore);
	});
});

describe('the fuzzer', () => {
	test.each(FUZZED_ACTIONS)(
		'%s',
		async (name) => {
			const operation = fuzzedAction(env.facts, name);
			await assertFuzz(
				operation,
				async (fuzzRun) => {
					env.sandbox.control.reset();
					const logLines: string[] = [];
					return leaksAfter(await runAction(credentials, fuzzRun, logLines), logLines);
				},
				undefined,
				RUNS,
			);
		},
		120_000,
	);

	test('trigger', async () => {
		await assertFuzz(
			triggerOperation(env.facts),
			async (fuzzRun) => {
				env.sandbox.control.reset();
				const logLines: string[] = [];
				return leaksAfter((await runTrigger(credentials, fuzzRun, logLines)).outcome, logLines);
			},
			storedTriggerStates(env.facts),
			RUNS,
		);
	}, 120_000);
});
