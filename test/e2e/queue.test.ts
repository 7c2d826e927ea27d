// E2E in n8n queue mode (Postgres, Redis, main + 2 workers): a 20,000-chat backlog under crashes, an export and broadcasts on workers, one of them stopped.
import { setTimeout as delay } from 'node:timers/promises';
import type { Sandbox } from '../../sandbox';
import { startSandbox } from '../../sandbox';
import { sandboxCredential } from '../../scripts/examples';
import { triggerItems, type StoredExecution } from '../../scripts/executions';
import { freePort, quiet, waitUntil } from '../../scripts/processes';
import type { N8n } from '../../scripts/n8n';
import { QueueCluster } from '../../scripts/queue';
import { ensureRuntime, REPO_ROOT } from '../../scripts/runtime';
import { sandboxAllChats, SETUP_TIMEOUT_MS } from './environment';
import {
	BACKLOG_CREDENTIAL,
	backlogWorkflow,
	broadcastWorkflow,
	EXECUTION_SECONDS,
	EXPORT_CREDENTIAL,
	EXPORT_NODE,
	exportManualWorkflow,
	exportWorkflow,
	IDS,
	MAX_CHATS_PER_POLL,
	POLL_EVERY_SECONDS,
	SEND_NODE,
	TRIGGER_NODE,
	WEBHOOK_PATHS,
} from './queueWorkflows';

const BACKLOG_CHATS = 20_000;
const EXPORT_CHATS = 10_000;
const OWNER = {
	email: 'owner@svc-queue.test',
	password: 'Queue-owner-pw-1',
	firstName: 'Queue',
	lastName: 'Owner',
};
const FINAL = new Set(['success', 'error', 'crashed', 'canceled']);

const say = (line: string) => process.stderr.write(`[queue e2e] ${line}\n`);
const log = process.env.E2E_VERBOSE ? say : quiet;

let cluster: QueueCluster;
let backlog: Sandbox;
let exports: Sandbox;
/** What happened, in order, with the highest execution id that existed at that moment. */
const timeline: Array<{ event: string; lastExecutionId: number; at: number }> = [];
const started = Date.now();

async function executions(workflowId: string): Promise<StoredExecution[]> {
	return await cluster.main.readExecutions(workflowId, { all: true });
}

/** Without run data: the waits poll this often, and must not slow the sandbox that shares this process. */
async function states(workflowId: string) {
	return await cluster.main.readExecutions(workflowId, { all: true, withData: false });
}

async function note(event: string): Promise<void> {
	const all = await states(IDS.backlog);
	timeline.push({ event, lastExecutionId: all.at(-1)?.id ?? 0, at: Date.now() - started });
	say(
		`${((Date.now() - started) / 1000).toFixed(0)} s: ${event} (last execution ${all.at(-1)?.id ?? 'none'})`,
	);
}

async function waitFor<T>(
	what: string,
	probe: () => Promise<T | undefined | false>,
	timeoutMs = 120_000,
	everyMs = 250,
): Promise<T> {
	return await waitUntil(probe, {
		what,
		output: () => `main:\n${cluster.main.serverOutput.slice(-3_000)}`,
		timeoutMs,
		everyMs,
	});
}

/** "#7 success 1000 chats 6001..7000 cursor 123" or, without items, what the stored run data holds instead. */
function describeExecution(execution: StoredExecution): string {
	const items = triggerItems(execution, TRIGGER_NODE);
	const { runData, error } = execution.data.resultData ?? {};
	// What a failed execution holds instead of chats, or beside them: the nodes that ran and n8n's error.
	// A poll that threw is stored with the error on the trigger's run (n8n keeps no message of a plain Error).
	const pollError = runData?.[TRIGGER_NODE]?.[0]?.error;
	const held =
		`run data: ${Object.keys(runData ?? {}).join('/') || 'none'}; error: ${error?.message ?? 'none'}` +
		(pollError ? `; trigger error: ${JSON.stringify(pollError).slice(0, 500)}` : '');
	if (!items.length) return `#${execution.id} ${execution.status} no chats (${held})`;
	const chats = `${items.length} chats ${String(items[0].id)}..${String(items.at(-1)!.id)} cursor ${String(items.at(-1)!.last_ts)}`;
	if (execution.status === 'success') return `#${execution.id} success ${chats}`;
	return `#${execution.id} ${execution.status} ${chats} (${held}; first item ${JSON.stringify(items[0]).slice(0, 300)})`;
}

