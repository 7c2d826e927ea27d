// Shared e2e set-up: the pinned runtime, a sandbox, an n8n with the built package and credentials, and poll waits.
import type { Chat } from '../../nodes/SvcChat/types';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../sandbox';
import { sandboxCredential, SANDBOX_CREDENTIAL } from '../../scripts/examples';
import type { StoredExecution } from '../../scripts/executions';
import { N8n, type ExportedCredential, type Owner } from '../../scripts/n8n';
import { quiet, waitUntil } from '../../scripts/processes';
import { ensureRuntime, FLAVOURS, REPO_ROOT, type N8nFlavour } from '../../scripts/runtime';
import { lateBound } from '../harness/lateBound';

/** Generous: the first run on a fresh machine installs the runtime (about 4 minutes) inside beforeAll. */
export const SETUP_TIMEOUT_MS = 15 * 60_000;
export const TEST_TIMEOUT_MS = 5 * 60_000;

/**
 * n8n 2.41.1's four switches for durable poll cursors, whose polls run on n8n's scheduler with a time budget (names
 * checked in @n8n/config's SchedulerConfig and WorkflowsConfig).
 */
export const DURABLE_CURSOR_ENV = {
	N8N_SCHEDULER_ENABLED: 'true',
	N8N_SCHEDULER_POLL_TRIGGERS_ENABLED: 'true',
	N8N_USE_WORKFLOW_PUBLICATION_SERVICE: 'true',
	N8N_POLLER_DURABLE_CURSORS_ENABLED: 'true',
};

export interface E2eEnvironment {
	n8n: N8n;
	sandbox: Sandbox;
	dispose(): Promise<void>;
}

let flavour: N8nFlavour = FLAVOURS['n8n-2'];

/** Which n8n this test file's environments run (jest gives every test file its own modules): n8n 2.x unless told. */
export function useRuntimeFlavour(name: N8nFlavour['name']): void {
	flavour = FLAVOURS[name];
}

export function runtimeFlavour(): N8nFlavour {
	return flavour;
}

const log = process.env.E2E_VERBOSE
	? (line: string) => process.stderr.write(`[e2e] ${line}\n`)
	: quiet;

/**
 * n8n's database health check (`SELECT 1` every 2 s, failed after 5 s, DbConnectionMonitor) waits behind the queries
 * already queued for SQLite; on a loaded 2-core machine it failed, and until a ping succeeds n8n answers every REST call
 * 503 "Database is not ready!" (CI saw more than a minute of it). The tests' n8n allows a ping 30 s.
 */
const LOADED_MACHINE_ENV = { DB_PING_TIMEOUT_MS: '30000' };

/**
 * One n8n per test file, with the package from ./dist installed the way n8n installs community packages (jest's
 * global set-up has just built it), running: importing the credentials through its REST API starts it.
 */
export async function startE2eEnvironment(
	options: {
		sandbox?: SandboxOptions;
		/** n8n settings beyond the offline ones, e.g. DURABLE_CURSOR_ENV. */
		n8nEnv?: Record<string, string>;
		/** The owner n8n starts with (it starts here): a browser logs in as this one. */
		owner?: Owner;
	} = {},
): Promise<E2eEnvironment> {
	const runtime = ensureRuntime(log, flavour);
	const sandbox = await startSandbox(options.sandbox);
	let n8n: N8n | undefined;
	try {
		n8n = await N8n.create({ runtime, log, env: { ...LOADED_MACHINE_ENV, ...options.n8nEnv } });
		n8n.installPackage(REPO_ROOT);
		if (options.owner) n8n.setOwner(options.owner);
		await n8n.importCredentials([sandboxCredential(sandbox)]);
	} catch (error) {
		await n8n?.dispose();
		await sandbox.stop();
		throw error;
	}
	const instance = n8n;
	return {
		n8n: instance,
		sandbox,
		dispose: async () => {
			await instance.dispose();
			await sandbox.stop();
		},
	};
}

/**
 * The file's environment: started before its tests, then made ready by `prepare` (workflows imported, n8n started…),
 * and disposed after them. Every test of the file may take TEST_TIMEOUT_MS.
 */
export function useE2eEnvironment(
	options: Parameters<typeof startE2eEnvironment>[0],
	prepare: (env: E2eEnvironment) => Promise<void> = async () => {},
): E2eEnvironment {
	let env: E2eEnvironment | undefined;
	beforeAll(async () => {
		env = await startE2eEnvironment(options);
		await prepare(env);
	}, SETUP_TIMEOUT_MS);
	afterAll(async () => await env?.dispose());
	jest.setTimeout(TEST_TIMEOUT_MS);
	return lateBound(() => {
		if (!env) throw new Error('The e2e environment is read before its beforeAll started it');
		return env;
	});
}

/**
 * The `credentials` of a node that uses the sandbox credential, by the id this n8n gave it: a workflow created through
 * REST keeps the id it names, and n8n 1.x then refuses to publish it ("Credential with ID … does not exist").
 */
