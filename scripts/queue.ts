// n8n in queue mode for the e2e tests: Postgres and Redis (the machine's, else Debian's) on loopback, and n8n as main + workers (+ webhook).
import { execFileSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

import {
	delay,
	freePort,
	N8n,
	quiet,
	type Log,
	type N8nRuntime,
	type Owner,
	type RunData,
} from './n8n';
import { runTracked, signalProcess, spawnTracked } from './processes';
import { postgresPrograms, redisServer } from './system-programs';

/**
 * Postgres refuses to run as root: as root, its commands run as the `postgres` user that Debian's package creates
 * (setpriv execs, no extra process); any other user (GitHub's runners, a contributor) runs it as themselves.
 */
function asPostgresUser(command: string, args: string[]): [string, string[]] {
	if (process.getuid?.() !== 0) return [command, args];
	return [
		'setpriv',
		['--reuid=postgres', '--regid=postgres', '--init-groups', '--', command, ...args],
	];
}

function ownForPostgres(folder: string): void {
	if (process.getuid?.() !== 0) return;
	const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
	const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
	fs.chownSync(folder, uid, gid);
}

async function waitUntil(
	what: string,
	ready: () => Promise<boolean>,
	child: ChildProcess,
	output: () => string,
	timeoutMs = 60_000,
): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (!(await ready())) {
		if (child.exitCode !== null || child.signalCode !== null)
			throw new Error(
				`${what} exited (${child.exitCode ?? child.signalCode}) before it was ready:\n${output()}`,
			);
		if (Date.now() > deadline)
			throw new Error(`${what} was not ready within ${timeoutMs} ms:\n${output()}`);
		await delay(200);
	}
}

function collectOutput(child: ChildProcess): () => string {
	let output = '';
	const keep = (chunk: Buffer) => (output = (output + chunk.toString('utf8')).slice(-20_000));
	child.stdout?.on('data', keep);
	child.stderr?.on('data', keep);
	return () => output;
}

export interface Service {
	port: number;
	stop(): Promise<void>;
}

export interface Postgres extends Service {
	host: string;
	database: string;
	user: string;
}

/** A throwaway Postgres cluster: data in a temporary folder, trust auth on 127.0.0.1 only, database `n8n`. */
export async function startPostgres(log: Log = quiet): Promise<Postgres> {
	const programs = postgresPrograms();
	const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-postgres-'));
	ownForPostgres(folder);
	const dataDir = path.join(folder, 'data');
	const user = 'n8n';
	const started = Date.now();
	const remove = () => fs.rmSync(folder, { recursive: true, force: true });
	try {
		const [initdb, initArgs] = asPostgresUser(programs.initdb, [
			'-D',
			dataDir,
			'-U',
			user,
			'--auth=trust',
			'-E',
			'UTF8',
			'--no-sync',
		]);
		const init = await runTracked(initdb, initArgs, { timeoutMs: 120_000, cwd: folder });
		if (init.code !== 0) throw new Error(`initdb failed:\n${init.stdout}\n${init.stderr}`);
	} catch (error) {
		remove();
		throw error;
	}
	const port = await freePort();
	// Durability settings off: a test database that is thrown away; it is the n8n side whose crashes are tested.
	const [postgres, args] = asPostgresUser(programs.postgres, [
		'-D',
		dataDir,
		'-p',
		String(port),
		'-k',
		folder,
		'-c',
		'listen_addresses=127.0.0.1',
		'-c',
		'fsync=off',
		'-c',
		'synchronous_commit=off',
		'-c',
		'full_page_writes=off',
	]);
	const child = spawnTracked(postgres, args, { cwd: folder, stdio: ['ignore', 'pipe', 'pipe'] });
	const output = collectOutput(child);
	const stop = async () => {
		// SIGINT is Postgres's fast shutdown: clients are disconnected rather than waited for.
		await signalProcess(child, 'SIGINT');
		remove();
	};
	try {
		const isReady = async () =>
			(
				await runTracked(programs.pg_isready, ['-h', '127.0.0.1', '-p', String(port), '-U', user], {
					timeoutMs: 10_000,
				})
			).code === 0;
		await waitUntil('Postgres', isReady, child, output);
		const created = await runTracked(
			programs.createdb,
			['-h', '127.0.0.1', '-p', String(port), '-U', user, 'n8n'],
			{ timeoutMs: 30_000 },
		);
		if (created.code !== 0) throw new Error(`createdb n8n failed:\n${created.stderr}`);
	} catch (error) {
		await stop();
		throw error;
	}
	log(
		`Postgres on 127.0.0.1:${port} (data in ${dataDir}) in ${((Date.now() - started) / 1000).toFixed(1)} s`,
	);
	return { host: '127.0.0.1', port, database: 'n8n', user, stop };
}