/**
 * A poll that threw, as n8n records it: an error execution in which only the trigger ran, holding the error and no
 * items (n8n's placeholder item waits on the start stack).
 */
function isFailedPoll(execution: StoredExecution): boolean {
	const runData = execution.data.resultData?.runData ?? {};
	const runs = runData[TRIGGER_NODE] ?? [];
	return (
		execution.status === 'error' &&
		Object.keys(runData).length === 1 &&
		runs.length === 1 &&
		runs[0].error !== undefined &&
		runs[0].data === undefined
	);
}

/** What main and the workers logged about these executions, and main's errors: why one ended as it did. */
function logLinesAbout(executionIds: number[]): string {
	const ids = executionIds.join('|');
	const about = new RegExp(`[Ee]xecution (${ids})\\b|"executionId":"?(${ids})\\b`);
	const processes: Array<[string, N8n]> = [
		['main', cluster.main],
		...cluster.workers.map((worker, index): [string, N8n] => [`worker ${index + 1}`, worker]),
	];
	const linesOf = (instance: N8n, pattern: RegExp) =>
		instance.serverOutput.split('\n').filter((line) => pattern.test(line));
	const mainErrors = linesOf(cluster.main, /error|fail/i).slice(-40);
	return processes
		.map(([name, instance]) => `\n${name}:\n${linesOf(instance, about).join('\n')}`)
		.concat(`\nmain's errors:\n${mainErrors.join('\n')}`)
		.join('');
}

const chatIds = (items: Array<Record<string, unknown>>) => items.map((item) => String(item.id));

async function restartMain(signal: 'SIGTERM' | 'SIGKILL'): Promise<void> {
	await note(`main ${signal}`);
	await cluster.main.stop(signal);
	await cluster.main.start();
	await note('main restarted');
}

async function postWebhook(path: string, body: unknown): Promise<void> {
	const reply = await fetch(`${cluster.main.baseUrl}/webhook/${path}`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(body),
	});
	if (reply.status !== 200)
		throw new Error(`POST /webhook/${path}: ${reply.status} ${await reply.text()}`);
}

/** Waits until the workflow has an execution newer than `afterId` in a final state, and returns it. */
async function nextFinished(
	workflowId: string,
	afterId: number,
	timeoutMs = 120_000,
): Promise<StoredExecution> {
	return await waitFor(
		`a finished execution of ${workflowId} after #${afterId}`,
		async () => {
			const newer = (await states(workflowId)).filter((execution) => execution.id > afterId);
			if (!newer.length || !newer.every((execution) => FINAL.has(execution.status)))
				return undefined;
			return (await executions(workflowId)).find((execution) => execution.id === newer.at(-1)!.id);
		},
		timeoutMs,
	);
}

const lastId = async (workflowId: string) => (await states(workflowId)).at(-1)?.id ?? 0;

/** A worker's own log says it started the execution (main never logs that line: it only enqueues). */
const ranOnWorker = (executionId: number) =>
	cluster.workers.some((worker) =>
		worker.serverOutput.includes(`Worker started execution ${executionId} (`),
	);

beforeAll(async () => {
	const runtime = ensureRuntime(log);
	backlog = await startSandbox({ seed: 14, chats: BACKLOG_CHATS });
	exports = await startSandbox({ seed: 15, chats: EXPORT_CHATS });
	cluster = await QueueCluster.create({
		runtime,
		packageDir: REPO_ROOT,
		workers: 2,
		owner: OWNER,
		log,
		// A dead worker's job is noticed in seconds rather than a minute (n8n's defaults: lock 60 s, stalled check 30 s).
		env: {
			QUEUE_WORKER_LOCK_DURATION: '15000',
			QUEUE_WORKER_LOCK_RENEW_TIME: '3000',
			QUEUE_WORKER_STALLED_INTERVAL: '5000',
		},
	});
	await cluster.main.importCredentials([
		sandboxCredential(backlog, BACKLOG_CREDENTIAL),
		sandboxCredential(exports, EXPORT_CREDENTIAL),
	]);
	await cluster.main.importWorkflows([
		backlogWorkflow(),
		exportWorkflow(),
		exportManualWorkflow(),
		broadcastWorkflow(),
	]);
	await cluster.startAll();
	await cluster.main.publishWorkflows([IDS.backlog, IDS.export, IDS.broadcast]);
	await note('main and 2 workers up, workflows published');
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
	say(`timeline: ${JSON.stringify(timeline)}`);
	await cluster?.dispose();
	await backlog?.stop();
	await exports?.stop();
});

