// Child processes of the e2e tests, the demo and the benchmarks: each in its own process group, every group ended on exit; one readiness wait.
import { once } from 'node:events';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';

import execa from 'execa';
import { onExit } from 'signal-exit';

/** A child started by `start`: execa's process, whose group is ended on exit (execa's own clean-up skips detached children). */
export type Started = execa.ExecaChildProcess & { output(): string };
export type Log = (line: string) => void;
export const quiet: Log = () => undefined;
export const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

const running = new Set<Started>();
const exited = (child: Started) => child.exitCode !== null || child.signalCode !== null;

function signalGroup(child: Started, signal: NodeJS.Signals): void {
	try {
		// A negative pid addresses the whole group: n8n's task runner and sqlite workers go with it.
		if (child.pid !== undefined) process.kill(-child.pid, signal);
	} catch {
		// The group is already gone.
	}
}

/** Ends every process this module started, at once (used on exit, where nothing can be awaited). */
export function killAllNow(): void {
	for (const child of running) signalGroup(child, 'SIGKILL');
	running.clear();
}

// signal-exit runs this on exit, and on a signal nobody else (the demo) handles, then re-raises that signal.
let removeExitHandler: (() => void) | undefined;

/** Starts an install script that outlives its caller (jest's set-up), its output appended to `logFile`. */
export function startInBackground(args: string[], logFile: string, env?: NodeJS.ProcessEnv): void {
	fs.mkdirSync(path.dirname(logFile), { recursive: true });
	const output = fs.openSync(logFile, 'a');
	const options = { env, detached: true, cleanup: false, reject: false };
	execa('bash', args, { ...options, stdio: ['ignore', output, output] }).unref();
	fs.closeSync(output);
}

/** Starts a long-running child in a new process group; its output is read as it comes (`output()` keeps the tail). */
export function start(command: string, args: string[], options: execa.Options = {}): Started {
	removeExitHandler ??= onExit(killAllNow);
	const child = execa(command, args, {
		...(options.stdio ? {} : { stdin: 'ignore' }),
		buffer: false,
		stripFinalNewline: false,
		all: true,
		// As Node's own spawn: a given env is the whole environment.
		extendEnv: false,
		...options,
		detached: true,
		reject: false,
		cleanup: false,
	});
	let tail = '';
	const keep = (chunk: Buffer) => (tail = (tail + chunk.toString('utf8')).slice(-200_000));
	child.all?.on('data', keep);
	const started = Object.assign(child, { output: () => tail });
	running.add(started);
	void child.finally(() => running.delete(started));
	return started;
}

/** Sends `signal` to a child's group (SIGKILL: a crash) and waits until it exited; SIGKILL follows after `graceMs`. */
export async function stop(child: Started, signal: NodeJS.Signals = 'SIGTERM', graceMs = 10_000) {
	if (!exited(child)) {
		signalGroup(child, signal);
		const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), graceMs);
		await child;
		clearTimeout(timer);
	}
	// The group may hold grandchildren that outlived their leader (a task runner): end them too.
	signalGroup(child, 'SIGKILL');
	running.delete(child);
}

type RunOptions = execa.Options & { timeout: number };

/** Runs a command to completion in its own group (all of it killed after `timeout` ms): execa's result, and its time. */
export async function run(command: string, args: string[], options: RunOptions) {
	const started = Date.now();
	const child = start(command, args, { ...options, buffer: true, killSignal: 'SIGKILL' });
	const result = await child;
	await stop(child);
	return { ...result, ms: Date.now() - started };
}

type WaitOptions = { what: string; timeoutMs: number; process?: Started; output?: () => string };

/**
 * The one readiness wait: polls `check` until it gives a value other than undefined or false. It fails when
 * `timeoutMs` passes, or at once when the `process` it waits for has exited, naming `what` with the last error and
 * the process's last output (or `output()`, when other output explains a failure).
 */
export async function waitUntil<T>(
	check: () => Promise<T | undefined | false>,
	options: WaitOptions & { everyMs?: number },
): Promise<T> {
	const { what, timeoutMs, process: child } = options;
	const deadline = Date.now() + timeoutMs;
	let lastError = '';
	for (;;) {
		try {
			const value = await check();
			if (value !== undefined && value !== false) return value;
		} catch (error) {
			lastError = error instanceof Error ? error.message : String(error);
		}
		const ended = child && exited(child);
		if (ended || Date.now() > deadline) {
			const why = ended
				? `exited (${child.exitCode ?? child.signalCode}) before it was ready`
				: `was not ready within ${timeoutMs} ms`;
			const tail = (options.output ?? child?.output)?.();
			throw new Error(
				`${what} ${why}${lastError ? `; last error: ${lastError}` : ''}${tail ? `:\n${tail.slice(-5_000)}` : ''}`,
			);
		}
		await delay(options.everyMs ?? 250);
	}
}

/** A free port on 127.0.0.1, or proves `port` free; rejects (EADDRINUSE) when it is taken. */
export async function freePort(port = 0): Promise<number> {
	const server = net.createServer().listen(port, '127.0.0.1');
	await once(server, 'listening');
	const { port: free } = server.address() as net.AddressInfo;
	await new Promise((resolve) => server.close(resolve));
	return free;
}
