// n8n's execute-batch command for the e2e tests and the benchmarks: workflows that start with a Manual Trigger, run in
// an n8n process of their own, each one's run data or error read from the files it writes.
import fs from 'node:fs';
import path from 'node:path';

import type { RunData } from '../../scripts/executions';
import { readJson, type N8n } from '../../scripts/n8n';
import { freePort } from '../../scripts/processes';

/**
 * Runs workflows that start with a Manual Trigger in one n8n process: the run data of each success, the error of each
 * failure. `concurrency` starts that many at once (n8n's default is one after the other).
 */
export async function executeBatch(n8n: N8n, ids: string[], { concurrency = 1 } = {}) {
	// n8n's execute-batch quietly leaves out an ID without a digit in it.
	const undigited = ids.filter((id) => !/\d/.test(id));
	if (undigited.length)
		throw new Error(`n8n execute-batch runs no workflow ID without a digit: ${undigited.join()}`);
	const snapshots = fs.mkdtempSync(path.join(n8n.userFolder, 'snapshots-'));
	const summaryFile = path.join(snapshots, 'summary.json');
	const output = [`--snapshot=${snapshots}`, `--output=${summaryFile}`];
	const args = [`--ids=${ids.join(',')}`, ...output, '--retries=0', '--shortOutput'];
	if (concurrency > 1) args.push(`--concurrency=${concurrency}`);
	// Its own task-broker port: the server may be running on the one in n8n.env.
	const env = { N8N_RUNNERS_BROKER_PORT: String(await freePort()) };
	const batch = await n8n.cli(['execute-batch', ...args], { env, allowFailure: true });
	const read = <T>(file: string) => (fs.existsSync(file) ? readJson<T>(file) : undefined);
	const runs: Record<string, RunData> = {};
	for (const id of ids) {
		const snapshot = read<{ data: RunData }>(path.join(snapshots, `${id}-snapshot.json`));
		if (snapshot) runs[id] = snapshot.data;
	}
	type Failures = Record<'errors' | 'warnings', Array<{ workflowId: string; error: string }>>;
	const summary = read<{ summary: Failures }>(summaryFile)?.summary;
	// n8n files a failure under warnings when its message reads as passing (a 503, ECONNRESET, a missing parameter).
	const failures = [...(summary?.errors ?? []), ...(summary?.warnings ?? [])];
	const errors = Object.fromEntries(failures.map(({ workflowId, error }) => [workflowId, error]));
	fs.rmSync(snapshots, { recursive: true, force: true });
	const missing = ids.filter((id) => !runs[id] && !errors[id]);
	if (missing.length) {
		const said = `${batch.stdout}\n${batch.stderr}`.trim().slice(-3_000);
		throw new Error(`n8n execute-batch gave no result for ${missing.join(', ')}:\n${said}`);
	}
	return { runs, errors };
}
