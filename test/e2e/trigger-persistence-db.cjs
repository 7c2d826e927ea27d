// Prints what the trigger-persistence e2e inspects in n8n's sqlite database, as JSON, read-only and waiting out n8n's write locks. Run with the runtime's Node 24 (node:sqlite).
// Usage: node trigger-persistence-db.cjs <database.sqlite> <workflowId>
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

const [, , databaseFile, workflowId] = process.argv;
const state = readSqlite(databaseFile, (database) => {
	const hasTable = (name) =>
		database.prepare(`select 1 from sqlite_master where type = 'table' and name = ?`).get(name) !==
		undefined;
	const workflow = database
		.prepare('select staticData from workflow_entity where id = ?')
		.get(workflowId);
	const executions = database
		.prepare('select id, status from execution_entity where workflowId = ? order by id')
		.all(workflowId);
	// n8n 2.36+ keeps durable poll cursors in poller_state (one row per workflow and node id).
	const pollerState = hasTable('poller_state')
		? database
				.prepare('select nodeId, cursor from poller_state where workflowId = ?')
				.all(workflowId)
		: [];
	return {
		staticData: workflow && workflow.staticData ? JSON.parse(workflow.staticData) : null,
		executions,
		pollerState: pollerState.map((row) => ({ nodeId: row.nodeId, cursor: JSON.parse(row.cursor) })),
	};
});
process.stdout.write(JSON.stringify(state));
