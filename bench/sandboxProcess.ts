// A sandbox in a child process for the benchmarks, so its work and memory are not measured with the client's.
import path from 'node:path';

import { DEFAULT_ADMIN } from '../sandbox';
import type { RequestLogEntry } from '../sandbox';
import { start, stop, waitUntil } from '../scripts/processes';

const ROOT = path.resolve(__dirname, '..');
const TSX = path.join(ROOT, 'node_modules/.bin/tsx');
const READY_TIMEOUT_MS = 60_000;

export interface SandboxProcess {
	url: string;
	/** What to type as Host in the credentials. */
	host: string;
	admin: { email: string; password: string };
	/** The Basic Authorization header of the admin. */
	authorization: string;
	/** POST or GET a control route (see sandbox/README.md). */
	control<T>(method: 'GET' | 'POST', route: string, body?: unknown): Promise<T>;
	requestLog(): Promise<RequestLogEntry[]>;
	stop(): Promise<void>;
}

export async function startSandboxProcess(options: {
	chats: number;
	seed?: number;
	/** HTTPS with the sandbox's self-signed certificate. */
	https?: boolean;
	/** The sandbox's one-way network delay (sandbox/README.md). */
	latencyMs?: number;
	/** One visitor's chats spread over the 30 days (sandbox option regularVisitor). */
	regularVisitor?: boolean;
	/** Every API reply this many ms after its login was checked (sandbox option replyDelayMs). */
	replyDelayMs?: number;
}): Promise<SandboxProcess> {
	const args = [
		path.join(ROOT, 'sandbox/cli.ts'),
		'--chats',
		String(options.chats),
		'--seed',
		String(options.seed ?? 1),
		...(options.https ? ['--https'] : []),
		...(options.latencyMs ? ['--latency-ms', String(options.latencyMs)] : []),
		...(options.regularVisitor ? ['--regular-visitor'] : []),
		...(options.replyDelayMs ? ['--reply-delay-ms', String(options.replyDelayMs)] : []),
	];
	const child = start(TSX, args, { cwd: ROOT });
	const printed = await waitUntil(
		async () => child.output().includes('Press Ctrl-C') && child.output(),
		{ what: 'The sandbox', timeoutMs: READY_TIMEOUT_MS, process: child, everyMs: 50 },
	);
	const url = /listening on (https?:\/\/127\.0\.0\.1:\d+)/.exec(printed)?.[1];
	const host = /Host: +(\S+)/.exec(printed)?.[1];
	if (!url || !host) throw new Error(`The sandbox printed no URL or Host:\n${printed}`);
	const admin = { ...DEFAULT_ADMIN };
	// Node's fetch refuses the self-signed certificate of --https, so the control routes are for plain HTTP runs.
	const control = async <T>(method: 'GET' | 'POST', route: string, body?: unknown): Promise<T> => {
		const reply = await fetch(`${url}/__control/${route}`, {
			method,
			headers: body === undefined ? undefined : { 'content-type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		if (!reply.ok)
			throw new Error(`Sandbox control ${method} ${route}: ${reply.status} ${await reply.text()}`);
		return (await reply.json()) as T;
	};
	return {
		url,
		host,
		admin,
		authorization: `Basic ${Buffer.from(`${admin.email}:${admin.password}`).toString('base64')}`,
		control,
		requestLog: () => control<RequestLogEntry[]>('GET', 'requests'),
		stop: () => stop(child, 'SIGTERM', 5_000),
	};
}
