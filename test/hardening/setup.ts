// The sandbox the hardening tests run against, what the fuzzer draws valid values from, and the property check they share.
import fc from 'fast-check';
import type { IDataObject } from 'n8n-workflow';

import { REGISTERED_PHONES, startSandbox, type Sandbox } from '../../sandbox';
import type { SvcCredentials } from '../../nodes/SvcChat/transport/request';
import { testCredentials } from '../harness/contexts';
import { lateBound } from '../harness/lateBound';
import type { FuzzOperation, SandboxFacts } from './catalogue';
import { describeRun, fuzzRuns, type FuzzRun } from './runner';

/** Runs per property: small in `npm test`, `npm run fuzz` sets 5,000. */
export const FUZZ_RUNS = Math.max(1, Number(process.env.SVC_FUZZ_RUNS ?? 100));
/** Fixed, so CI runs the same cases every time; set SVC_FUZZ_SEED to explore others (a failure prints its seed). */
export const FUZZ_SEED = Number(process.env.SVC_FUZZ_SEED ?? 20_240_501);

export interface HardeningSandbox {
	sandbox: Sandbox;
	facts: SandboxFacts;
	credentials: SvcCredentials;
}

async function startHardeningSandbox(admin?: {
	email: string;
	password: string;
}): Promise<HardeningSandbox> {
	const sandbox = await startSandbox({ seed: 5, chats: 40, admin });
	const operators = sandbox.control.getOperators();
	const facts: SandboxFacts = {
		chatIds: sandbox.control
			.allVersions()
			.slice(0, 12)
			.map((version) => {
				const id = version.split(':')[0];
				return /^\d+$/.test(id) ? Number(id) : id;
			}),
		changeableEmails: operators
			.filter((operator) => operator.status !== 'offline')
			.map((operator) => operator.email),
		adminOperatorId: operators.find((operator) => operator.email === sandbox.admin.email)!.id,
		channelId: 'wa-main',
		templates: ['welcome_v2', 'order_update'],
		phones: [...REGISTERED_PHONES].slice(0, 5).concat('+4915100000000'),
		nowMs: Date.now(),
	};
	return { sandbox, facts, credentials: testCredentials(sandbox.host, sandbox.admin) };
}

/**
 * Starts the hardening sandbox before the file's tests and stops it after them. The members are read once it runs
 * (in a test or a later hook); reading them earlier throws.
 */
export function useHardeningSandbox(admin?: { email: string; password: string }): HardeningSandbox {
	let started: HardeningSandbox | undefined;
	beforeAll(async () => {
		started = await startHardeningSandbox(admin);
	});
	afterAll(async () => await started?.sandbox.stop());
	return lateBound(() => {
		if (!started) throw new Error('The hardening sandbox is read before its beforeAll started it');
		return started;
	});
}

/**
 * Checks that `problemsOfRun` finds nothing for FUZZ_RUNS random runs of an operation. A failure is shrunk to a
 * small case and shown without its huge strings, with the seed that repeats it.
 */
export async function assertFuzz(
	operation: FuzzOperation,
	problemsOfRun: (run: FuzzRun) => Promise<string[]>,
	staticData?: fc.Arbitrary<IDataObject>,
	numRuns = FUZZ_RUNS,
): Promise<void> {
	const property = fc.asyncProperty(fuzzRuns(operation, staticData), async (run) => {
		const problems = await problemsOfRun(run);
		if (problems.length) throw new Error(problems.join('\n'));
	});
	// Each property gets its own seed from the fixed one, so operations of the same shape do not repeat each other's cases.
	const seed = [...operation.name].reduce(
		(hash, char) => (hash * 31 + char.charCodeAt(0)) | 0,
		FUZZ_SEED,
	);
	const result = await fc.check(property, { numRuns, seed });
	if (result.failed) {
		const [run] = result.counterexample ?? [];
		const reason =
			result.errorInstance instanceof Error
				? result.errorInstance.message
				: String(result.errorInstance);
		throw new Error(
			`${operation.name}: ${reason}\n  run: ${run ? describeRun(run) : '(none)'}\n  repeat with SVC_FUZZ_SEED=${result.seed} (path ${result.counterexamplePath}, ${result.numShrinks} shrinks)`,
		);
	}
}
