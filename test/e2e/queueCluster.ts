// n8n in queue mode for the e2e tests: main + workers on one Postgres and one Redis (scripts/services.ts); only queue.test.ts needs it.
import { N8n, type Owner } from '../../scripts/n8n';
import { freePort, quiet, type Log } from '../../scripts/processes';
import type { N8nRuntime } from '../../scripts/runtime';
import { startPostgres, startRedis, type Postgres, type Service } from '../../scripts/services';

/** Main (triggers, schedules, REST, webhooks) and workers (executions), each with its own user folder and package. */
export class QueueCluster {
	readonly workers: N8n[] = [];

	private constructor(
		readonly main: N8n,
		readonly postgres: Postgres,
		readonly redis: Service,
	) {}

	/**
	 * Starts Postgres and Redis and prepares main (not started: import and publish first, then startAll()). `packageDir`
	 * holds the built package, installed into every process's user folder; main's `owner` is who its REST session (which
	 * publishes workflows and reads executions) logs in as; `env` is added to every process's environment.
	 */
	static async create(options: {
		runtime: N8nRuntime;
		packageDir: string;
		workers?: number;
		owner: Owner;
		log?: Log;
		env?: Record<string, string>;
	}): Promise<QueueCluster> {
		const log = options.log ?? quiet;
		const postgres = await startPostgres(log);
		let redis: Service | undefined;
		const created: N8n[] = [];
		try {
			redis = await startRedis(log);
			const env = {
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
				...options.env,
			};
			// A worker answers /healthz/readiness on its QUEUE_HEALTH_CHECK_PORT, which is then its port (main ignores it).
			const create = async (command: string[]) => {
				const port = await freePort();
				const health = { QUEUE_HEALTH_CHECK_ACTIVE: 'true', QUEUE_HEALTH_CHECK_PORT: String(port) };
				const instance = await N8n.create({
					runtime: options.runtime,
					log,
					port,
					command,
					env: { ...env, ...health },
				});
				created.push(instance);
				instance.installPackage(options.packageDir);
				return instance;
			};
			const cluster = new QueueCluster(await create(['start']), postgres, redis);
			cluster.main.setOwner(options.owner);
			for (let index = 0; index < (options.workers ?? 2); index++)
				cluster.workers.push(await create(['worker', '--concurrency=5']));
			return cluster;
		} catch (error) {
			await Promise.allSettled(created.map((instance) => instance.dispose()));
			await redis?.stop();
			await postgres.stop();
			throw error;
		}
	}

	async startAll(): Promise<void> {
		await Promise.all([this.main, ...this.workers].map((instance) => instance.start()));
	}

	/** The worker whose log says it started `executionId` and has not finished it, if any. */
	workerRunning(executionId: number): N8n | undefined {
		return this.workers.find(
			({ running, serverOutput }) =>
				running &&
				serverOutput.includes(`Worker started execution ${executionId} (`) &&
				!serverOutput.includes(`Worker finished execution ${executionId} (`),
		);
	}

	/** Stops every n8n process, then Redis and Postgres, and removes their folders; safe to call after a failure. */
	async dispose(): Promise<void> {
		const instances = [this.main, ...this.workers];
		const results = await Promise.allSettled(instances.map((instance) => instance.dispose()));
		await this.redis.stop();
		await this.postgres.stop();
		const failed = results.find((result) => result.status === 'rejected');
		if (failed) throw failed.reason;
	}
}
