// n8n's engine in-process: whole workflows on n8n-core's WorkflowExecute and the trigger's poll() through a real
// PollContext, with the package's built nodes and n8n-nodes-base's, from one pinned n8n line's own packages.
import fs from 'node:fs';
import path from 'node:path';

import type * as N8nCore from 'n8n-core';
import type * as N8nWorkflow from 'n8n-workflow';
import type {
	ICredentialDataDecryptedObject,
	IDataDeduplicator,
	IDataObject,
	IExecuteResponsePromiseData,
	IHttpRequestOptions,
	INode,
	INodeExecutionData,
	INodeType,
	INodeTypes,
	IRun,
	IVersionedNodeType,
	IWorkflowExecuteAdditionalData,
	WorkflowActivateMode,
	WorkflowExecuteMode,
} from 'n8n-workflow';

import { startSandbox, type Sandbox, type SandboxOptions } from '../../sandbox';
import { sandboxCredential } from '../../scripts/examples';
import type { RunData } from '../../scripts/executions';
import type { Workflow as WorkflowJson } from '../../scripts/n8n';
import {
	ensureRuntime,
	FLAVOURS,
	REPO_ROOT,
	type N8nFlavour,
	type N8nRuntime,
} from '../../scripts/runtime';
import { lateBound } from './lateBound';

/** Generous: a fresh machine installs the pinned runtime (minutes) before the first engine loads. */
export const ENGINE_SETUP_TIMEOUT_MS = 15 * 60_000;

/** Credential data by credential type, as a node's `credentials` name them (any id finds its type's data). */
type EngineCredentials = Record<string, ICredentialDataDecryptedObject>;

/** A finished run as n8n stores it (errors as plain JSON), and what a Respond to Webhook node answered. */
interface EngineRun {
	status: IRun['status'];
	data: RunData;
	/** The error message of a failed run, as n8n shows it. */
	error?: string;
	response?: IExecuteResponsePromiseData;
}

/** One poll as a published trigger makes it: the run it started (null when it emitted nothing), or its error. */
interface PollResult {
	emitted: INodeExecutionData[][] | null;
	run: EngineRun | null;
	error?: Error;
}

type PollFunction = (
	workflow: N8nWorkflow.Workflow,
	node: INode,
	context: unknown,
) => Promise<INodeExecutionData[][] | null>;
type Pollers = { runPollFunction?: PollFunction; runPoll?: PollFunction };
type Loaded = { type: INodeType | IVersionedNodeType };
interface Loader {
	packageName: string;
	directory: string;
	known: { credentials: Record<string, unknown> };
	loadAll(): Promise<void>;
	getNode(type: string): Loaded;
	getCredential(type: string): {
		type: { authenticate?: unknown; restrictToSupportedNodes?: boolean; supportedNodes?: string[] };
	};
}

/**
 * The package as n8n installs a community package: its package.json and dist/ in a folder of its own under the
 * runtime's node_modules tree, so that `n8n-workflow` resolves to that n8n line's copy, as in n8n itself.
 */
function installBuiltPackage(runtimeDir: string): string {
	const parent = path.join(runtimeDir, 'engine-packages');
	fs.mkdirSync(parent, { recursive: true });
	// Copies of processes that ended without their shutdown (a killed Jest worker) go first.
	for (const stale of fs
		.readdirSync(parent)
		.filter((name) => !isRunning(Number(name.split('-')[0]))))
		fs.rmSync(path.join(parent, stale), { recursive: true, force: true });
	const folder = fs.mkdtempSync(path.join(parent, `${process.pid}-`));
	const target = path.join(folder, 'n8n-nodes-svc');
	fs.mkdirSync(target);
	fs.copyFileSync(path.join(REPO_ROOT, 'package.json'), path.join(target, 'package.json'));
	fs.cpSync(path.join(REPO_ROOT, 'dist'), path.join(target, 'dist'), { recursive: true });
	return target;
}

function isRunning(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
}

type ProcessedData = { workflowId: string; context: string };

/**
 * What Remove Duplicates saw in earlier executions: n8n's own DeduplicationHelper, as its server sets it up, on a
 * ProcessedData table in memory (for the engine's life) instead of n8n's database.
 */
