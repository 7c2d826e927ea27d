// E2E in n8n queue mode (Postgres, Redis, main + 2 workers): a 5,000-chat backlog under crashes, an export and broadcasts on workers, one of them stopped.
// This file keeps a cluster of its own: it stops and kills main and workers, and gives Bull settings of its own.
import type { Sandbox } from '../../sandbox';
import { startSandbox } from '../../sandbox';
import { sandboxCredential } from '../../scripts/examples';
import { triggerItems, type StoredExecution } from '../../scripts/executions';
import { quiet, waitUntil } from '../../scripts/processes';
import type { N8n } from '../../scripts/n8n';
import { QueueCluster } from './queueCluster';
import { ensureRuntime, REPO_ROOT } from '../../scripts/runtime';
import { sandboxAllChats, SETUP_TIMEOUT_MS } from './environment';
import {
	BACKLOG_CREDENTIAL,
	backlogWorkflow,
	broadcastWorkflow,
	EXECUTION_SECONDS,
	EXPORT_CREDENTIAL,
	EXPORT_NODE,
	exportWorkflow,
	IDS,
	MAX_CHATS_PER_POLL,
	RECIPIENTS_PER_REQUEST,
	SEND_NODE,
	TRIGGER_NODE,
	WEBHOOK_PATHS,
} from './queueWorkflows';

/**
 * A backlog of 20 polls (MAX_CHATS_PER_POLL each, several pages per poll) outlasts the scenario's restarts and kills,
 * as 20,000 chats at 1,000 a poll did, at a quarter of the data; the large sizes are `npm run bench`'s.
 */
const BACKLOG_CHATS = 5_000;
/** More pages than Return All needs to follow the cursor over (100 chats a page). */
const EXPORT_CHATS = 1_000;
const OWNER = {
	email: 'owner@svc-queue.test',
	password: 'Queue-owner-pw-1',
	firstName: 'Queue',
	lastName: 'Owner',
};
const FINAL = new Set(['success', 'error', 'crashed', 'canceled']);
const CHATS_PATH = '/api/v2/chats';
const BROADCAST_PATH = '/api/v2/rt/send_broadcast';

const say = (line: string) => process.stderr.write(`[queue e2e] ${line}\n`);
const log = process.env.E2E_VERBOSE ? say : quiet;

/** The few Redis commands this file reads Bull's state with (ioredis, the client n8n itself uses). */
type RedisClient = {
	hmget(key: string, ...fields: string[]): Promise<Array<string | null>>;
	llen(key: string): Promise<number>;
	quit(): Promise<unknown>;
};

let cluster: QueueCluster;
let redis: RedisClient;
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

/**
 * How long the sandbox holds a broadcast request that a test acts on while it is in flight: the test must see it in
 * flight (the worker's log, n8n's REST API, the sandbox's log) within this window. With 4 s, a loaded 2-core machine
 * sometimes saw it only after the answer, and the test timed out or stopped a finished execution.
 */
const IN_FLIGHT_MS = 15_000;

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

/** "#7 success 1000 chats 6001..7000 cursor 123", or how else it ended and what n8n stored instead of chats or beside them. */
function describeExecution(execution: StoredExecution): string {
	const items = triggerItems(execution, TRIGGER_NODE);
	const kind = ending(execution) ?? `${execution.status}, unexplained`;
	const chats = items.some((item) => item.id !== undefined)
		? `${items.length} chats ${String(items[0].id)}..${String(items.at(-1)!.id)} cursor ${String(items.at(-1)!.last_ts)}`
		: 'no chats';
	if (kind === 'success') return `#${execution.id} success ${chats}`;
	const { runData, error } = execution.data.resultData ?? {};
	// A poll that threw is stored with the error on the trigger's run.
	const triggerError = runData?.[TRIGGER_NODE]?.[0]?.error;
	const held =
		`run data: ${Object.keys(runData ?? {}).join('/') || 'none'}; error: ${error?.message ?? 'none'}` +
		(triggerError ? `; trigger error: ${JSON.stringify(triggerError).slice(0, 500)}` : '') +
		(items.length ? `; first item ${JSON.stringify(items[0]).slice(0, 300)}` : '');
	return `#${execution.id} ${kind}: ${chats} (${held})`;
}

