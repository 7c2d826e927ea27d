// The queue-mode services for the e2e tests: a throwaway Postgres and Redis (the machine's, else Debian's) on loopback.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { freePort, quiet, run, seconds, start, stop, waitUntil, type Log } from './processes';
import { postgresPrograms, redisServer } from './system-programs';

export type Service = { port: number; stop(): Promise<void> };
export type Postgres = Service & { host: string; database: string; user: string };

/** Postgres refuses to run as root: root runs it as Debian's `postgres` user (setpriv: no extra process). */
const asRoot = process.getuid?.() === 0;
const asPostgresUser = (command: string, args: string[]): [string, string[]] => {
	const setpriv = ['--reuid=postgres', '--regid=postgres', '--init-groups', '--', command, ...args];
	return asRoot ? ['setpriv', setpriv] : [command, args];
};

/** A throwaway Postgres cluster: data in a temporary folder, trust auth on 127.0.0.1 only, its first database `postgres`. */
export async function startPostgres(log: Log = quiet): Promise<Postgres> {
	const programs = postgresPrograms();
	const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-postgres-'));
	if (asRoot) {
		const id = (flag: string) =>
			Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }));
		fs.chownSync(folder, id('-u'), id('-g'));
	}
	const dataDir = path.join(folder, 'data');
	const user = 'n8n';
	const started = Date.now();
	const port = await freePort();
	let server: ReturnType<typeof start> | undefined;
	const stopPostgres = async () => {
		// SIGINT is Postgres's fast shutdown: clients are disconnected rather than waited for.
		if (server) await stop(server, 'SIGINT');
		fs.rmSync(folder, { recursive: true, force: true });
	};
	try {
		const initdb = ['-D', dataDir, '-U', user, '--auth=trust', '-E', 'UTF8', '--no-sync'];
		const init = await run(...asPostgresUser(programs.initdb, initdb), {
			timeout: 120_000,
			cwd: folder,
		});
		if (init.exitCode !== 0) throw new Error(`initdb failed:\n${init.stdout}\n${init.stderr}`);
		// Durability off: a test database that is thrown away, as it is the n8n side whose crashes are tested. Messages in
		// English whatever the machine's language: the ready line below is read from them.
		const settings = [
			`port=${port}`,
			`unix_socket_directories=${folder}`,
			'listen_addresses=127.0.0.1',
			'lc_messages=C',
			...['fsync', 'synchronous_commit', 'full_page_writes'].map((name) => `${name}=off`),
		];
		const args = ['-D', dataDir, ...settings.flatMap((setting) => ['-c', setting])];
		server = start(...asPostgresUser(programs.postgres, args), { cwd: folder });
		const ready = async () =>
			server?.output().includes('database system is ready to accept connections');
		await waitUntil(ready, { what: 'Postgres', timeoutMs: 60_000, process: server });
	} catch (error) {
		await stopPostgres();
		throw error;
	}
	log(`Postgres on 127.0.0.1:${port} (data in ${dataDir}) in ${seconds(Date.now() - started)}`);
	return { host: '127.0.0.1', port, database: 'postgres', user, stop: stopPostgres };
}

export async function startRedis(log: Log = quiet): Promise<Service> {
	const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-redis-'));
	const port = await freePort();
	const settings = { port: `${port}`, bind: '127.0.0.1', save: '', appendonly: 'no', dir: folder };
	const args = Object.entries(settings).flatMap(([name, value]) => [`--${name}`, value]);
	const server = start(redisServer(), args, { cwd: folder });
	const stopRedis = async () => {
		await stop(server);
		fs.rmSync(folder, { recursive: true, force: true });
	};
	// Redis says so once it listens (every version since 2.x).
	const ready = async () => server.output().includes('Ready to accept connections');
	await waitUntil(ready, { what: 'Redis', timeoutMs: 60_000, process: server }).catch(
		async (error: unknown) => {
			await stopRedis();
			throw error;
		},
	);
	log(`Redis on 127.0.0.1:${port}`);
	return { port, stop: stopRedis };
}