jest.setTimeout(8 * 60_000);

describe('a 20,000-chat backlog, 1,000 per poll, while main and a worker crash', () => {
	let all: StoredExecution[];

	test('main SIGTERM and SIGKILL lose nothing for good; a killed worker loses exactly the executions it was running', async () => {
		// 1. Graceful stop and restart of main, after the first polls.
		await waitFor('3 trigger executions', async () => (await states(IDS.backlog)).length >= 3);
		await restartMain('SIGTERM');

		// 2. SIGKILL of main the moment a poll has enqueued a new execution (its cursor save may still be pending).
		const before = await lastId(IDS.backlog);
		await waitFor(
			'a new trigger execution',
			async () => (await lastId(IDS.backlog)) > before,
			120_000,
			50,
		);
		await restartMain('SIGKILL');

		// 3. SIGKILL of a worker early in a trigger execution (each waits EXECUTION_SECONDS on its worker), one that
		// this main enqueued: main awaits its job and records the outcome.
		const afterRestart = timeline.at(-1)!.lastExecutionId;
		const [victimExecution, victim] = await waitFor(
			'a trigger execution just started on a worker',
			async () => {
				const running = (await states(IDS.backlog)).filter(
					(execution) => execution.id > afterRestart + 1 && execution.status === 'running',
				);
				for (const execution of running) {
					const worker = cluster.workerRunning(execution.id);
					const age = Date.now() - new Date(execution.startedAt ?? 0).getTime();
					if (worker && age < (EXECUTION_SECONDS * 1000) / 2)
						return [execution.id, worker] as const;
				}
				return undefined;
			},
			120_000,
			100,
		);
		// Everything that worker is running dies with it (it runs up to 5 at once).
		const killedExecutions = (await states(IDS.backlog))
			.filter((execution) => cluster.workerRunning(execution.id) === victim)
			.map((execution) => execution.id);
		await note(`worker SIGKILL during executions ${killedExecutions.join(', ')}`);
		await victim.stop('SIGKILL');
		await victim.start();
		// n8n gives Bull maxStalledCount 0: the dead worker's job is failed, never re-run; wait until n8n says so.
		const failedRun = await waitFor(
			`execution ${victimExecution} to end`,
			async () => {
				const execution = (await states(IDS.backlog)).find(
					(candidate) => candidate.id === victimExecution,
				);
				return execution && FINAL.has(execution.status) ? execution : undefined;
			},
			180_000,
			1_000,
		);
		await note(`execution ${victimExecution} ended: ${failedRun.status}`);

		// Until the trigger's cursor is the server's latest and every execution has ended.
		const latest = String(backlog.control.latestCursor());
		await waitFor(
			'the whole backlog',
			async () => {
				const staticData = JSON.stringify(await cluster.main.staticData(IDS.backlog));
				const current = await states(IDS.backlog);
				return staticData.includes(latest) &&
					current.every((execution) => FINAL.has(execution.status))
					? true
					: undefined;
			},
			240_000,
			1_000,
		);
		await delay(POLL_EVERY_SECONDS * 1000 + 1000);
		all = await executions(IDS.backlog);
		await note('backlog done');

		const order = (await sandboxAllChats(backlog)).chats.map((chat) => String(chat.id));
		const expected = new Set(order);
		expect(expected.size).toBe(BACKLOG_CHATS);

		const succeeded = all.filter((execution) => execution.status === 'success');
		// A poll that threw (on a loaded machine one did, with an error n8n stored without its message) is an error
		// execution that never held a chat. The trigger kept its cursor, so the next poll read the same chats; the
		// window check below proves it.
		const failedPolls = all
			.filter((execution) => isFailedPoll(execution) && !killedExecutions.includes(execution.id))
			.map((execution) => execution.id);
		if (failedPolls.length)
			say(`polls that failed: ${failedPolls.join(', ')}${logLinesAbout(failedPolls)}`);
		const ended = all.filter(
			(execution) => execution.status !== 'success' && !failedPolls.includes(execution.id),
		);
		const delivered = succeeded.flatMap((execution) =>
			chatIds(triggerItems(execution, TRIGGER_NODE)),
		);
		const held = ended.flatMap((execution) => chatIds(triggerItems(execution, TRIGGER_NODE)));
		const deliveredOnce = new Set(delivered);
		const seen = new Set<string>();
		const duplicatesByExecution = new Map<number, number>();
		for (const execution of all) {
			for (const id of chatIds(triggerItems(execution, TRIGGER_NODE))) {
				if (seen.has(id))
					duplicatesByExecution.set(
						execution.id,
						(duplicatesByExecution.get(execution.id) ?? 0) + 1,
					);
				seen.add(id);
			}
		}
		const firstPollsAfterRestart = timeline
			.filter((entry) => entry.event === 'main restarted')
			.map((entry) => all.find((execution) => execution.id > entry.lastExecutionId)?.id);
		say(
			`backlog: ${all.length} executions (${all.map(describeExecution).join(', ')}); ` +
				`${delivered.length} chats in successful ones (${new Set(delivered).size} distinct), ${held.length} held by the others; ` +
				`duplicates ${[...duplicatesByExecution.values()].reduce((a, b) => a + b, 0)} in ${JSON.stringify(Object.fromEntries(duplicatesByExecution))}; ` +
				`first polls after main restarts: ${JSON.stringify(firstPollsAfterRestart)}`,
		);
		// Chats in the order the server hands them out: every poll reads a contiguous run of it.
		const position = new Map(order.map((id, index) => [id, index]));
		const lost = [...expected].filter((id) => !deliveredOnce.has(id));
		// Those that did not succeed died with the worker, or were caught by main's SIGKILL between storing the
		// execution and queueing its job. n8n never re-runs either (Bull's maxStalledCount is 0). It either keeps the
		// chats (status crashed) or replaces the run data with the stall error: then the chats are gone from n8n.
		for (const execution of ended) {
			expect(['error', 'crashed']).toContain(execution.status);
			if (!triggerItems(execution, TRIGGER_NODE).length) {
				expect(killedExecutions).toContain(execution.id);
				expect(execution.data.resultData.error?.message).toMatch(/processed too many times/);
			}
		}
		for (const id of killedExecutions) expect(ended.map((execution) => execution.id)).toContain(id);
		// n8n's Retry (the executions list's button) runs the kept chats on a worker.
		const rest = await cluster.main.restSession(OWNER);
		for (const execution of ended.filter(
			(candidate) => triggerItems(candidate, TRIGGER_NODE).length,
		)) {
			const newest = await lastId(IDS.backlog);
			await rest('POST', `executions/${execution.id}/retry`, { loadWorkflow: false });
			const retried = await nextFinished(IDS.backlog, newest);
			expect(retried.status).toBe('success');
			expect(ranOnWorker(retried.id)).toBe(true);
			const retriedIds = chatIds(triggerItems(retried, TRIGGER_NODE));
			expect(retriedIds.sort()).toEqual(chatIds(triggerItems(execution, TRIGGER_NODE)).sort());
			for (const id of retriedIds) deliveredOnce.add(id);
			say(
				`${execution.status} execution ${execution.id} kept ${retriedIds.length} chats; Retry ran them as #${retried.id}: ${retried.status}`,
			);
		}
		// Killed executions that kept none of their chats: n8n replaced the run data with the stall error, or its
		// crash recovery left a placeholder item without a chat.
		const wiped = ended
			.filter(
				(execution) => !triggerItems(execution, TRIGGER_NODE).some((item) => item.id !== undefined),
			)
			.map((execution) => execution.id);
		// Should another one lose its chats, what main and the workers said of it explains how (the failure shows it).
		const unexplained = wiped.filter((id) => !killedExecutions.includes(id));
		if (unexplained.length) say(`wiped but not killed: ${logLinesAbout(unexplained)}`);
		expect(unexplained).toEqual([]);
		const lostAfterRetry = lost.filter((id) => !deliveredOnce.has(id));
		// Main's SIGTERM and SIGKILL lost nothing for good: every chat still not delivered lies in the window between
		// the last success before an execution killed with the worker and the first success after it, and those
		// windows hold at most one poll per killed execution.
		const successRanges = succeeded.map((execution) => {
			const positions = chatIds(triggerItems(execution, TRIGGER_NODE)).map(
				(id) => position.get(id)!,
			);
			return { id: execution.id, first: Math.min(...positions), last: Math.max(...positions) };
		});
		const gaps = wiped.map((executionId) => ({
			after: Math.max(
				...successRanges.filter((range) => range.id < executionId).map((range) => range.last),
				-1,
			),
			before: Math.min(
				...successRanges.filter((range) => range.id > executionId).map((range) => range.first),
				order.length,
			),
		}));
		for (const id of lostAfterRetry)
			expect(
				gaps.some((gap) => position.get(id)! > gap.after && position.get(id)! < gap.before),
			).toBe(true);
		expect(lostAfterRetry.length).toBeLessThanOrEqual(wiped.length * (MAX_CHATS_PER_POLL + 100));
		say(
			`not delivered: ${lost.length} chats before Retry, ${lostAfterRetry.length} after; all of them in the windows of executions ` +
				`${wiped.join(', ') || 'none'} (killed with their worker, run data replaced by n8n)`,
		);
		// Every poll stayed within its bound, and every execution that ran, ran on a worker, never on main.
		for (const execution of all)
			expect(triggerItems(execution, TRIGGER_NODE).length).toBeLessThanOrEqual(
				MAX_CHATS_PER_POLL + 100,
			);
		for (const execution of [
			...succeeded,
			...ended.filter((candidate) => killedExecutions.includes(candidate.id)),
		]) {
			expect(ranOnWorker(execution.id)).toBe(true);
		}
		expect(cluster.main.serverOutput).toMatch(/Enqueued execution \d+ \(job \d+\)/);

		// Duplicates come from a window read again (a poll that started from an older cursor), so in every execution
		// the chats seen before are a run at its start, never scattered: the trigger reads forward from its cursor.
		const earlier = new Set<string>();
		for (const execution of all) {
			const ids = chatIds(triggerItems(execution, TRIGGER_NODE));
			const repeated = ids.map((id) => earlier.has(id));
			const firstNew = repeated.indexOf(false);
			expect(repeated.slice(firstNew === -1 ? ids.length : firstNew).some(Boolean)).toBe(false);
			for (const id of ids) earlier.add(id);
		}
	});

	test('the cursor survives deactivate → activate and a republish of the unchanged trigger', async () => {
		const rest = await cluster.main.restSession(OWNER);
		const cursorBefore = await cluster.main.staticData(IDS.backlog);
		const before = await lastId(IDS.backlog);

		await rest('POST', `workflows/${IDS.backlog}/deactivate`, {});
		let workflow = await rest('GET', `workflows/${IDS.backlog}`);
		await rest('POST', `workflows/${IDS.backlog}/activate`, { versionId: workflow.versionId });
		await note('deactivated and activated');
		await delay((POLL_EVERY_SECONDS + EXECUTION_SECONDS + 1) * 1000);
		expect(await lastId(IDS.backlog)).toBe(before);
		expect(await cluster.main.staticData(IDS.backlog)).toEqual(cursorBefore);

		// Republish: the editor saves the same trigger (moved on the canvas, a new version), then publishes it.
		workflow = await rest('GET', `workflows/${IDS.backlog}`);
		const nodes = (workflow.nodes as Array<{ position: [number, number] }>).map((node) => ({
			...node,
			position: [node.position[0] + 20, node.position[1]],
		}));
		const saved = await rest('PATCH', `workflows/${IDS.backlog}`, {
			nodes,
			connections: workflow.connections,
			versionId: workflow.versionId,
		});
		expect(saved.versionId).not.toBe(workflow.versionId);
		await rest('POST', `workflows/${IDS.backlog}/activate`, { versionId: saved.versionId });
		await note('republished');
		await delay((POLL_EVERY_SECONDS + EXECUTION_SECONDS + 1) * 1000);
		expect(await lastId(IDS.backlog)).toBe(before);
		expect(await cluster.main.staticData(IDS.backlog)).toEqual(cursorBefore);

		// Still polling from where it was: 5 new chats arrive as exactly those 5.
		const added = backlog.control.addChats(5).map((chat) => String(chat.id));
		const next = await nextFinished(IDS.backlog, before, 60_000);
		expect(next.status).toBe('success');
		expect(chatIds(triggerItems(next, TRIGGER_NODE)).sort()).toEqual(added.sort());
	});
});