/**
 * How a backlog execution ended, told apart by what n8n 2.41.1 stored (undefined: none of these, which fails the test).
 * - 'failed poll': the poll threw. n8n-core's PollTriggerExecutor.create (execution-engine/poll-trigger-executor.js)
 *   catches it and calls __emitError: TriggerExecutionContextFactory.recordTriggerFailure
 *   (n8n/dist/workflows/triggers/trigger-execution-context.factory.js) → ExecutionService.createErrorExecution →
 *   n8n-workflow's createErrorExecutionData (run-execution-data-factory.js). The trigger's one run holds only the error
 *   (start time 0) and the start stack one placeholder item {}: no chat was ever handed over, and the cursor did not
 *   move. An Error's message and stack are not enumerable, so a plain Error (such as pg-pool's "timeout exceeded when
 *   trying to connect" from the cursor read that runs before every poll, PollCursorService.resolveCursor) is stored as {}.
 * - 'stalled': the job's worker died. Bull fails a job whose lock ran out (n8n gives it maxStalledCount 0,
 *   ScalingService.setupQueue), and main's WorkflowRunner.processError replaces the run data with the
 *   MaxStalledCountError alone (workflow-runner.js, errors/max-stalled-count.error.js). Its status may be crashed: the
 *   restarted worker, with no event-log line of the execution, marks it so and leaves its data
 *   (ExecutionRecoveryService.amendWithoutLogs → ExecutionCrashService.markAsCrashedWithoutCounting); a fresh clone's
 *   run stored that.
 * - 'recovered crash': the same death, as the restarted worker's startup recovery records it from its own event log
 *   (MessageEventBus.performStartupRecovery → ExecutionRecoveryService.amend): status crashed, and the trigger's run
 *   is n8n's ARTIFICIAL_TASK_DATA, one item {isArtificialRecoveredEventItem: true} (n8n/dist/constants.js). Main's
 *   processError, when Bull then fails the job, turns it into 'stalled'.
 * - 'queued crash': main was killed after storing the execution and before queueing its job; main's queue recovery
 *   marks it crashed (ScalingService.recoverFromQueue → ExecutionCrashService.markAsCrashed), its chats kept.
 */
type Ending = 'success' | 'failed poll' | 'stalled' | 'recovered crash' | 'queued crash';
const MAX_STALLED_MESSAGE = /^This execution failed to be processed too many times/;
const POLL_ERROR_PLACEHOLDER = JSON.stringify([[{ json: {}, pairedItem: { item: 0 } }]]);

function ending(execution: StoredExecution): Ending | undefined {
	const { resultData, executionData } = execution.data;
	const nodesRun = Object.keys(resultData.runData ?? {});
	const triggerRuns = resultData.runData?.[TRIGGER_NODE] ?? [];
	const stack = executionData?.nodeExecutionStack ?? [];
	const items = triggerItems(execution, TRIGGER_NODE);
	const onlyChats = items.length > 0 && items.every((item) => item.id !== undefined);
	switch (execution.status) {
		case 'success':
			return onlyChats ? 'success' : undefined;
		case 'error':
			if (
				execution.mode === 'trigger' &&
				nodesRun.length === 1 &&
				triggerRuns.length === 1 &&
				triggerRuns[0].startTime === 0 &&
				triggerRuns[0].error !== undefined &&
				triggerRuns[0].data === undefined &&
				stack.length === 1 &&
				JSON.stringify(stack[0].data.main) === POLL_ERROR_PLACEHOLDER
			)
				return 'failed poll';
			if (nodesRun.length === 0 && MAX_STALLED_MESSAGE.test(resultData.error?.message ?? ''))
				return 'stalled';
			return undefined;
		case 'crashed':
			if (items.length === 1 && items[0].isArtificialRecoveredEventItem === true)
				return 'recovered crash';
			if (nodesRun.length === 0 && MAX_STALLED_MESSAGE.test(resultData.error?.message ?? ''))
				return 'stalled';
			return nodesRun.length === 0 && onlyChats ? 'queued crash' : undefined;
		default:
			return undefined;
	}
}