async function initDeduplication(
	runtime: N8nRuntime,
	core: typeof N8nCore,
	container: typeof import('@n8n/di').Container,
) {
	const { DeduplicationHelper } = runtime.require(
		'n8n/dist/deduplication/deduplication-helper.js',
	) as {
		DeduplicationHelper: new () => IDataDeduplicator;
	};
	const { ProcessedDataRepository } = runtime.require('@n8n/db') as {
		ProcessedDataRepository: new () => unknown;
	};
	const rows = new Map<string, ProcessedData>();
	const key = ({ workflowId, context }: ProcessedData) => `${workflowId} ${context}`;
	container.set(ProcessedDataRepository, {
		findOne: async ({ where }: { where: ProcessedData }) =>
			structuredClone(rows.get(key(where)) ?? null),
		insert: async (row: ProcessedData) => void rows.set(key(row), structuredClone(row)),
		update: async (where: ProcessedData, row: ProcessedData) =>
			void rows.set(key(where), structuredClone(row)),
		delete: async (where: ProcessedData) => void rows.delete(key(where)),
	});
	await core.DataDeduplicationService.init(new DeduplicationHelper());
}

/** Loads one n8n line's engine and the node types, once per test file (Jest gives each file its own modules). */
export async function loadEngine(flavour: N8nFlavour = FLAVOURS['n8n-2']) {
	const runtime = ensureRuntime(undefined, flavour);
	const core = runtime.require('n8n-core') as typeof N8nCore;
	const workflowLib = runtime.require('n8n-workflow') as typeof N8nWorkflow;
	const { Container } = runtime.require('@n8n/di') as typeof import('@n8n/di');
	// What n8n's scheduler calls for each poll; n8n-core 1.x does not export it.
	const coreDir = path.dirname(runtime.require.resolve('n8n-core/package.json'));
	const { TriggersAndPollers } = runtime.require(
		path.join(coreDir, 'dist/execution-engine/triggers-and-pollers.js'),
	) as { TriggersAndPollers: new () => Pollers };
	// Made with every node's helpers; 1.x's keeps an interval that only n8n's shutdown ends, which would hold Jest open.
	const { SSHClientsManager } = runtime.require(
		path.join(coreDir, 'dist/execution-engine/ssh-clients-manager.js'),
	) as { SSHClientsManager: new () => { onShutdown(): void } };

	const svcLoader = new core.PackageDirectoryLoader(
		installBuiltPackage(runtime.dir),
	) as unknown as Loader;
	const baseDir = path.dirname(runtime.require.resolve('n8n-nodes-base/package.json'));
	// n8n's form helpers, which the Wait node imports, load sanitize-html, whose htmlparser2 is an ES module that Jest's
	// require cannot load on Node 20: they get one that refuses to run (the engine renders no form).
	jest.doMock(runtime.require.resolve('sanitize-html', { paths: [baseDir] }), () => () => {
		throw new Error('The engine renders no n8n form: sanitize-html cannot load under Jest');
	});
	const baseLoader = new core.LazyPackageDirectoryLoader(baseDir) as unknown as Loader;
	const loaders = [svcLoader, baseLoader];
	await Promise.all(loaders.map(async (loader) => await loader.loadAll()));
	await initDeduplication(runtime, core, Container);

	const loaderOf = (fullType: string) => {
		const [packageName, type] = fullType.split('.');
		const loader = loaders.find((candidate) => candidate.packageName === packageName);
		if (!loader)
			throw new Error(`The engine has no package "${packageName}" (node type ${fullType})`);
		return { loader, type };
	};
	const nodeTypes: INodeTypes = {
		getByName: (fullType) => {
			const { loader, type } = loaderOf(fullType);
			return loader.getNode(type).type;
		},
		getByNameAndVersion: (fullType, version) =>
			workflowLib.NodeHelpers.getVersionedNodeType(nodeTypes.getByName(fullType), version),
		getKnownTypes: () => ({}),
	};

	const credentialType = (type: string) => {
		const loader = loaders.find((candidate) => type in candidate.known.credentials);
		if (!loader) throw new Error(`The engine knows no credential type "${type}"`);
		return { type: loader.getCredential(type).type, packageName: loader.packageName };
	};

	/** n8n's credential path for the nodes: the saved data by type, and the type's own `authenticate`, if any. */
	const credentialsHelper = (credentials: EngineCredentials) =>
		Object.assign(Object.create(workflowLib.ICredentialsHelper.prototype), {
			getParentTypes: () => [],
			// n8n's rule (packages/cli credentials-helper.ts): a credential restricted to its nodes serves only them.
			isCredentialUsableByNode: (type: string, nodeType: string) => {
				const { type: definition, packageName } = credentialType(type);
				const { restrictToSupportedNodes, supportedNodes = [] } = definition;
				return (
					!restrictToSupportedNodes ||
					supportedNodes.some((name) => `${packageName}.${name}` === nodeType)
				);
			},
			getCredentialsProperties: () => [],
			getDecrypted: async (_data: unknown, _details: unknown, type: string) => {
				if (!credentials[type]) throw new Error(`The engine was given no "${type}" credential`);
				return credentials[type];
			},
			authenticate: async (
				data: ICredentialDataDecryptedObject,
				type: string,
				request: IHttpRequestOptions,
			) => {
				const { authenticate } = credentialType(type).type;
				if (authenticate === undefined) return request;
				if (typeof authenticate === 'function') return await authenticate(data, request);
				throw new Error(`The engine does not apply the generic authenticate block of "${type}"`);
			},
			preAuthentication: async () => undefined,
			runPreAuthentication: async () => undefined,
			updateCredentials: async () => {},
			updateCredentialsOauthTokenData: async () => {},
			getCredentials: async () => {
				throw new Error('The engine keeps no encrypted credentials');
			},
		}) as IWorkflowExecuteAdditionalData['credentialsHelper'];

	let executions = 0;

	/** The additional data of one execution: its hooks, the credentials, and nothing of n8n's server. */
	function additionalDataFor(
		mode: WorkflowExecuteMode,
		workflow: N8nWorkflow.Workflow,
		credentials: EngineCredentials,
	) {
		const executionId = String(++executions);
		const hooks = new core.ExecutionLifecycleHooks(mode, executionId, {
			id: workflow.id,
			name: workflow.name,
			nodes: Object.values(workflow.nodes),
			connections: workflow.connectionsBySourceNode,
			active: false,
			settings: workflow.settings,
		} as never);
		const additionalData = {
			executionId,
			hooks,
			credentialsHelper: credentialsHelper(credentials),
			restApiUrl: 'http://127.0.0.1/rest',
			instanceBaseUrl: 'http://127.0.0.1/',
			webhookBaseUrl: 'http://127.0.0.1/webhook',
			webhookWaitingBaseUrl: 'http://127.0.0.1/webhook-waiting',
			webhookTestBaseUrl: 'http://127.0.0.1/webhook-test',
			formWaitingBaseUrl: 'http://127.0.0.1/form-waiting',
			variables: {},
			currentNodeParameters: undefined,
			userId: undefined,
			setExecutionStatus: () => {},
			sendDataToUI: () => {},
			executeWorkflow: async () => {
				throw new Error('The engine runs no sub-workflows');
			},
			getRunExecutionData: async () => undefined,
			logAiEvent: () => {},
		} as unknown as IWorkflowExecuteAdditionalData;
		return { additionalData, hooks };
	}

	function instantiate(json: WorkflowJson, staticData?: IDataObject) {
		return new workflowLib.Workflow({
			id: json.id ?? 'engine',
			name: json.name,
			nodes: json.nodes as INode[],
			connections: json.connections as never,
			active: false,
			nodeTypes,
			staticData: staticData ? structuredClone(staticData) : undefined,
			settings: (json.settings ?? {}) as never,
		});
	}

	/** Runs `workflow` from `start` with these items, as n8n runs a workflow its trigger or webhook started. */
	async function execute(
		workflow: N8nWorkflow.Workflow,
		start: INode,
		items: INodeExecutionData[][],
		mode: WorkflowExecuteMode,
		credentials: EngineCredentials,
		stop?: AbortSignal,
	): Promise<EngineRun> {
		const { additionalData, hooks } = additionalDataFor(mode, workflow, credentials);
		let response: IExecuteResponsePromiseData | undefined;
		hooks.addHandler('sendResponse', (answer) => {
			response = answer;
		});
		const finished = new Promise<IRun>((resolve) =>
			hooks.addHandler('workflowExecuteAfter', (run) => resolve(run)),
		);
		const executionData = {
			contextData: {},
			metadata: {},
			nodeExecutionStack: [{ node: start, data: { main: items }, source: null }],
			waitingExecution: {},
			waitingExecutionSource: {},
		};
		const runExecutionData = workflowLib.createRunExecutionData
			? workflowLib.createRunExecutionData({ executionData })
			: { startData: {}, resultData: { runData: {} }, executionData };
		const execution = new core.WorkflowExecute(
			additionalData,
			mode,
			runExecutionData as never,
		).processRunExecutionData(workflow);
		// n8n's Stop (ActiveExecutions.stopExecution) cancels this PCancelable: the run ends 'canceled' at once, and the
		// nodes' cancel signal aborts. It settles only once the node then running has returned, so nothing is left running.
		stop?.addEventListener('abort', () => execution.cancel(), { once: true });
		if (stop?.aborted) execution.cancel();
		await execution;
		const run = await finished;
		// As n8n stores it: errors become their JSON (n8n's error classes define toJSON).
		const data = JSON.parse(JSON.stringify(run.data)) as RunData;
		return { status: run.status, data, error: data.resultData.error?.message, response };
	}

	const startNode = (workflow: N8nWorkflow.Workflow, name?: string) => {
		const node = name ? workflow.getNode(name) : workflow.getStartNode();
		if (!node)
			throw new Error(`Workflow "${workflow.name}" has no node ${name ?? 'to start from'}`);
		return node;
	};

	return {
		flavour,
		nodeTypes,
		/** Where this engine installed its own copy of the package (package.json and dist/), whose modules its nodes run. */
		packageDir: svcLoader.directory,
		/** The zone of a workflow whose settings name none: n8n's default, as in an n8n without GENERIC_TIMEZONE. */
		timezone: workflowLib.getGlobalState().defaultTimezone,
		/**
		 * Runs a workflow to its end, as the editor's "Execute workflow" does when `mode` is 'manual' (the default), from its
		 * first trigger or the node `from`, given these items (a webhook's request, say: `[{ json: { body } }]`). Once `stop`
		 * aborts, the run is stopped as n8n's "Stop" stops an execution.
		 */
		async run(
			json: WorkflowJson,
			{
				credentials,
				from,
				items = [{ json: {} }],
				mode = 'manual',
				stop,
			}: {
				credentials: EngineCredentials;
				from?: string;
				items?: INodeExecutionData[];
				mode?: WorkflowExecuteMode;
				stop?: AbortSignal;
			},
		): Promise<EngineRun> {
			const workflow = instantiate(json);
			return await execute(workflow, startNode(workflow, from), [items], mode, credentials, stop);
		},

		/**
		 * A published polling trigger: each `poll()` runs the trigger node's poll() through a real PollContext in trigger
		 * mode, as n8n's scheduler does, and hands what it emits to the rest of the workflow as the execution's start data.
		 * The Workflow object, and so its static data, lives from poll to poll as in n8n; `saved()` is what n8n would have
		 * written to its database (once the trigger started, and after each poll that emitted); `restart()` and
		 * `republish()` start the trigger again from it, as after a restart or unpublishing and publishing again.
		 */
		publish(
			json: WorkflowJson,
			{
				credentials,
				trigger,
				staticData,
			}: { credentials: EngineCredentials; trigger?: string; staticData?: IDataObject },
		) {
			let saved = structuredClone(staticData ?? {});
			let workflow: N8nWorkflow.Workflow;
			let context: N8nCore.PollContext;
			/** Until the first poll of a start has succeeded: n8n starts a trigger with one poll, then saves. */
			let starting: boolean;
			const pollNode = () => {
				const node = trigger
					? workflow.getNode(trigger)
					: Object.values(workflow.nodes).find((candidate) =>
							Boolean(nodeTypes.getByNameAndVersion(candidate.type, candidate.typeVersion).poll),
						);
				if (!node) throw new Error(`Workflow "${workflow.name}" has no polling trigger`);
				return node;
			};
			/**
			 * The trigger started from what n8n stored: n8n makes its poll functions once, with the activation mode, and every
			 * poll on the schedule uses them (n8n-core's ActiveWorkflowTriggers.activatePollTrigger, 1.x's activatePolling).
			 */
			const start = (activation: WorkflowActivateMode) => {
				workflow = instantiate(json, saved);
				const { additionalData } = additionalDataFor('trigger', workflow, credentials);
				context = new core.PollContext(workflow, pollNode(), additionalData, 'trigger', activation);
				starting = true;
			};
			start('activate');
			const pollers = Container.get(TriggersAndPollers);
			// 2.x names it runPollFunction (with its in-flight count), 1.x runPoll.
			const runPoll = (pollers.runPollFunction ?? pollers.runPoll)!.bind(pollers);
			return {
				/** One poll, as n8n's scheduler makes it; the first of a start is the one n8n makes as it starts the trigger. */
				async poll(): Promise<PollResult> {
					const node = pollNode();
					let emitted: INodeExecutionData[][] | null;
					try {
						emitted = await runPoll(workflow, node, context);
					} catch (error) {
						return { emitted: null, run: null, error: error as Error };
					}
					// n8n saves the static data when a poll emits, before the execution runs, and once it has started the trigger.
					if ((emitted !== null || starting) && workflow.staticData.__dataChanged) {
						saved = JSON.parse(JSON.stringify(workflow.staticData)) as IDataObject;
						workflow.staticData.__dataChanged = false;
					}
					starting = false;
					if (emitted === null) return { emitted, run: null };
					const run = await execute(workflow, node, emitted, 'trigger', credentials);
					return { emitted, run };
				},
				/** The trigger node's static data as it is in memory now. */
				staticData: () =>
					JSON.parse(JSON.stringify(workflow.getStaticData('node', pollNode()))) as IDataObject,
				/** What n8n would have in its database: the static data as of the trigger's start or its last poll that emitted. */
				saved: () => structuredClone(saved),
				/** n8n restarted: the workflow comes back from the database, its trigger started in 'init' mode. */
				restart: () => start('init'),
				/** Unpublished, then published again: the workflow comes back from the database, its trigger started in 'activate' mode. */
				republish: () => start('activate'),
			};
		},
		/** What n8n's shutdown ends of the engine's services; the package's copy goes too (its modules stay loaded). */
		shutdown() {
			Container.get(SSHClientsManager).onShutdown();
			fs.rmSync(path.dirname(svcLoader.directory), { recursive: true, force: true });
		},
	};
}

export type Engine = Awaited<ReturnType<typeof loadEngine>>;

export interface EngineUnderTest {
	engine: Engine;
	sandbox: Sandbox;
	/** The sandbox credential's data, by the type the Svc nodes name it (the example's Svc sandbox credential). */
	credentials: EngineCredentials;
}

/**
 * The file's engine for one n8n line and its sandbox: loaded and started before its tests, the sandbox stopped after
 * them. Members are read once they are set (in a test or a later hook).
 */
export function useEngine(
	flavour: N8nFlavour = FLAVOURS['n8n-2'],
	sandboxOptions: SandboxOptions = {},
): EngineUnderTest {
	let current: EngineUnderTest | undefined;
	beforeAll(async () => {
		const [engine, sandbox] = await Promise.all([
			loadEngine(flavour),
			startSandbox(sandboxOptions),
		]);
		current = { engine, sandbox, credentials: { svcApi: sandboxCredential(sandbox).data } };
	}, ENGINE_SETUP_TIMEOUT_MS);
	afterAll(async () => {
		current?.engine.shutdown();
		await current?.sandbox.stop();
	});
	return lateBound(() => {
		if (!current) throw new Error('The engine is read before its beforeAll loaded it');
		return current;
	});
}