async function redisAnswersPing(port: number): Promise<boolean> {
	return await new Promise((resolve) => {
		const socket = net.connect(port, '127.0.0.1');
		let reply = '';
		socket.setTimeout(2_000, () => socket.destroy());
		socket.on('connect', () => socket.write('PING\r\n'));
		socket.on('data', (chunk) => {
			reply += chunk.toString();
			if (reply.includes('\r\n')) socket.end();
		});
		socket.on('close', () => resolve(reply.startsWith('+PONG')));
		socket.on('error', () => resolve(false));
	});
}

/** A throwaway Redis: no persistence, 127.0.0.1 only. */
export async function startRedis(log: Log = quiet): Promise<Service> {
	const server = redisServer();
	const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-redis-'));
	const port = await freePort();
	const child = spawnTracked(
		server,
		[
			'--port',
			String(port),
			'--bind',
			'127.0.0.1',
			'--save',
			'',
			'--appendonly',
			'no',
			'--dir',
			folder,
		],
		{
			cwd: folder,
			stdio: ['ignore', 'pipe', 'pipe'],
		},
	);
	const output = collectOutput(child);
	const stop = async () => {
		await signalProcess(child, 'SIGTERM');
		fs.rmSync(folder, { recursive: true, force: true });
	};
	try {
		await waitUntil('Redis', () => redisAnswersPing(port), child, output);
	} catch (error) {
		await stop();
		throw error;
	}
	log(`Redis on 127.0.0.1:${port}`);
	return { port, stop };
}

// ---------------------------------------------------------------------------------------------------------------
// Reading n8n's Postgres database

export interface QueueExecution {
	id: number;
	mode: string;
	status: string;
	startedAt: Date | null;
	stoppedAt: Date | null;
	data: RunData & {
		executionData?: {
			nodeExecutionStack?: Array<{
				node: { name: string };
				data: { main: Array<Array<{ json: Record<string, unknown> }> | null> };
			}>;
		};
	};
}

interface PgClient {
	connect(): Promise<void>;
	query<T>(sql: string, values?: unknown[]): Promise<{ rows: T[] }>;
	end(): Promise<void>;
}

/** n8n's own `pg` and `flatted` (from the runtime), so the reader matches what n8n wrote. */
export class QueueDatabase {
	private constructor(
		private readonly client: PgClient,
		private readonly parse: (text: string) => unknown,
	) {}

	static async connect(runtime: N8nRuntime, postgres: Postgres): Promise<QueueDatabase> {
		const runtimeRequire = createRequire(path.join(runtime.dir, 'node_modules/n8n/package.json'));
		const { Client } = runtimeRequire('pg') as { Client: new (config: object) => PgClient };
		const { parse } = runtimeRequire('flatted') as { parse: (text: string) => unknown };
		const client = new Client({
			host: postgres.host,
			port: postgres.port,
			user: postgres.user,
			database: postgres.database,
		});
		await client.connect();
		return new QueueDatabase(client, parse);
	}

