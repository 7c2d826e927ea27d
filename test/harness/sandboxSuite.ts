// One lifecycle for the test files that run against a sandbox: started before the file, reset before each test, stopped.
import { startSandbox, type Sandbox, type SandboxOptions } from '../../sandbox';
import type { SvcCredentials } from '../../nodes/SvcChat/transport/request';
import { testCredentials } from './core';
import { lateBound } from './lateBound';

export interface SandboxUnderTest extends Sandbox {
	/** The credentials of the sandbox's administrator, as a user types them. */
	credentials(): SvcCredentials;
	/** Inside a describe: its tests run against another sandbox, started with these options and stopped after them. */
	replaceWithin(options: SandboxOptions): void;
}

/** The file's sandbox; its members are read once it runs (in a test or a later hook), and reading them earlier throws. */
export function useSandbox(options: SandboxOptions): SandboxUnderTest {
	const running: Sandbox[] = [];
	const current = () => {
		const sandbox = running.at(-1);
		if (!sandbox) throw new Error('The sandbox is read before its beforeAll started it');
		return sandbox;
	};
	const startWithin = (startOptions: SandboxOptions) => {
		let started: Sandbox | undefined;
		beforeAll(async () => {
			started = await startSandbox(startOptions);
			running.push(started);
		});
		afterAll(async () => {
			if (!started) return;
			running.splice(running.indexOf(started), 1);
			await started.stop();
		});
	};
	startWithin(options);
	beforeEach(() => current().control.reset());
	return lateBound(current, {
		credentials: () =>
			testCredentials(current().host, {
				email: current().admin.email,
				password: current().admin.password,
			}),
		replaceWithin: startWithin,
	});
}