/** The executions a worker's log says it started and never finished: what it was running when it died. */
function startedNotFinished(worker: N8n): number[] {
	const ids = (verb: string) =>
		[...worker.serverOutput.matchAll(new RegExp(`Worker ${verb} execution (\\d+) \\(`, 'g'))].map(
			(match) => Number(match[1]),
		);
	const finished = new Set(ids('finished'));
	return ids('started').filter((id) => !finished.has(id));
}

/**
 * Waits until Bull has finished with an execution's job (main logged its number: "Enqueued execution N (job M)") and
 * no job is running or waiting, and gives the reason Bull failed it. A failed job is never run again. When
 * `ranToTheEnd` says first that the job's run ended as a success, it gives undefined: Bull removes a completed job.
 */
async function bullFailedJobOf(
	executionId: number,
	ranToTheEnd: () => boolean = () => false,
): Promise<string | null | undefined> {
	const enqueued = new RegExp(`Enqueued execution ${executionId} \\(job (\\d+)\\)`);
	const job = enqueued.exec(cluster.main.serverOutput)?.[1];
	if (job === undefined) throw new Error(`main never said it enqueued execution ${executionId}`);
	const [reason] = await waitFor(
		`Bull to finish job ${job} of execution ${executionId}`,
		async () => {
			const [finishedOn, failedReason] = await redis.hmget(
				`bull:jobs:${job}`,
				'finishedOn',
				'failedReason',
			);
			const busy = (await redis.llen('bull:jobs:active')) + (await redis.llen('bull:jobs:wait'));
			if (busy === 0 && finishedOn === null && ranToTheEnd()) return [undefined];
			return finishedOn !== null && busy === 0 && [failedReason];
		},
	);
	return reason;
}

/** Requests for the chat list that reached the backlog's server: one per poll that finds nothing new. */
const chatListRequests = () =>
	backlog.control.requestLog().filter((entry) => entry.path === CHATS_PATH).length;

/** Waits until the trigger has polled twice more: by then, a poll that started from a lost cursor has its execution. */
async function twoMorePolls(): Promise<void> {
	const seen = chatListRequests();
	await waitFor('two more polls of the trigger', async () => chatListRequests() >= seen + 2);
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

async function restartMain(signal: 'SIGTERM' | 'SIGKILL', whileDown = () => {}): Promise<void> {
	await note(`main ${signal}`);
	await cluster.main.stop(signal);
	whileDown();
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
		env: {
			// A dead worker's job is failed within about 22 s rather than a minute (n8n's defaults: lock 60 s, stalled
			// check 30 s). A live worker renews its lock 10 times before it would run out: with 8 s, a worker starved by a
			// loaded machine lost the lock of a job it was running, and Bull failed it as stalled.
			QUEUE_WORKER_LOCK_DURATION: '20000',
			QUEUE_WORKER_LOCK_RENEW_TIME: '2000',
			QUEUE_WORKER_STALLED_INTERVAL: '2000',
			// Bull keeps failed jobs (n8n removes them at once by default), so the tests read why Bull failed one.
			N8N_EXECUTIONS_QUEUE_KEEP_LAST_FAILED: '100',
		},
	});
	const Redis = runtime.require('ioredis') as new (options: object) => RedisClient;
	redis = new Redis({ host: '127.0.0.1', port: cluster.redis.port });
	await cluster.main.importCredentials([
		sandboxCredential(backlog, BACKLOG_CREDENTIAL),
		sandboxCredential(exports, EXPORT_CREDENTIAL),
	]);
	await cluster.main.importWorkflows([backlogWorkflow(), exportWorkflow(), broadcastWorkflow()]);
	await cluster.startAll();
	await cluster.main.publishWorkflows([IDS.backlog, IDS.export, IDS.broadcast]);
	await note('main and 2 workers up, workflows published');
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
	say(`timeline: ${JSON.stringify(timeline)}`);
	await redis?.quit();
	await cluster?.dispose();
	await backlog?.stop();
	await exports?.stop();
});

