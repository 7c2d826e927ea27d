// Drives one real n8n (the pinned runtime) for the e2e tests and the demo: its package, its CLI and its REST API.
import { once } from 'node:events';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { text } from 'node:stream/consumers';

import type { IDataObject, IWorkflowBase } from 'n8n-workflow';

import { readExecutions, type FinishedRunData, type RestCall } from './executions';
import * as processes from './processes';
import { freePort, quiet, seconds, waitUntil, type Log, type Started } from './processes';
import type { N8nRuntime } from './runtime';

/** Who the REST session logs in as unless setOwner names another: executions are read through the REST API. */
const DEFAULT_OWNER = {
	email: 'owner@n8n-nodes-svc.test',
	password: 'Svc-owner-2026',
	firstName: 'Svc',
	lastName: 'Owner',
};
export type Owner = typeof DEFAULT_OWNER;
/** Fixed, so credentials imported in one run stay readable in the next (demo) and across CLI calls (tests). */
const ENCRYPTION_KEY = 'n8n-nodes-svc-local-encryption-key-not-a-secret';

/** A workflow as n8n exports it (importWorkflows leaves `active` out: publishWorkflows publishes). */
export type Workflow = Pick<IWorkflowBase, 'id' | 'name' | 'nodes' | 'connections'> &
	Partial<Pick<IWorkflowBase, 'settings' | 'pinData' | 'active' | 'staticData' | 'isArchived'>>;
/** A credential as `n8n export:credentials` writes it (decrypted), of any type. */
export type ExportedCredential = { id: string; name: string; type: string; data: IDataObject };

export const readJson = <T>(file: string): T => JSON.parse(fs.readFileSync(file, 'utf8')) as T;

export function readWorkflowsIn(folder: string): Workflow[] {
	const files = fs.readdirSync(folder).filter((name) => name.endsWith('.json'));
	return files.sort().map((name) => readJson<Workflow>(path.join(folder, name)));
}

/**
 * An n8n on `port` (default: a free one) in `userFolder` (default: a fresh temporary folder, removed by dispose());
 * `env` adds to (or overrides) the offline settings; `command` is what start() runs: `start` (default), `worker`, `webhook`.
 */
type N8nOptions = {
	runtime: N8nRuntime;
	userFolder?: string;
	port?: number;
	log?: Log;
	env?: Record<string, string>;
	command?: string[];
};

export class N8n {
	readonly baseUrl: string;
	readonly env: Record<string, string>;
	/** Where n8n looks for community packages: `<userFolder>/.n8n/nodes/node_modules/<name>`. */
	readonly packageFolder: string;
	private owner = DEFAULT_OWNER;
	private server?: Started;
	/** The owner's REST session while this server runs: logging in costs n8n a bcrypt check, and the tests poll. */
	private session?: Promise<RestCall>;
	/** Run data of the finished executions read so far (readExecutions): the tests poll them. */
	private readonly finishedRunData: FinishedRunData = new Map();
	/** What earlier runs of the server said: tests look for which process ran what, across restarts. */
	private earlierOutput = '';

	private readonly log: Log;

