// Reading executions from n8n's sqlite database while a writer holds it locked: the read waits for the lock, it never fails.
import fs from 'node:fs';
import path from 'node:path';

import type { StoredExecution } from '../../scripts/executions';
import { N8n } from '../../scripts/n8n';
import { delay, start, stop, waitUntil } from '../../scripts/processes';
import { ensureRuntime } from '../../scripts/runtime';

const WORKFLOW_ID = 'svcLockedDb0001';
const FINISHED = [
	{ id: 1, mode: 'trigger', status: 'success', nodeOutput: [{ id: 'chat-1' }] },
	{ id: 2, mode: 'manual', status: 'error', nodeOutput: [{ id: 'chat-2' }] },
];

/**
 * Run on the runtime's Node 24 (node:sqlite): creates n8n's two execution tables (rollback journal, as n8n 1.x keeps
 * them), then, inside BEGIN EXCLUSIVE, stores the finished executions and one still running; says "locked", and
 * commits when told "release" on stdin. A reader can only see the rows once the lock is gone.
 */
const WRITER = `
const { DatabaseSync } = require('node:sqlite');
const [databaseFile, flattedModule, executionsJson, workflowId] = process.argv.slice(1);
const { stringify } = require(flattedModule);
const database = new DatabaseSync(databaseFile);
database.exec(\`create table execution_entity (id integer primary key, workflowId text, mode text, status text,
	startedAt text, stoppedAt text);
	create table execution_data (executionId integer primary key, data text)\`);
database.exec('BEGIN EXCLUSIVE');
const executions = [...JSON.parse(executionsJson), { id: 3, mode: 'trigger', status: 'running', nodeOutput: [] }];
for (const { id, mode, status, nodeOutput } of executions) {
	database.prepare('insert into execution_entity values (?, ?, ?, ?, ?, ?)')
		.run(id, workflowId, mode, status, '2026-11-24 10:00:00.000', '2026-11-24 10:00:01.000');
	const data = { resultData: { runData: { Trigger: [{ data: { main: [nodeOutput.map((json) => ({ json }))] } }] } } };
	database.prepare('insert into execution_data values (?, ?)').run(id, stringify(data));
}
process.stdout.write('locked\\n');
process.stdin.once('data', () => {
	database.exec('COMMIT');
	database.close();
	process.stdout.write('released\\n');
	process.exit(0);
});
`;

/** Whether a process other than `except` has `file` open (Linux /proc): the reader has reached the database. */
function openedByAnother(file: string, except: number): boolean {
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
				if (fs.readlinkSync(`/proc/${pid}/fd/${descriptor}`) === file) return true;
			} catch {
				// Closed meanwhile.
			}
		}
	}
	return false;
}

test('a read that meets a held write lock waits for it and returns the rows', async () => {
	const runtime = ensureRuntime();
	const n8n = await N8n.create({ runtime });
	fs.mkdirSync(path.dirname(n8n.databaseFile), { recursive: true });
	const writer = start(
		runtime.nodeBin,
		[
			'--disable-warning=ExperimentalWarning',
			'-e',
			WRITER,
			n8n.databaseFile,
			path.join(runtime.dir, 'node_modules/flatted'),
			JSON.stringify(FINISHED),
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
		const databaseFile = fs.realpathSync(n8n.databaseFile);

		let outcome: 'pending' | 'returned' | 'failed' = 'pending';
		const reading = n8n.readExecutions(WORKFLOW_ID).then(
			(executions) => {
				outcome = 'returned';
				return executions;
			},
			(error: Error) => {
				outcome = 'failed';
				return error;
			},
		);
		// Release only once the reader has the file open (so it has met the lock), and a moment more for its first try.
		await waitUntil(
			async () => outcome !== 'pending' || openedByAnother(databaseFile, writer.pid!),
			{ what: 'The reader opening the database', timeoutMs: 30_000, everyMs: 10 },
		);
		await delay(300);
		const outcomeWhileLocked = outcome;
		writer.stdin!.write('release\n');
		await waitFor('released');
		const read = await reading;

		expect({ outcomeWhileLocked, read: read instanceof Error ? read.message : 'rows' }).toEqual({
			outcomeWhileLocked: 'pending',
			read: 'rows',
		});
		expect(
			(read as StoredExecution[]).map(({ id, mode, status, data }) => ({
				id,
				mode,
				status,
				nodeOutput: data.resultData.runData.Trigger[0].data?.main[0]?.map((item) => item.json),
			})),
		).toEqual(FINISHED);
	} finally {
		await stop(writer, 'SIGTERM', 1_000);
		await n8n.dispose();
	}
}, 120_000);