jest.setTimeout(8 * 60_000);

describe('a 5,000-chat backlog, 250 per poll, while main and a worker crash', () => {
	let all: StoredExecution[];

	test('main SIGTERM and SIGKILL and a failed poll lose nothing for good; a killed worker loses exactly the executions it was running', async () => {
		await waitFor('3 trigger executions', async () => (await states(IDS.backlog)).length >= 3);
		// 1. Graceful stop and restart of main, after the first polls.
		await restartMain('SIGTERM');

		// 2. SIGKILL of main the moment a poll has enqueued a new execution (its cursor save may still be pending). In the
		// same instant the sandbox holds every read, so that no later poll is between its two writes at the kill: on
		// default settings n8n saves a poll's static data and creates its execution side by side (`__emit` in n8n
		// 2.41.1's trigger-execution-context.factory.js), and a kill between them loses that poll's chats for good
		// (docs/trigger.md, "Across restarts and crashes"). A fresh clone's run once killed main there, two seconds after it saw the
		// execution. The hold ends while main is down.
		const before = await lastId(IDS.backlog);
		await waitFor(
			'a new trigger execution',
			async () => {
				if ((await lastId(IDS.backlog)) <= before) return false;
				backlog.control.injectFault({
					kind: 'delay',
					path: CHATS_PATH,
					count: 1_000,
					delayMs: 60_000,
				});
				return true;
			},
			120_000,
			50,
		);
		// With the reads held no poll starts; one under way may have saved its cursor with its execution not yet stored (a
		// loaded run stored a poll's execution after the next poll's, and the kill lost it): kill once that one is stored.
		await waitFor('the execution of the saved cursor', async () => {
			const saved = (await cluster.main.staticData(IDS.backlog))?.[`node:${TRIGGER_NODE}`]?.cursor;
			return (await executions(IDS.backlog)).some((execution) =>
				triggerItems(execution, TRIGGER_NODE).some((item) => item.last_ts === saved),
			);
		});
		await restartMain('SIGKILL', () => backlog.control.clearFaults());
		const afterRestart = timeline.at(-1)!.lastExecutionId;

		// 3. A poll that fails: the server answers its first request with a reply of an unexpected shape, so it throws.
		// A scheduled poll, after main's restarts (which reload the cursor from the database): the next poll starts from
		// the cursor in memory. Not the activation's poll: that would fail the activation, which n8n retries later.
		await waitFor(
			'a scheduled poll after the restart',
			async () => (await lastId(IDS.backlog)) >= afterRestart + 2,
		);
		const beforeFault = await lastId(IDS.backlog);
		// Only the first request of a poll, which asks for the saved cursor: a poll under way that met the fault on a
		// later page would keep the pages it read and succeed (a loaded run saw it). When a poll under way saves a newer
		// cursor first, the fault goes to that one.
		let faultedCursor: unknown;
		const faultedPoll = await waitFor(
			'the poll that met the fault, stored as an error',
			async () => {
				const failed = (await states(IDS.backlog)).find(
					(execution) => execution.id > beforeFault && execution.status === 'error',
				);
				if (failed) return failed;
				const cursor = (await cluster.main.staticData(IDS.backlog))?.[`node:${TRIGGER_NODE}`]
					?.cursor;
				if (typeof cursor === 'string' && cursor !== faultedCursor) {
					backlog.control.clearFaults();
					backlog.control.injectFault({
						kind: 'unexpected-shape',
						path: CHATS_PATH,
						since: cursor,
					});
					faultedCursor = cursor;
				}
				return undefined;
			},
		);
		backlog.control.clearFaults();
		await note(`poll ${faultedPoll.id} failed`);

		// 4. SIGKILL of a worker early in a trigger execution (each waits EXECUTION_SECONDS on its worker), one that
		// this main enqueued (main awaits its job and records the outcome), and a poll after the failed one: the chats
		// either could lose then lie in windows apart.
		const [victimExecution, victim] = await waitFor(
			'a trigger execution just started on a worker',
			async () => {
				const running = (await states(IDS.backlog)).filter(
					(execution) => execution.id > faultedPoll.id + 1 && execution.status === 'running',
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
		// Killed the moment it is seen, so that it holds no job its log has not named yet.
		await victim.stop('SIGKILL');
		// What it was running when it died (it runs up to 5 at once), by its own log, complete now that it is dead.
		const runningAtKill = startedNotFinished(victim);
		await victim.start();
		await note(`worker SIGKILL during executions ${runningAtKill.join(', ')}`);
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

		// Until the trigger's cursor is the server's latest, every execution has ended, and the execution of the poll that
		// reached it is stored (its chats carry that cursor; n8n saves the cursor before it stores the execution).
		const latest = String(backlog.control.latestCursor());
		all = await waitFor(
			'the whole backlog',
			async () => {
				const staticData = JSON.stringify(await cluster.main.staticData(IDS.backlog));
				const ended = (await states(IDS.backlog)).every((execution) => FINAL.has(execution.status));
				if (!staticData.includes(latest) || !ended) return undefined;
				const stored = await executions(IDS.backlog);
				const reached = stored.some((execution) =>
					triggerItems(execution, TRIGGER_NODE).some((item) => item.last_ts === latest),
				);
				return reached && stored.every((execution) => FINAL.has(execution.status)) && stored;
			},
			240_000,
			1_000,
		);
		await note('backlog done');

		const order = (await sandboxAllChats(backlog)).chats.map((chat) => String(chat.id));
		const expected = new Set(order);
		expect(expected.size).toBe(BACKLOG_CHATS);

		// Every execution ended in one of the ways n8n's source gives (see ending()); any other fails the test, explained.
		const endings = new Map(all.map((execution) => [execution.id, ending(execution)]));
		const endedAs = (...kinds: Ending[]) =>
			all.filter((execution) => kinds.includes(endings.get(execution.id)!));
		const unexplained = all.filter((execution) => endings.get(execution.id) === undefined);
		if (unexplained.length)
			say(`unexplained: ${logLinesAbout(unexplained.map((execution) => execution.id))}`);
		expect(unexplained.map(describeExecution)).toEqual([]);
		const succeeded = endedAs('success');
		// A poll that threw never handed over a chat, and the trigger kept its cursor: the next poll read the same chats
		// (the window check below proves it). The faulted one is one; under load, n8n's own steps around a poll can throw.
		const failedPolls = endedAs('failed poll');
		const faulted = failedPolls.filter(
			(execution) =>
				execution.data.resultData.runData[TRIGGER_NODE][0].error?.context?.svcError ===
				'unexpected-shape',
		);
		expect(faulted).toHaveLength(1);
		const otherFailedPolls = failedPolls
			.filter((execution) => execution !== faulted[0])
			.map((execution) => execution.id);
		if (otherFailedPolls.length)
			say(
				`polls that failed on their own: ${otherFailedPolls.join(', ')}${logLinesAbout(otherFailedPolls)}`,
			);
		// The executions the dead worker held: the one seen running on it, any other it was running that n8n had not
		// stored as a success before it died, and none that a worker alive at the end had started.
		const lostWithWorker = endedAs('stalled', 'recovered crash').map((execution) => execution.id);
		expect(lostWithWorker).toContain(victimExecution);
		for (const id of runningAtKill)
			expect(['success', 'stalled', 'recovered crash']).toContain(endings.get(id));
		for (const id of lostWithWorker)
			expect(runningAtKill.includes(id) || !ranOnWorker(id)).toBe(true);

		const delivered = succeeded.flatMap((execution) =>
			chatIds(triggerItems(execution, TRIGGER_NODE)),
		);
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
				`${delivered.length} chats in successful ones (${deliveredOnce.size} distinct); ` +
				`duplicates ${[...duplicatesByExecution.values()].reduce((a, b) => a + b, 0)} in ${JSON.stringify(Object.fromEntries(duplicatesByExecution))}; ` +
				`first polls after main restarts: ${JSON.stringify(firstPollsAfterRestart)}`,
		);
		// Chats in the order the server hands them out: every poll reads a contiguous run of it.
		const position = new Map(order.map((id, index) => [id, index]));
		const lost = [...expected].filter((id) => !deliveredOnce.has(id));
		// n8n's Retry (the executions list's button) runs the chats that a crash of main left queued on a worker.
		const rest = await cluster.main.restSession(OWNER);
		for (const execution of endedAs('queued crash')) {
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
		const lostAfterRetry = lost.filter((id) => !deliveredOnce.has(id));
		// Main's SIGTERM and SIGKILL and the failed polls lost nothing for good: every chat still not delivered lies in
		// the window between the last success before an execution lost with the worker and the first success after it,
		// and those windows hold at most one poll per lost execution.
		const successRanges = succeeded.map((execution) => {
			const positions = chatIds(triggerItems(execution, TRIGGER_NODE)).map(
				(id) => position.get(id)!,
			);
			return { id: execution.id, first: Math.min(...positions), last: Math.max(...positions) };
		});
		const gaps = lostWithWorker.map((executionId) => ({
			after: Math.max(
				...successRanges.filter((range) => range.id < executionId).map((range) => range.last),
				-1,
			),
			before: Math.min(
				...successRanges.filter((range) => range.id > executionId).map((range) => range.first),
				order.length,
			),
		}));
		const outsideGaps = lostAfterRetry.filter(
			(id) => !gaps.some((gap) => position.get(id)! > gap.after && position.get(id)! < gap.before),
		);
		expect(outsideGaps).toEqual([]);
		expect(lostAfterRetry.length).toBeLessThanOrEqual(
			lostWithWorker.length * (MAX_CHATS_PER_POLL + 100),
		);
		say(
			`not delivered: ${lost.length} chats before Retry, ${lostAfterRetry.length} after; all of them in the windows of executions ` +
				`${lostWithWorker.join(', ') || 'none'} (lost with their worker, run data replaced by n8n)`,
		);
		// Every poll stayed within its bound, and every execution that ran, ran on a worker, never on main.
		for (const execution of all)
			expect(triggerItems(execution, TRIGGER_NODE).length).toBeLessThanOrEqual(
				MAX_CHATS_PER_POLL + 100,
			);
		for (const execution of succeeded) expect(ranOnWorker(execution.id)).toBe(true);
		expect(ranOnWorker(victimExecution)).toBe(true);
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
		// Activation polls at once, then on schedule: had it lost the cursor, its execution would exist by now.
		await twoMorePolls();
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
		await twoMorePolls();
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
	// The export's regular-mode run and its timing are the engine's (test/engine/actions.test.ts, Return All over every
	// page) and the benchmarks'; here, that a webhook's workflow runs on a worker and returns every page.
	test('a 1,000-chat Get Many export, started by a webhook, runs on a worker and returns every chat', async () => {
		const before = await lastId(IDS.export);
		await postWebhook(WEBHOOK_PATHS.export, {});
		const queued = await nextFinished(IDS.export, before);
		expect(queued.status).toBe('success');
		expect(ranOnWorker(queued.id)).toBe(true);
		expect(queued.data.resultData.runData[EXPORT_NODE][0].data?.main[0]).toHaveLength(EXPORT_CHATS);
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
		// A second send could only come from the job run again: Bull fails it as stalled instead, with nothing left to run.
		expect(await bullFailedJobOf(executionId)).toBe('job stalled more than allowable limit');
		await waitFor(`broadcast execution ${executionId} to end`, async () => {
			const execution = (await states(workflowId)).find(
				(candidate) => candidate.id === executionId,
			);
			return execution && FINAL.has(execution.status);
		});
		return (await executions(workflowId)).find((candidate) => candidate.id === executionId)!;
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
		// One request: a later one would never go out, which the stop's test proves.
		const batch = contacts(3000, RECIPIENTS_PER_REQUEST);
		const phones = batch.map((contact) => contact.phone);
		exports.control.injectFault({
			kind: 'delay',
			delayMs: IN_FLIGHT_MS,
			path: BROADCAST_PATH,
			count: 1,
		});
		const before = await lastId(IDS.broadcast);
		const requestsBefore = exports.control.requestLog().length;
		await postWebhook(WEBHOOK_PATHS.broadcast, { contacts: batch });
		const inFlight = () =>
			exports.control
				.requestLog()
				.slice(requestsBefore)
				.some((entry) => entry.path === BROADCAST_PATH && entry.status === 0);
		const ended = await killWorkerOf(IDS.broadcast, before, inFlight);
		expect(ended.status).not.toBe('success');
		expect(
			(await executions(IDS.broadcast)).filter((execution) => execution.id > before),
		).toHaveLength(1);
		expect(timesSent(phones)).toEqual(phones.map(() => 1));
	});

	// Three requests of RECIPIENTS_PER_REQUEST; the first is answered IN_FLIGHT_MS late, and a later one that went out
	// would be answered at once. The stop goes from main's onCancel in WorkflowRunner.enqueueExecution through
	// ScalingService.stopJob (Bull's progress event "abort-job") to the worker's JobProcessor.stopJob, which throws, so a
	// stopped run never logs "Worker finished execution N". With 3,000 recipients of 1,000 a request, a loaded worker's
	// event loop was held for seconds reading the items' expressions: the job's Bull lock ran out, Bull failed it as
	// stalled, and stopJob removes a job that is no longer active instead of telling its worker (docs/reliability.md).
	test('a broadcast stopped on its worker while its first request is in flight: it ends canceled, and its later requests are never sent', async () => {
		exports.control.injectFault({
			kind: 'delay',
			delayMs: IN_FLIGHT_MS,
			path: BROADCAST_PATH,
			count: 1,
		});
		const before = await lastId(IDS.broadcast);
		const requestsBefore = exports.control.requestLog().length;
		const broadcastRequests = () =>
			exports.control
				.requestLog()
				.slice(requestsBefore)
				.filter((entry) => entry.path === BROADCAST_PATH).length;
		await postWebhook(WEBHOOK_PATHS.broadcast, {
			contacts: contacts(4000, 3 * RECIPIENTS_PER_REQUEST),
		});
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
		const finishedOnWorker = () =>
			cluster.workers.some((worker) =>
				worker.serverOutput.includes(`Worker finished execution ${executionId} (`),
			);
		// Until Bull has failed the job (the worker fails it only once the node has returned: n8n-core's WorkflowExecute
		// lets the running node finish after a cancel, so any later request went out before), or the worker ran it to the end.
		const failedReason = await bullFailedJobOf(executionId, finishedOnWorker);
		exports.control.clearFaults();
		const stopped = (await states(IDS.broadcast)).find((candidate) => candidate.id === executionId);
		expect({
			reachedWorker: failedReason !== undefined,
			failedReason,
			status: stopped?.status,
			sent: broadcastRequests(),
		}).toEqual({
			reachedWorker: true,
			failedReason: 'The execution was cancelled manually',
			status: 'canceled',
			sent: sentAtStop,
		});
		expect(sentAtStop).toBeLessThan(3);
	});
});
