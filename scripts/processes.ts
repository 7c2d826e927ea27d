// Child processes of the e2e tests and the demo: each runs in its own process group, and every group is ended on exit or signal.
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

const running = new Set<ChildProcess>();
let handlersInstalled = false;

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
	if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
	try {
		// A negative pid addresses the whole group: n8n's task runner and sqlite workers go with it.
		process.kill(-child.pid, signal);
	} catch {
		// The group is already gone.
	}
}

/** Ends every process this module started, at once (used on exit, where nothing can be awaited). */
export function killAllNow(): void {
	for (const child of running) signalGroup(child, 'SIGKILL');
	running.clear();
}

function installHandlers(): void {
	if (handlersInstalled) return;
	handlersInstalled = true;
	process.on('exit', killAllNow);
	for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
		// Only when nobody else (the demo) handles the signal: then behave as the default would, minus the orphans.
		process.on(signal, () => {
			if (process.listenerCount(signal) > 1) return;
			killAllNow();
			process.exit(128 + (signal === 'SIGINT' ? 2 : signal === 'SIGTERM' ? 15 : 1));
		});
	}
}

/** Spawns a child in a new process group and remembers it until it exits. */
export function spawnTracked(command: string, args: string[], options: SpawnOptions): ChildProcess {
	installHandlers();
	const child = spawn(command, args, { ...options, detached: true });
	running.add(child);
	child.once('exit', () => running.delete(child));
	child.once('error', () => running.delete(child));
	return child;
}

/** Asks a child's group to stop with SIGTERM, then kills it if it is still there after `graceMs`. */
export async function stopProcess(child: ChildProcess, graceMs = 10_000): Promise<void> {
	if (child.exitCode !== null || child.signalCode !== null) return;
	const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
	signalGroup(child, 'SIGTERM');
	let timer: NodeJS.Timeout | undefined;
	const timedOut = new Promise<boolean>((resolve) => {
		timer = setTimeout(() => resolve(true), graceMs);
	});
	const late = await Promise.race([exited.then(() => false), timedOut]);
	clearTimeout(timer);
	if (late) {
		signalGroup(child, 'SIGKILL');
		await exited;
	}
	// The group may hold grandchildren that outlived their parent (a task runner): end them too.
	signalGroup(child, 'SIGKILL');
	running.delete(child);
}

/** Sends `signal` to a child's group (SIGKILL: a crash, SIGTERM: a stop) and waits until the child has exited. */
export async function signalProcess(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
	if (child.exitCode !== null || child.signalCode !== null) return;
	const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
	signalGroup(child, signal);
	await exited;
	// Whatever of the group outlived its leader (a task runner) goes too.
	signalGroup(child, 'SIGKILL');
	running.delete(child);
}

export interface RunResult {
	code: number | null;
	signal: NodeJS.Signals | null;
	stdout: string;
	stderr: string;
	ms: number;
}

/** Runs a command to completion (tracked, killed after `timeoutMs`) and collects its output. */
export async function runTracked(
	command: string,
	args: string[],
	options: SpawnOptions & { timeoutMs: number },
): Promise<RunResult> {
	const started = Date.now();
	const child = spawnTracked(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
	let stdout = '';
	let stderr = '';
	child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
	child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
	const timer = setTimeout(() => {
		stderr += `\n[killed after ${options.timeoutMs} ms]`;
		signalGroup(child, 'SIGKILL');
	}, options.timeoutMs);
	const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>(
		(resolve, reject) => {
			child.once('error', reject);
			child.once('close', (exitCode, exitSignal) => resolve([exitCode, exitSignal]));
		},
	);
	clearTimeout(timer);
	signalGroup(child, 'SIGKILL');
	return { code, signal, stdout, stderr, ms: Date.now() - started };
}