	/** Every execution of a workflow (any status), oldest first, with its run data. */
	async executions(workflowId: string): Promise<QueueExecution[]> {
		const { rows } = await this.client.query<
			Omit<QueueExecution, 'data'> & { data: string | null }
		>(
			`select e.id, e.mode, e.status, e."startedAt", e."stoppedAt", d.data
			   from execution_entity e left join execution_data d on d."executionId" = e.id
			  where e."workflowId" = $1 order by e.id`,
			[workflowId],
		);
		return rows.map((row) => ({
			...row,
			id: Number(row.id),
			data: (row.data
				? this.parse(row.data)
				: { resultData: { runData: {} } }) as QueueExecution['data'],
		}));
	}

	/** Id, status and times of every execution of a workflow, without its run data: cheap enough to poll often. */
	async executionStates(workflowId: string): Promise<Array<Omit<QueueExecution, 'data'>>> {
		const { rows } = await this.client.query<Omit<QueueExecution, 'data'>>(
			'select id, mode, status, "startedAt", "stoppedAt" from execution_entity where "workflowId" = $1 order by id',
			[workflowId],
		);
		return rows.map((row) => ({ ...row, id: Number(row.id) }));
	}

	/** The workflow's static data (where a polling trigger keeps its cursor), as n8n stored it. */
	async staticData(workflowId: string): Promise<Record<string, unknown> | null> {
		const { rows } = await this.client.query<{ staticData: Record<string, unknown> | null }>(
			'select "staticData" from workflow_entity where id = $1',
			[workflowId],
		);
		return rows[0]?.staticData ?? null;
	}

	async close(): Promise<void> {
		await this.client.end();
	}
}

/**
 * The items a trigger node handed to an execution: from its run data once the execution ran it, else from the
 * execution's start stack, where main stored them before a worker picked the job up (a crashed job keeps them there).
 */
export function triggerItems(
	execution: QueueExecution,
	triggerName: string,
): Array<Record<string, unknown>> {
	const run = execution.data.resultData?.runData?.[triggerName]?.[0];
	const fromRun = run?.data?.main[0];
	if (fromRun) return fromRun.map((item) => item.json);
	const stacked = execution.data.executionData?.nodeExecutionStack?.find(
		(entry) => entry.node.name === triggerName,
	);
	return (stacked?.data.main[0] ?? []).map((item) => item.json);
}

// ---------------------------------------------------------------------------------------------------------------
// The cluster

export interface QueueClusterOptions {
	runtime: N8nRuntime;
	/** The built package (its package.json and dist/), installed into every process's user folder. */
	packageDir: string;
	workers?: number;
	/** Also start `n8n webhook` (a webhook processor) beside main. */
	webhookProcessor?: boolean;
	owner?: Owner;
	log?: Log;
	/** Added to every process's environment. */
	env?: Record<string, string>;
}

/**
 * Main (triggers, schedules, REST, webhooks) plus workers (executions) on one Postgres and one Redis.
 * Each process has its own user folder with the package installed, as on separate machines.
 */
export class QueueCluster {
	readonly workers: N8n[] = [];

	webhook?: N8n;

	private constructor(
		readonly main: N8n,
		readonly postgres: Postgres,
		readonly redis: Service,
		readonly database: QueueDatabase,
		private readonly options: QueueClusterOptions,
	) {}

	/** Starts Postgres and Redis and prepares main (not started: import and publish first, then startAll()). */
	static async create(options: QueueClusterOptions): Promise<QueueCluster> {
		const log = options.log ?? quiet;
		const postgres = await startPostgres(log);
		let redis: Service | undefined;
		let main: N8n | undefined;
		try {
			redis = await startRedis(log);
			const sharedEnv = QueueCluster.sharedEnv(postgres, redis, options.env);
			main = await N8n.create({ runtime: options.runtime, log, env: sharedEnv });
			main.installPackage(options.packageDir);
			if (options.owner) main.setOwner(options.owner);
			const cluster = new QueueCluster(
				main,
				postgres,
				redis,
				await QueueDatabase.connect(options.runtime, postgres),
				options,
			);
			for (let index = 0; index < (options.workers ?? 2); index++)
				cluster.workers.push(
					await cluster.createProcess({ QUEUE_HEALTH_CHECK_ACTIVE: 'true' }, true),
				);
			if (options.webhookProcessor) cluster.webhook = await cluster.createProcess({});
			return cluster;
		} catch (error) {
			await main?.dispose();
			await redis?.stop();
			await postgres.stop();
			throw error;
		}
	}

