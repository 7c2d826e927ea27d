// Reads n8n's sqlite database while n8n may be writing to it (read-only, waiting out its write locks): the reader for when n8n is down.
'use strict';
const { DatabaseSync } = require('node:sqlite');

/** How long one statement waits for n8n to release a write lock before sqlite gives up with SQLITE_BUSY. */
const BUSY_TIMEOUT_MS = 5_000;
/** How long all attempts together may take: n8n's writes last milliseconds, so a lock held longer is a hang. */
const GIVE_UP_AFTER_MS = 30_000;
const SQLITE_BUSY = 5;
const SQLITE_LOCKED = 6;

const isLocked = (error) =>
	Boolean(error) &&
	(error.errcode === SQLITE_BUSY ||
		error.errcode === SQLITE_LOCKED ||
		/database (table )?is locked/i.test(String(error.message)));

const pause = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * Opens `databaseFile` read-only and returns `read(database)`. A statement waits up to BUSY_TIMEOUT_MS for a writer;
 * if sqlite still answers "database is locked" (a writer that outlasted it, or a journal being rolled back), the whole
 * read starts again after a short pause, until GIVE_UP_AFTER_MS.
 */
function readSqlite(databaseFile, read) {
	const deadline = Date.now() + GIVE_UP_AFTER_MS;
	for (let attempt = 1; ; attempt++) {
		let database;
		try {
			database = new DatabaseSync(databaseFile, { readOnly: true, timeout: BUSY_TIMEOUT_MS });
			return read(database);
		} catch (error) {
			if (!isLocked(error)) throw error;
			if (Date.now() >= deadline) {
				error.message = `${error.message} (${databaseFile}, still locked after ${attempt} attempts in ${GIVE_UP_AFTER_MS / 1000} s)`;
				throw error;
			}
		} finally {
			database?.close();
		}
		pause(Math.min(100 * attempt, 1_000));
	}
}

module.exports = { readSqlite };

// As a program: node sqlite-read.cjs <database.sqlite> <workflowId> <runtime node_modules> prints a workflow's
// finished executions as JSON; n8n stores run data in the "flatted" format, read with n8n's own copy.
if (require.main === module) {
	const [, , databaseFile, workflowId, runtimeModules] = process.argv;
	const { parse } = require(require('node:path').join(runtimeModules, 'flatted'));
	const rows = readSqlite(databaseFile, (database) =>
		database
			.prepare(
				`select e.id, e.mode, e.status, e.startedAt, e.stoppedAt, d.data
				   from execution_entity e join execution_data d on d.executionId = e.id
				  where e.workflowId = ? and e.status in ('success', 'error', 'crashed', 'canceled')
				  order by e.id`,
			)
			.all(workflowId),
	);
	process.stdout.write(JSON.stringify(rows.map((row) => ({ ...row, data: parse(row.data) }))));
}
