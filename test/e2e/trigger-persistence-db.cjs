// Prints what the trigger-persistence e2e inspects in n8n's sqlite database, as JSON. Run with the runtime's Node 24 (node:sqlite).
// Usage: node trigger-persistence-db.cjs <database.sqlite> <workflowId>
'use strict';
const { readSqlite } = require('../../scripts/sqlite-read.cjs');

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