	private static sharedEnv(
		postgres: Postgres,
		redis: Service,
		extra: Record<string, string> = {},
	): Record<string, string> {
		return {
			DB_TYPE: 'postgresdb',
			DB_POSTGRESDB_HOST: postgres.host,
			DB_POSTGRESDB_PORT: String(postgres.port),
			DB_POSTGRESDB_DATABASE: postgres.database,
			DB_POSTGRESDB_USER: postgres.user,
			DB_POSTGRESDB_PASSWORD: '',
			EXECUTIONS_MODE: 'queue',
			QUEUE_BULL_REDIS_HOST: '127.0.0.1',
			QUEUE_BULL_REDIS_PORT: String(redis.port),
			// Info level: the workers' "started execution N" lines say which worker runs what.
			N8N_LOG_LEVEL: 'info',
			...extra,
		};
	}

	private async createProcess(env: Record<string, string>, healthPort = false): Promise<N8n> {
		const port = await freePort();
		const processEnv = {
			...QueueCluster.sharedEnv(this.postgres, this.redis, this.options.env),
			...env,
		};
		if (healthPort) processEnv.QUEUE_HEALTH_CHECK_PORT = String(port);
		const instance = await N8n.create({
			runtime: this.options.runtime,
			log: this.options.log,
			port,
			env: processEnv,
		});
		instance.installPackage(this.options.packageDir);
		return instance;
	}

	/** Starts main, then the workers (and the webhook processor) side by side. */
	async startAll(): Promise<void> {
		await this.main.start();
		await Promise.all([
			...this.workers.map((worker) => this.startWorker(worker)),
			this.webhook?.start({ command: ['webhook'] }),
		]);
	}

	async startWorker(worker: N8n): Promise<void> {
		await worker.start({ command: ['worker', '--concurrency=5'] });
	}

	/**
	 * Publishes workflows on the running main through its REST API, as the editor's Publish button does: no CLI boot
	 * (each costs tens of seconds on Postgres), and main starts their triggers and webhooks at once.
	 */
	async publish(ids: string[]): Promise<void> {
		if (!this.options.owner) throw new Error('QueueCluster.publish needs the owner option');
		const rest = await this.main.restSession(this.options.owner);
		for (const id of ids) {
			const workflow = await rest('GET', `workflows/${id}`);
			await rest('POST', `workflows/${id}/activate`, { versionId: workflow.versionId });
		}
	}

	/** The worker whose log says it started `executionId` and has not finished it, if any. */
	workerRunning(executionId: number): N8n | undefined {
		return this.workers.find(
			(worker) =>
				worker.serverPid !== undefined &&
				worker.serverOutput.includes(`Worker started execution ${executionId} (`) &&
				!worker.serverOutput.includes(`Worker finished execution ${executionId} (`),
		);
	}

	/** Stops every n8n process, then Redis and Postgres, and removes their folders; safe to call after a failure. */
	async dispose(): Promise<void> {
		const results = await Promise.allSettled([
			this.main.dispose(),
			this.webhook?.dispose(),
			...this.workers.map((worker) => worker.dispose()),
		]);
		await this.database.close().catch(() => undefined);
		await this.redis.stop();
		await this.postgres.stop();
		const failed = results.find((result) => result.status === 'rejected');
		if (failed) throw (failed as PromiseRejectedResult).reason;
	}
}