export async function sandboxCredentialOf(n8n: N8n) {
	const stored = (await (
		await n8n.rest()
	)('GET', 'credentials')) as unknown as ExportedCredential[];
	const found = stored.find(
		({ name, type }) => name === SANDBOX_CREDENTIAL.name && type === 'svcApi',
	);
	if (!found) throw new Error(`n8n has no credential "${SANDBOX_CREDENTIAL.name}"`);
	return { svcApi: { id: String(found.id), name: found.name } };
}

/** Reads a stored-data endpoint of the sandbox directly, as the admin: what n8n's output must match. */
export async function sandboxGet<T>(sandbox: Sandbox, pathAndQuery: string): Promise<T> {
	const auth = Buffer.from(`${sandbox.admin.email}:${sandbox.admin.password}`).toString('base64');
	const reply = await fetch(`${sandbox.url}/api/v2/${pathAndQuery}`, {
		headers: { authorization: `Basic ${auth}` },
	});
	if (reply.status !== 200)
		throw new Error(`GET ${pathAndQuery}: ${reply.status} ${await reply.text()}`);
	return (await reply.json()) as T;
}

/** Every chat of the sandbox in its latest version, read from /chats from the beginning (as the API pages it). */
export async function sandboxAllChats(sandbox: Sandbox): Promise<{ chats: Chat[]; pages: number }> {
	const latest = new Map<string, Chat>();
	let since = '0';
	let pages = 0;
	for (;;) {
		const page = await sandboxGet<{
			chats: Chat[];
			more_chats_available: boolean;
			last_ts: number | string;
		}>(sandbox, `chats?since=${since}`);
		pages++;
		for (const chat of page.chats) latest.set(String(chat.id), chat);
		since = String(page.last_ts);
		if (!page.more_chats_available) return { chats: [...latest.values()], pages };
	}
}

/**
 * Whether n8n failed this poll itself, around the node: under load (its database starved; docs/reliability.md, "A poll that fails")
 * it stores an error without a message, which the node's errors always have. Such a poll is reported, not the node's.
 */
const failedByN8n = ({ status, data }: StoredExecution) =>
	status === 'error' && typeof data.resultData.error?.message !== 'string';

/**
 * What n8n 2.x says when it fails a node itself, before the node sends anything: it checks parameter values against
 * regular expressions in a vm with a 250 ms wall-clock limit (n8n-workflow's safe-regex.js, REGEX_TIMEOUT_MS), which a
 * saturated 2-core machine can exceed. The node never says it; a test that meets it runs that part again, and says so.
 */
export const N8N_REGEX_TIMEOUT = 'Regular expression execution timed out';

/** Seconds between the polls of the trigger scenarios' workflows. */
export const POLL_EVERY_SECONDS = 1;
/** Polls every trigger makes after a change before its items are counted: an item emitted twice would show. */
export const QUIET_POLLS = 3;
/** Generous for a loaded 2-core machine: a bound on waiting, never on how fast n8n is. */
export const POLL_WAIT_MS = 180_000;
export const ISO_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/**
 * For a scenario whose `triggers()` triggers each read the sandbox's `path` once a poll, at the same times: waits for
 * polls, and keeps the polls n8n failed itself (failedByN8n) apart from the node's, reported after the scenario.
 */
export function usePolls(env: E2eEnvironment, path: string, triggers: () => number) {
	const failedByN8nIds = new Set<number>();
	afterAll(() => {
		if (failedByN8nIds.size)
			console.log(
				`polls n8n failed itself (no message, under load): executions ${[...failedByN8nIds]}`,
			);
	});
	const reads = () => env.sandbox.control.requestLog().filter((entry) => entry.path === path);
	return {
		/** The sandbox's log of the reads of `path`. */
		reads,
		/** Waits until each trigger has finished `polls` more polls: a poll is over once the next one has asked. */
		async after(polls: number): Promise<void> {
			const target = reads().length + (polls + 1) * triggers();
			await waitUntil(async () => reads().length >= target, {
				what: `${polls} more polls of each trigger`,
				timeoutMs: POLL_WAIT_MS,
				output: () => env.n8n.serverOutput.slice(-4_000),
				everyMs: 500,
			});
		},
		/** The executions but the polls n8n failed itself, whose IDs are kept for the report. */
		withoutFailedByN8n(executions: StoredExecution[]): StoredExecution[] {
			for (const execution of executions)
				if (failedByN8n(execution)) failedByN8nIds.add(execution.id);
			return executions.filter((execution) => !failedByN8n(execution));
		},
	};
}

/** Unpublishes or publishes a workflow as the editor does, through n8n's REST API as the owner (1.123 and 2.41 alike). */
export async function setPublished(env: E2eEnvironment, workflowId: string, published: boolean) {
	const rest = await env.n8n.rest();
	if (!published) return await rest('POST', `workflows/${workflowId}/deactivate`, {});
	const { versionId } = await rest('GET', `workflows/${workflowId}`);
	return await rest('POST', `workflows/${workflowId}/activate`, { versionId });
}
