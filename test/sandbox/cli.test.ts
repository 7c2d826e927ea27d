// `npm run sandbox` (sandbox/cli.ts): prints what to type in n8n, serves the API, and stops cleanly on SIGTERM.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

import { get } from './client';

const root = path.resolve(__dirname, '../..');
const tsx = path.join(root, 'node_modules/.bin/tsx');
const started: ChildProcess[] = [];

afterAll(() => {
	// Each CLI runs in its own process group (tsx starts a second node process): end exactly that group if it is still up.
	for (const child of started) {
		if (child.exitCode === null && child.signalCode === null && child.pid)
			process.kill(-child.pid, 'SIGKILL');
	}
});

function runCli(args: string[]) {
	const child = spawn(tsx, ['sandbox/cli.ts', ...args], {
		cwd: root,
		stdio: ['ignore', 'pipe', 'pipe'],
		detached: true,
	});
	started.push(child);
	let output = '';
	child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
	child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
	const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
	const ready = new Promise<string>((resolve, reject) => {
		child.stdout!.on('data', () => {
			if (output.includes('Press Ctrl-C')) resolve(output);
		});
		void exited.then(() => reject(new Error(`The CLI exited early:\n${output}`)));
	});
	// A test that expects the CLI to fail never awaits `ready`; its rejection is not an error there.
	ready.catch(() => undefined);
	return { child, ready, exited, output: () => output };
}

test('starts with --chats and --seed, prints URL, host, admin and control URL, serves the API, stops on SIGTERM', async () => {
	const cli = runCli(['--chats', '25', '--seed', '7', '--last-ts-as-string']);
	const printed = await cli.ready;
	const url = /listening on (http:\/\/127\.0\.0\.1:\d+) \(25 chats\)/.exec(printed)?.[1];
	expect(url).toBeDefined();
	expect(printed).toContain(`Host:      ${url}`);
	expect(printed).toContain('E-mail:    admin@svc.test');
	expect(printed).toContain('Password:  sandbox-password');
	expect(printed).toContain(`Control:   ${url}/__control/`);
	const admin = { email: 'admin@svc.test', password: 'sandbox-password' };
	const reply = await get({ url: url!, admin }, 'chats', { since: '0' });
	expect(reply.json).toEqual({
		chats: expect.any(Array),
		more_chats_available: false,
		last_ts: expect.stringMatching(/^\d+$/),
	});
	expect((reply.json as { chats: unknown[] }).chats).toHaveLength(25);
	cli.child.kill('SIGTERM');
	expect(await cli.exited).toBe(0);
	await expect(get({ url: url!, admin }, 'departments')).rejects.toMatchObject({
		code: 'ECONNREFUSED',
	});
});

test('a bad option is refused with the usage text and exit code 1', async () => {
	const cli = runCli(['--chats', 'many']);
	expect(await cli.exited).toBe(1);
	expect(cli.output()).toContain('--chats needs a non-negative integer, got "many"');
	expect(cli.output()).toContain('Usage: npm run sandbox');
});

test('--latency-ms puts the relay in front and says so; the API answers through it', async () => {
	const cli = runCli(['--chats', '2', '--latency-ms', '20']);
	const printed = await cli.ready;
	const url = /listening on (http:\/\/127\.0\.0\.1:\d+) \(2 chats, 20 ms each way\)/.exec(
		printed,
	)?.[1];
	expect(url).toBeDefined();
	const reply = await get(
		{ url: url!, admin: { email: 'admin@svc.test', password: 'sandbox-password' } },
		'chats',
		{
			since: '0',
		},
	);
	expect((reply.json as { chats: unknown[] }).chats).toHaveLength(2);
	cli.child.kill('SIGTERM');
	expect(await cli.exited).toBe(0);
});
