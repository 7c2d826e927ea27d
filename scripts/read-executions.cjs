// Prints a workflow's finished executions from n8n's sqlite database as JSON. Run with the runtime's Node 24 (node:sqlite).
// Usage: node read-executions.cjs <database.sqlite> <workflowId> <runtime node_modules>
'use strict';
const { DatabaseSync } = require('node:sqlite');
const path = require('node:path');

const [, , databaseFile, workflowId, runtimeModules] = process.argv;
// n8n stores run data in the "flatted" format (JSON with shared references); use n8n's own copy to read it.
const { parse } = require(path.join(runtimeModules, 'flatted'));

const database = new DatabaseSync(databaseFile, { readOnly: true });
try {
	const rows = database
		.prepare(
			`select e.id, e.mode, e.status, e.startedAt, e.stoppedAt, d.data
			   from execution_entity e join execution_data d on d.executionId = e.id
			  where e.workflowId = ? and e.status in ('success', 'error', 'crashed', 'canceled')
			  order by e.id`,
		)
		.all(workflowId);
	process.stdout.write(JSON.stringify(rows.map((row) => ({ ...row, data: parse(row.data) }))));
} finally {
	database.close();
}