	private constructor(
		readonly runtime: N8nRuntime,
		readonly userFolder: string,
		ports: { port: number; brokerPort: number },
		private readonly options: N8nOptions,
	) {
		this.baseUrl = `http://127.0.0.1:${ports.port}`;
		this.log = options.log ?? quiet;
		this.packageFolder = path.join(userFolder, '.n8n/nodes/node_modules/n8n-nodes-svc');
		this.env = {
			PATH: `${path.dirname(runtime.nodeBin)}:${process.env.PATH ?? '/usr/bin:/bin'}`,
			HOME: userFolder,
			TMPDIR: os.tmpdir(),
			// UTC unless the caller says otherwise (the demo uses the local zone): "yesterday" must not depend on the machine.
			TZ: 'UTC',
			GENERIC_TIMEZONE: 'UTC',
			LANG: process.env.LANG ?? 'C.UTF-8',
			N8N_USER_FOLDER: userFolder,
			N8N_ENCRYPTION_KEY: ENCRYPTION_KEY,
			// Offline: nothing phones home, nothing is fetched.
			N8N_DIAGNOSTICS_ENABLED: 'false',
			N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
			N8N_TEMPLATES_ENABLED: 'false',
			N8N_PERSONALIZATION_ENABLED: 'false',
			// Loopback only, on ports of this run.
			N8N_LISTEN_ADDRESS: '127.0.0.1',
			N8N_HOST: '127.0.0.1',
			N8N_PORT: String(ports.port),
			N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
			N8N_RUNNERS_BROKER_PORT: String(ports.brokerPort),
			N8N_SECURE_COOKIE: 'false',
			N8N_LOG_LEVEL: 'warn',
			// Node 22+ keeps the code it compiled for n8n's modules: a later start compiles less (Node 20 ignores it).
			NODE_COMPILE_CACHE: path.join(runtime.dir, 'compile-cache'),
		};
		// A flavour's undefined removes a variable.
		Object.assign(this.env, runtime.flavour.env, options.env);
		for (const name in this.env) if (this.env[name] === undefined) delete this.env[name];
		// A new n8n on SQLite begins from the runtime's migrated database (scripts/n8n-runtime.sh), not n8n's migrations.
		const database = path.join(userFolder, '.n8n/database.sqlite');
		if ((this.env.DB_TYPE ?? 'sqlite') === 'sqlite')
			fs.cpSync(path.join(runtime.dir, 'database-template.sqlite'), database, { force: false });
		// The zone by the name n8n's editor lists, else "Default Timezone not valid": Intl calls some zones by aliases the
		// list lacks (UTC, Asia/Calcutta); of two names (Etc/GMT, Etc/UTC), the last. Any other zone is kept as it is.
		const listed = Object.keys((runtime.require('./dist/timezones.json') as { data: object }).data);
		const intlName = (timeZone: string) =>
			Intl.DateTimeFormat([], { timeZone }).resolvedOptions().timeZone;
		const zone = this.env.GENERIC_TIMEZONE;
		this.env.GENERIC_TIMEZONE = listed.filter((name) => intlName(name) === zone).pop() ?? zone;
		this.setOwner(DEFAULT_OWNER);
	}

	static async create(options: N8nOptions): Promise<N8n> {
		const userFolder = options.userFolder ?? fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-svc-'));
		fs.mkdirSync(userFolder, { recursive: true });
		const port = options.port ?? (await freePort());
		let brokerPort = await freePort();
		while (brokerPort === port) brokerPort = await freePort();
		return new N8n(options.runtime, userFolder, { port, brokerPort }, options);
	}

	/** Installs the built package the way n8n installs a community package: its package.json and dist/. */
	installPackage(packageDir: string): void {
		// n8n refuses the whole package when one listed file is missing, with an error that is easy to miss in its log.
		type Manifest = { n8n?: Partial<Record<'nodes' | 'credentials', string[]>> };
		const { n8n } = readJson<Manifest>(path.join(packageDir, 'package.json'));
		const listed = [...(n8n?.nodes ?? []), ...(n8n?.credentials ?? [])];
		const missing = listed.filter((file) => !fs.existsSync(path.join(packageDir, file)));
		if (!listed.length || missing.length)
			throw new Error(
				`The package in ${packageDir} is not built: ${missing.join(', ') || 'package.json lists no n8n nodes'} missing (run npm run build)`,
			);
		fs.rmSync(this.packageFolder, { recursive: true, force: true });
		for (const entry of ['package.json', 'dist'])
			fs.cpSync(path.join(packageDir, entry), path.join(this.packageFolder, entry), {
				recursive: true,
			});
		this.log(`package installed in ${this.packageFolder}`);
	}