describe('workflows started by a webhook run on a worker', () => {
	test('a 10,000-chat Get Many export, timed next to regular mode', async () => {
		const before = await lastId(IDS.export);
		await postWebhook(WEBHOOK_PATHS.export, {});
		const queued = await nextFinished(IDS.export, before);
		expect(queued.status).toBe('success');
		expect(ranOnWorker(queued.id)).toBe(true);
		expect(queued.data.resultData.runData[EXPORT_NODE][0].data?.main[0]).toHaveLength(EXPORT_CHATS);

		// The same node in regular mode: `n8n execute` runs it in its own process, on the same database.
		// Its own task-broker port: main is running on the one in main's environment.
		const env = {
			EXECUTIONS_MODE: 'regular',
			N8N_LOG_LEVEL: 'warn',
			N8N_RUNNERS_BROKER_PORT: String(await freePort()),
		};
		await cluster.main.cli(['execute', `--id=${IDS.exportManual}`], { env });
		const [regular] = await executions(IDS.exportManual);
		expect(regular.status).toBe('success');
		expect(regular.data.resultData.runData[EXPORT_NODE][0].data?.main[0]).toHaveLength(
			EXPORT_CHATS,
		);
		const time = (execution: StoredExecution) =>
			(execution.data.resultData.runData[EXPORT_NODE][0] as { executionTime?: number })
				.executionTime;
		say(
			`export of ${EXPORT_CHATS} chats, Get Many node time: queue mode (worker) ${time(queued)} ms, regular mode ${time(regular)} ms`,
		);
		expect(time(queued)).toBeGreaterThan(0);
	});

	const contacts = (from: number, count: number) =>
		Array.from({ length: count }, (_, index) => ({
			phone: `+1555${String(from + index).padStart(7, '0')}`,
			name: `Contact ${from + index}`,
		}));
	const sentTo = () =>
		exports.control
			.broadcasts()
			.flatMap((broadcast) =>
				(broadcast.data.entries as Array<{ phone_number: string }>).map(
					(entry) => entry.phone_number,
				),
			);
	const timesSent = (phones: string[]) =>
		phones.map((phone) => sentTo().filter((sent) => sent === phone).length);

	test('a template broadcast sends each recipient exactly once', async () => {
		const batch = contacts(1000, 40);
		const before = await lastId(IDS.broadcast);
		await postWebhook(WEBHOOK_PATHS.broadcast, { contacts: batch });
		const execution = await nextFinished(IDS.broadcast, before);
		expect(execution.status).toBe('success');
		expect(ranOnWorker(execution.id)).toBe(true);
		expect(execution.data.resultData.runData[SEND_NODE][0].data?.main[0]).toHaveLength(40);
		expect(timesSent(batch.map((contact) => contact.phone))).toEqual(batch.map(() => 1));
	});

	async function killWorkerOf(
		workflowId: string,
		afterId: number,
		when: () => boolean,
	): Promise<StoredExecution> {
		const [executionId, worker] = await waitFor(
			'the broadcast running on a worker at the kill point',
			async () => {
				const execution = (await states(workflowId)).find((candidate) => candidate.id > afterId);
				const running = execution && cluster.workerRunning(execution.id);
				return running && when() ? ([execution.id, running] as const) : undefined;
			},
			60_000,
			20,
		);
		await worker.stop('SIGKILL');
		await worker.start();
		await waitFor(`broadcast execution ${executionId} to end`, async () => {
			const execution = (await states(workflowId)).find(
				(candidate) => candidate.id === executionId,
			);
			return execution && FINAL.has(execution.status);
		});
		const ended = (await executions(workflowId)).find((candidate) => candidate.id === executionId)!;
		// Once n8n has ended the execution, Bull has failed its job; a few seconds more would show any late second send.
		await delay(5_000);
		return ended;
	}

	test('a worker killed right after the send: the execution fails, it is not re-run, each recipient got it once', async () => {
		const batch = contacts(2000, 40);
		const phones = batch.map((contact) => contact.phone);
		const before = await lastId(IDS.broadcast);
		await postWebhook(WEBHOOK_PATHS.broadcast, { contacts: batch });
		const ended = await killWorkerOf(IDS.broadcast, before, () =>
			timesSent(phones).every((count) => count === 1),
		);
		expect(ended.status).not.toBe('success');
		expect(
			(await executions(IDS.broadcast)).filter((execution) => execution.id > before),
		).toHaveLength(1);
		expect(timesSent(phones)).toEqual(phones.map(() => 1));
	});

	test('a worker killed while the send is in flight: the server still got it once, and n8n does not send it again', async () => {
		const batch = contacts(3000, 40);
		const phones = batch.map((contact) => contact.phone);
		exports.control.injectFault({
			kind: 'delay',
			delayMs: 4_000,
			path: '/api/v2/rt/send_broadcast',
			count: 1,
		});
		const before = await lastId(IDS.broadcast);
		const requestsBefore = exports.control.requestLog().length;
		await postWebhook(WEBHOOK_PATHS.broadcast, { contacts: batch });
		const inFlight = () =>
			exports.control
				.requestLog()
				.slice(requestsBefore)
				.some((entry) => entry.path === '/api/v2/rt/send_broadcast' && entry.status === 0);
		const ended = await killWorkerOf(IDS.broadcast, before, inFlight);
		expect(ended.status).not.toBe('success');
		expect(
			(await executions(IDS.broadcast)).filter((execution) => execution.id > before),
		).toHaveLength(1);
		expect(timesSent(phones)).toEqual(phones.map(() => 1));
	});

	test('a broadcast stopped on its worker while its first request is in flight: it ends canceled, and its later requests are never sent', async () => {
		// 3,000 recipients go out in 3 requests of 1,000 (the default), each answered 4 s late.
		const answerAfterMs = 4_000;
		exports.control.injectFault({
			kind: 'delay',
			delayMs: answerAfterMs,
			path: '/api/v2/rt/send_broadcast',
			count: 3,
		});
		const before = await lastId(IDS.broadcast);
		const requestsBefore = exports.control.requestLog().length;
		const broadcastRequests = () =>
			exports.control
				.requestLog()
				.slice(requestsBefore)
				.filter((entry) => entry.path === '/api/v2/rt/send_broadcast').length;
		await postWebhook(WEBHOOK_PATHS.broadcast, { contacts: contacts(4000, 3000) });
		const executionId = await waitFor(
			'the broadcast on a worker, its first request in flight',
			async () => {
				const execution = (await states(IDS.broadcast)).find((candidate) => candidate.id > before);
				return execution && cluster.workerRunning(execution.id) && broadcastRequests() === 1
					? execution.id
					: undefined;
			},
			60_000,
			20,
		);
		const rest = await cluster.main.rest();
		await rest('POST', `executions/${executionId}/stop`);
		const sentAtStop = broadcastRequests();
		const stopped = await waitFor(`broadcast execution ${executionId} to end`, async () => {
			const execution = (await states(IDS.broadcast)).find(
				(candidate) => candidate.id === executionId,
			);
			return execution && FINAL.has(execution.status) && execution;
		});
		// Long enough for the two later requests, had the worker gone on sending.
		await delay(3 * answerAfterMs);
		exports.control.clearFaults();
		expect(stopped.status).toBe('canceled');
		expect(broadcastRequests()).toBe(sentAtStop);
		expect(sentAtStop).toBeLessThan(3);
	});
});
