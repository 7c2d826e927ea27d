// The trigger-persistence test's database reader (trigger-persistence-db.cjs) meets a held write lock: it waits for it, it never fails.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { run, start, stop, waitUntil } from '../../scripts/processes';
import { ensureRuntime, REPO_ROOT } from '../../scripts/runtime';

const WORKFLOW_ID = 'svcLockedDb0001';
const STATIC_DATA = { 'node:All chats': { cursor: '2026-11-24T10:00:00.000Z' } };
const EXECUTIONS = [
	{ id: 1, status: 'success' },
	{ id: 2, status: 'error' },
	{ id: 3, status: 'running' },
];

/**
 * Run on the runtime's Node 24 (node:sqlite): creates the tables the reader reads (rollback journal, as n8n 1.x keeps
 * them), then, inside BEGIN EXCLUSIVE, stores the workflow's static data and its executions; says "locked", and
 * commits when told "release" on stdin. A reader can only see the rows once the lock is gone.
 */
const WRITER = `
const { DatabaseSync } = require('node:sqlite');
const [databaseFile, staticDataJson, executionsJson, workflowId] = process.argv.slice(1);
const database = new DatabaseSync(databaseFile);
database.exec(\`create table workflow_entity (id text primary key, staticData text);
	create table execution_entity (id integer primary key, workflowId text, status text)\`);
database.exec('BEGIN EXCLUSIVE');
database.prepare('insert into workflow_entity values (?, ?)').run(workflowId, staticDataJson);
for (const { id, status } of JSON.parse(executionsJson))
	database.prepare('insert into execution_entity values (?, ?, ?)').run(id, workflowId, status);
process.stdout.write('locked\\n');
process.stdin.once('data', () => {
	database.exec('COMMIT');
	database.close();
	process.stdout.write('released\\n');
	process.exit(0);
});
`;

/** The process other than `except` that has `file` open (Linux /proc): the reader, once it reached the database. */
function processWithOpen(file: string, except: number): number | undefined {
	for (const pid of fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
		if (Number(pid) === except) continue;
		let descriptors: string[];
		try {
			descriptors = fs.readdirSync(`/proc/${pid}/fd`);
		} catch {
			continue; // Gone, or not ours to read.
		}
		for (const descriptor of descriptors) {
			try {
				if (fs.readlinkSync(`/proc/${pid}/fd/${descriptor}`) === file) return Number(pid);
			} catch {
				// Closed meanwhile.
			}
		}
	}
	return undefined;
}

/**
 * Whether the process's main thread sleeps (Linux /proc): a reader that has the database open sleeps only while it
 * waits for the lock, in sqlite's busy handler (a nanosleep) or between its attempts (a futex). Node's own loop would
 * wait in epoll.
 */
function waitsForTheLock(pid: number): boolean {
	try {
		return /nanosleep|futex/.test(fs.readFileSync(`/proc/${pid}/wchan`, 'utf8'));
	} catch {
		return false; // Gone.
	}
}

test('a read that meets a held write lock waits for it and returns the rows', async () => {
	const runtime = ensureRuntime();
	const folder = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'svc-locked-db-')));
	const databaseFile = path.join(folder, 'database.sqlite');
	const writer = start(
		runtime.nodeBin,
		[
			'--disable-warning=ExperimentalWarning',
			'-e',
			WRITER,
			databaseFile,
			JSON.stringify(STATIC_DATA),
			JSON.stringify(EXECUTIONS),
			WORKFLOW_ID,
		],
		{ stdio: ['pipe', 'pipe', 'inherit'] },
	);
	try {
		let said = '';
		writer.stdout!.on('data', (chunk: Buffer) => (said += chunk.toString('utf8')));
		const waitFor = (word: string) =>
			waitUntil(async () => said.includes(word), {
				what: `The writer saying "${word}"`,
				timeoutMs: 30_000,
				everyMs: 20,
			});
		await waitFor('locked');

		let outcome: 'pending' | 'returned' | 'failed' = 'pending';
		const reading = run(
			runtime.nodeBin,
			[
				'--disable-warning=ExperimentalWarning',
				path.join(REPO_ROOT, 'test/e2e/trigger-persistence-db.cjs'),
				databaseFile,
				WORKFLOW_ID,
			],
			{ timeout: 60_000 },
		).then((result) => {
			outcome = result.exitCode === 0 ? 'returned' : 'failed';
			return result;
		});
		// Release only once the reader has met the lock: it has the file open and sleeps, waiting for the lock.
		await waitUntil(
			async () => {
				if (outcome !== 'pending') return true;
				const reader = processWithOpen(databaseFile, writer.pid!);
				return reader !== undefined && waitsForTheLock(reader);
			},
			{ what: 'The reader waiting for the lock', timeoutMs: 30_000, everyMs: 10 },
		);
		const outcomeWhileLocked = outcome;
		writer.stdin!.write('release\n');
		await waitFor('released');
		const read = await reading;

		expect({ outcomeWhileLocked, read: read.exitCode === 0 ? 'rows' : read.stderr }).toEqual({
			outcomeWhileLocked: 'pending',
			read: 'rows',
		});
		expect(JSON.parse(read.stdout)).toEqual({
			staticData: STATIC_DATA,
			executions: EXECUTIONS,
			pollerState: [],
		});
	} finally {
		await stop(writer, 'SIGTERM', 1_000);
		fs.rmSync(folder, { recursive: true, force: true });
	}
}, 120_000);