	/** Sets the owner account from the environment (n8n's N8N_INSTANCE_OWNER_*), so nobody has to click through setup. */
	setOwner(owner: Owner): void {
		// n8n reads it at start: set later, the REST session and a browser would sign in as someone n8n does not know.
		if (this.server) throw new Error('setOwner must come before n8n starts (an import starts it)');
		this.owner = owner;
		const bcrypt = this.runtime.require('bcryptjs') as {
			hashSync(text: string, rounds: number): string;
		};
		Object.assign(this.env, {
			N8N_INSTANCE_OWNER_MANAGED_BY_ENV: 'true',
			N8N_INSTANCE_OWNER_EMAIL: owner.email,
			N8N_INSTANCE_OWNER_FIRST_NAME: owner.firstName,
			N8N_INSTANCE_OWNER_LAST_NAME: owner.lastName,
			N8N_INSTANCE_OWNER_PASSWORD_HASH: bcrypt.hashSync(owner.password, 10),
		});
	}

	/** Logs in to the running n8n's REST API as the owner, as the editor does: a request function carrying the cookie. */
	async restSession(owner = this.owner): Promise<RestCall> {
		const send = async (method: string, route: string, body: unknown, cookie?: string) =>
			await fetch(`${this.baseUrl}/rest/${route}`, {
				method,
				headers: { 'content-type': 'application/json', ...(cookie && { cookie }) },
				body: body === undefined ? undefined : JSON.stringify(body),
			});
		const { email, password } = owner;
		// n8n 1.x mounts its REST API a moment after /healthz/readiness answers: until then, /rest/login is a 404.
		let login = await waitUntil(
			async () => {
				const reply = await send('POST', 'login', { emailOrLdapLoginId: email, email, password });
				return reply.status !== 404 && reply;
			},
			{ what: `n8n's REST API on ${this.baseUrl}`, timeoutMs: 60_000, process: this.server },
		);
		// n8n 1.x takes no owner from the environment (2.17 does): the first session sets it up, as the setup page does.
		if (login.status !== 200 && this.runtime.flavour.name === 'n8n-1') {
			const setup = await send('POST', 'owner/setup', owner);
			if (setup.status === 200) login = setup;
		}
		if (login.status !== 200)
			throw new Error(`n8n login as ${email}: ${login.status} ${await login.text()}`);
		const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0];
		// On a loaded machine n8n's SQLite can refuse a request before anything is done: a write lock not acquired in
		// time, or "Database is not ready" until n8n's next health ping of it succeeds (every 2 s; one that takes over 5 s
		// fails, and CI met such a run of them). Sent again, as a person would, for up to a minute. Any other answer counts.
		const refusedByItsDatabase = (status: number, text: string) =>
			(status === 503 && text.includes('Database is not ready')) ||
			(status === 500 && text.includes('LockAcquireTimeoutError'));
		return async (method, route, body) => {
			const firstSent = Date.now();
			for (let attempt = 1; ; attempt++) {
				const reply = await send(method, route, body, cookie);
				const text = await reply.text();
				if (reply.status === 200) return (JSON.parse(text) as { data: IDataObject }).data;
				if (Date.now() - firstSent > 60_000 || !refusedByItsDatabase(reply.status, text))
					throw new Error(`${method} /rest/${route}: ${reply.status} ${text}`);
				await new Promise((resolve) => setTimeout(resolve, Math.min(1_000 * attempt, 5_000)));
			}
		};
	}

	/** The owner's session on the server, logged in once per start; starts it first: most of n8n goes through REST. */
	async rest(): Promise<RestCall> {
		await this.start();
		this.session ??= this.restSession().catch((error: unknown) => {
			this.session = undefined;
			throw error;
		});
		return await this.session;
	}

	/** A workflow's static data as n8n stored it: each trigger's (a polling trigger's cursor) under `node:<its name>`. */
	async staticData(workflowId: string) {
		const { staticData } = await (await this.rest())('GET', `workflows/${workflowId}`);
		return staticData as Record<string, Record<string, unknown>> | null | undefined;
	}

	/** Runs one n8n CLI command (three minutes at most); throws with its output when it fails, unless `allowFailure`. */
	async cli(
		args: string[],
		options: { env?: Record<string, string>; allowFailure?: boolean } = {},
	) {
		const result = await processes.run(this.runtime.nodeBin, [this.runtime.n8nBin, ...args], {
			env: { ...this.env, ...options.env },
			cwd: this.userFolder,
			timeout: 180_000,
		});
		const exit = result.timedOut ? 'killed: out of time' : (result.exitCode ?? result.signal);
		this.log(`n8n ${args[0]}: exit ${exit} in ${seconds(result.ms)}`);
		if (result.exitCode !== 0 && !options.allowFailure)
			throw new Error(
				`n8n ${args.join(' ')} failed (exit ${exit}):\n${result.stdout}\n${result.stderr}`,
			);
		return result;
	}

	/**
	 * Creates credentials of any type (`svcApi`, an OpenAI account…) as n8n exports them, through the REST API, updating
	 * one of the same name and type (the demo's). n8n gives them ids of its own (returned); a workflow's reference whose id
	 * it lacks finds them by name and type (replaceInvalidCredentials, n8n/dist/workflow-helpers.js in 2.41.1 and 1.123.81).
	 */
	async importCredentials(
		credentials: ExportedCredential[],
	): Promise<Array<{ id: string; name: string }>> {
		const rest = await this.rest();
		const existing = (await rest('GET', 'credentials')) as unknown as ExportedCredential[];
		const stored = [];
		for (const { name, type, data } of credentials) {
			const same = existing.find((one) => one.name === name && one.type === type);
			const route = same ? `credentials/${same.id}` : 'credentials';
			const saved = await rest(same ? 'PATCH' : 'POST', route, { name, type, data });
			stored.push({ id: String(saved.id), name });
		}
		this.log(`credentials: ${credentials.map(({ name }) => `"${name}"`).join(', ')}`);
		return stored;
	}

	/**
	 * Creates workflows with their ids through the REST API, replacing one of the same id with its executions and static
	 * data (the demo's examples come back as shipped). The CLI imports them where REST cannot: on n8n 1.x, which drops a
	 * given id (POST /rest/workflows, 1.123.81's workflows.controller.js), and with static data, which 2.x's leaves out;
	 * `throughCli` for what 2.x's REST API refuses to save, as a workflow file brought in by hand may hold.
	 */
	async importWorkflows(workflows: Workflow[], { throughCli = false } = {}): Promise<void> {
		const cli = throughCli || this.runtime.flavour.name === 'n8n-1';
		if (cli || workflows.some(({ staticData }) => staticData)) {
			const file = path.join(this.userFolder, 'workflows-to-import.json');
			fs.writeFileSync(file, JSON.stringify(workflows));
			await this.cli(['import:workflow', `--input=${file}`]).finally(() => fs.rmSync(file));
		} else {
			const rest = await this.rest();
			const stored = (await rest('GET', 'workflows')) as unknown as Workflow[];
			for (const workflow of workflows) {
				const same = stored.find(({ id }) => id === workflow.id);
				if (same && !same.isArchived) await rest('POST', `workflows/${same.id}/archive`, {});
				// Archiving unpublishes it through n8n's publication outbox, after the call: till then, DELETE is a 409.
				const deleted = async () => await rest('DELETE', `workflows/${workflow.id}`).then(Boolean);
				const what = `the deletion of workflow ${workflow.id}`;
				if (same) await waitUntil(deleted, { what, timeoutMs: 60_000, process: this.server });
				await rest('POST', 'workflows', workflow);
			}
		}
		this.log(`workflows: ${workflows.map(({ name }) => `"${name}"`).join(', ')}`);
	}

	/** Publishes workflows through the REST API, and waits until their triggers and webhooks run (2.x: after the call). */
	async publishWorkflows(ids: string[]): Promise<void> {
		const rest = await this.rest();
		for (const id of ids) {
			const { versionId } = await rest('GET', `workflows/${id}`);
			await rest('POST', `workflows/${id}/activate`, { versionId });
			// n8n 2.41.1 publishes in its outbox after the call, a record within 0.7 of its 120 s lease + 10 s; 1.x in it.
			if (this.runtime.flavour.name === 'n8n-1') continue;
			const settled = async () => {
				const publication = await rest('GET', `workflows/${id}/publication-status`);
				return publication.status !== 'in_progress' && publication;
			};
			const state = await waitUntil(settled, { what: `publishing ${id}`, timeoutMs: 120_000 });
			if (state.status !== 'published')
				throw new Error(`Publishing workflow ${id}: ${JSON.stringify(state)}`);
		}
	}

	/** Starts the instance's command unless it runs; waits (2 min at most) for its port (a worker's QUEUE_HEALTH_CHECK_PORT). */
	async start(): Promise<void> {
		if (this.server) return;
		const started = Date.now();
		const command = this.options.command ?? ['start'];
		const what = `n8n ${command.join(' ')}`;
		if (this.earlierOutput) this.earlierOutput += `\n--- restarted: ${what} ---\n`;
		const { nodeBin, n8nBin } = this.runtime;
		const spawn = { env: this.env, cwd: this.userFolder };
		const server = processes.start(nodeBin, [n8nBin, ...command], spawn);
		this.server = server;
		const readiness = `${this.baseUrl}/healthz/readiness`;
		const ready = async () =>
			(await fetch(readiness, { signal: AbortSignal.timeout(2_000) })).status === 200;
		try {
			await waitUntil(ready, { what, timeoutMs: 120_000, process: server });
		} catch (error) {
			await this.stop();
			throw error;
		}
		this.log(`n8n ready on ${this.baseUrl} after ${seconds(Date.now() - started)}`);
	}

	/** Everything the server said, over its restarts (the tail of each run). */
	get serverOutput(): string {
		return this.earlierOutput + (this.server?.output() ?? '');
	}

	/** Resolves when the server process ends (for the demo: n8n died on its own). */
	whenServerExits = async () => (await this.server)?.exitCode ?? null;

	get running(): boolean {
		return this.server !== undefined;
	}

	/** Stops the server's whole process group with `signal` (SIGKILL: a crash; SIGTERM, then SIGKILL after a grace period). */
	async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
		const server = this.server;
		this.server = undefined;
		this.session = undefined;
		if (!server) return;
		await processes.stop(server, signal);
		this.earlierOutput = (this.earlierOutput + server.output()).slice(-200_000);
	}

	/** Executions through the REST API (starting n8n when it does not run: after a crash, it runs its triggers again). */
	async readExecutions(
		workflowId: string,
		options: { all?: boolean; withData?: boolean; latest?: boolean } = {},
	) {
		const rest = await this.rest();
		return await readExecutions(rest, this.runtime, workflowId, options, this.finishedRunData);
	}

	/** Waits until the workflow has at least `count` finished executions, and returns them. */
	async waitForExecutions(workflowId: string, count = 1, timeoutMs = 90_000) {
		const enough = async () => {
			const executions = await this.readExecutions(workflowId);
			if (executions.length < count) throw new Error(`${executions.length} found`);
			return executions;
		};
		const what = `${count} finished executions of workflow ${workflowId}`;
		return await waitUntil(enough, { what, timeoutMs, process: this.server, everyMs: 500 });
	}

	/** Stops everything this instance started and removes its temporary user folder. */
	async dispose(): Promise<void> {
		await this.stop();
		if (this.options.userFolder === undefined && !process.env.E2E_KEEP)
			fs.rmSync(this.userFolder, { recursive: true, force: true });
	}
}

/**
 * POSTs JSON on a connection of its own. Why not fetch: its pooled keep-alive connection can be closed by n8n just as
 * the next request goes out ("fetch failed" on a busy machine), and a webhook POST is not something to resend blindly.
 */
export async function postJsonOnNewConnection(
	url: string,
	body: unknown,
	timeoutMs: number,
	extraHeaders: Record<string, string> = {},
) {
	// agent: false gives the request a connection of its own; Node sends its length and `Connection: close`.
	const headers = { 'content-type': 'application/json', ...extraHeaders };
	const request = http.request(url, { method: 'POST', agent: false, headers, timeout: timeoutMs });
	request.on('timeout', () =>
		request.destroy(new Error(`POST ${url}: no answer in ${timeoutMs / 1000} s`)),
	);
	request.end(JSON.stringify(body));
	// once() rejects on the request's 'error' (refused, reset, timed out); text() on a broken body.
	const [response] = (await once(request, 'response')) as [http.IncomingMessage];
	return { status: response.statusCode ?? 0, text: await text(response) };
}
