// Prints a workflow's finished executions from n8n's sqlite database as JSON. Run with the runtime's Node 24 (node:sqlite).
// Usage: node read-executions.cjs <database.sqlite> <workflowId> <runtime node_modules>
'use strict';
const path = require('node:path');

const { readSqlite } = require('./sqlite-read.cjs');

const [, , databaseFile, workflowId, runtimeModules] = process.argv;
// n8n stores run data in the "flatted" format (JSON with shared references); use n8n's own copy to read it.
const { parse } = require(path.join(runtimeModules, 'flatted'));

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
