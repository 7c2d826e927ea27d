// The kill-and-restart scenario of the trigger-persistence e2e, run in real n8n with its default settings or with durable poll cursors.
import { setTimeout as delay } from 'node:timers/promises';
import { createHash } from 'node:crypto';
import path from 'node:path';

import { startSandbox, type Sandbox } from '../../sandbox';
import { nodeOutput } from '../../scripts/executions';
import { quiet, run, waitUntil } from '../../scripts/processes';
import { ensureRuntime, REPO_ROOT } from '../../scripts/runtime';
import { lateBound } from '../harness/lateBound';
import { DURABLE_CURSOR_ENV, sandboxAllChats, SETUP_TIMEOUT_MS } from './environment';
import { sandboxCredential } from '../../scripts/examples';
import { N8n, type Owner, type Workflow } from '../../scripts/n8n';

const SEEDED_CHATS = 30;
/** The first node after the trigger waits this long, so n8n can be killed while the execution runs. */
const SLOW_STEP_SECONDS = 20;
const TRIGGER_NODE_IDS = {
	now: 'a1b2c3d4-0016-4000-8000-00000000n0w1',
	all: 'a1b2c3d4-0016-4000-8000-0000000a11c1',
};
const WORKFLOW_IDS = { now: 'svcPersistNow016', all: 'svcPersistAll016' };
/** Default settings only: a trigger imported with a state saved before the digest, host and e-mail in clear. */
const MIGRATED = {
	workflowId: 'svcPersistOld027',
	nodeId: 'a1b2c3d4-0027-4000-8000-0000000c1ea2',
	trigger: 'Chats in clear',
	cursor: '1',
};
const OWNER: Owner = {
	email: 'owner@svc-persist.test',
	password: 'Persist-owner-pw-1',
	firstName: 'Persist',
	lastName: 'Owner',
};
const log = process.env.E2E_VERBOSE
	? (line: string) => process.stderr.write(`[persist] ${line}\n`)
	: quiet;

interface StoredTriggerState {
	staticData: Record<string, unknown> | null;
	executions: Array<{ id: number; status: string }>;
	pollerState: Array<{ nodeId: string; cursor: Record<string, unknown> }>;
}

export interface PersistenceFigures {
	setting: 'default' | 'durable';
	/** "Start From: Now": its position as stored when n8n was killed after the first (null) poll, and after a later one. */
	nowPositionAfterFirstPoll?: string;
	nowPositionAfterLaterPoll?: string;
	/** Changes made while n8n was down that the "Now" trigger emitted after the restart (1 made). */
	nowChangesEmitted: number;
	/** Beginning of History: the status n8n gives the execution killed by SIGKILL while it ran. */
	killedExecutionStatus: string;
	/** The seeded chats (all in that killed execution): how many reached the last node in an execution that completed. */
	seededChats: number;
	seededDelivered: number;
	seededLost: number;
	/** Chats emitted more than once by executions that completed. */
	duplicates: number;
	/** Every execution of the Beginning of History workflow: chats the trigger gave it, chats that reached the end. */
	executions: Array<{ id: number; status: string; emitted: number; delivered: number }>;
	/** The change made while n8n was down: emitted after the restart, and reached the last node. */
	changeAfterRestartDelivered: boolean;
	/** Seconds from n8n's second start until the change was delivered: the setting's poll timing. */
	secondsToDeliverAfterRestart: number;
	/** Default settings only: what n8n's REST API returns with the workflows after the first polls. */
	readBack?: StaticDataReadBack;
}

/** The triggers' static data as n8n's REST API returns it with each workflow, and what the check found in it. */
interface StaticDataReadBack {
	/** Each trigger's state, by workflow: "now" and "all" started fresh, "migrated" was imported in clear. */
	states: Record<'now' | 'all' | 'migrated', Record<string, unknown> | undefined>;
	/** The digest each state should hold: SHA-256 of its server's origin and admin e-mail, in hex. */
	expectedDigests: Record<'now' | 'all' | 'migrated', string>;
	/** Credential fields (host name, e-mail, in any case) found anywhere in the workflows' static data. */
	credentialFieldsFound: string[];
	/** The `since` of every /chats request the migrated trigger made, in order. */
	migratedSince: string[];
}

function triggerWorkflow(
	key: 'now' | 'all',
	credentialRef: { id: string; name: string },
): Workflow {
	const triggerName = key === 'now' ? 'Chats from now' : 'All chats';
	const nodes: Workflow['nodes'] = [
		{
			id: TRIGGER_NODE_IDS[key],
			name: triggerName,
			type: 'n8n-nodes-svc.svcChatTrigger',
			typeVersion: 1,
			position: [0, 0],
			parameters: {
				pollTimes: { item: [{ mode: 'everyMinute' }] },
				startFrom: key === 'now' ? 'now' : 'beginning',
				emit: 'everyChange',
				output: 'simplified',
				options: {},
			},
			credentials: { svcApi: credentialRef },
		},
		{
			id: `${key}-slow`,
			name: 'Slow step',
			type: 'n8n-nodes-base.wait',
			typeVersion: 1.1,
			position: [220, 0],
			parameters: {
				resume: 'timeInterval',
				amount: key === 'all' ? SLOW_STEP_SECONDS : 0,
				unit: 'seconds',
			},
		},
		{
			id: `${key}-done`,
			name: 'Delivered',
			type: 'n8n-nodes-base.noOp',
			typeVersion: 1,
			position: [440, 0],
			parameters: {},
		},
	];
	return {
		id: WORKFLOW_IDS[key],
		name: `Persistence e2e: ${triggerName}`,
		nodes,
		connections: {
			[triggerName]: { main: [[{ node: 'Slow step', type: 'main', index: 0 }]] },
			'Slow step': { main: [[{ node: 'Delivered', type: 'main', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
		active: false,
	};
}

/** A workflow whose only node is a Beginning of History trigger holding a state saved before the digest. */
function migratedWorkflow(credentialRef: { id: string; name: string }, server: Sandbox): Workflow {
	return {
		id: MIGRATED.workflowId,
		name: 'Persistence e2e: state in clear',
		nodes: [
			{
				id: MIGRATED.nodeId,
				name: MIGRATED.trigger,
				type: 'n8n-nodes-svc.svcChatTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: {
					pollTimes: { item: [{ mode: 'everyMinute' }] },
					startFrom: 'beginning',
					emit: 'everyChange',
					output: 'simplified',
					options: {},
				},
				credentials: { svcApi: credentialRef },
			},
		],
		connections: {},
		settings: { executionOrder: 'v1' },
		staticData: {
			[`node:${MIGRATED.trigger}`]: {
				host: `http://127.0.0.1:${server.port}`,
				account: server.admin.email,
				startedFrom: 'beginning',
				cursor: MIGRATED.cursor,
				catchingUp: false,
			},
		},
		active: false,
	};
}

const digestOf = (server: Sandbox) =>
	createHash('sha256')
		.update(`http://127.0.0.1:${server.port}\n${server.admin.email.toLowerCase()}`)
		.digest('hex');

/**
 * Reads the three workflows back through n8n's REST API, as anyone allowed to read them could, once the migrated
 * trigger has saved its state; and looks in their static data for the servers' host names and the admin e-mails.
 */
async function readBackStaticData(
	n8n: N8n,
	servers: Record<'now' | 'all' | 'migrated', Sandbox>,
): Promise<StaticDataReadBack> {
	const rest = await n8n.restSession(OWNER);
	const ids = { ...WORKFLOW_IDS, migrated: MIGRATED.workflowId };
	const triggers = { now: 'Chats from now', all: 'All chats', migrated: MIGRATED.trigger };
	const readAll = async () => {
		const staticData: Record<string, unknown> = {};
		for (const key of ['now', 'all', 'migrated'] as const)
			staticData[key] = (await rest('GET', `workflows/${ids[key]}`)).staticData;
		return staticData;
	};
	const stateOf = (staticData: Record<string, unknown>, key: 'now' | 'all' | 'migrated') =>
		(staticData[key] as Record<string, Record<string, unknown>> | undefined)?.[
			`node:${triggers[key]}`
		];
	const staticData = await waitFor(
		'the migrated trigger to save its state',
		n8n,
		30_000,
		async () => {
			const read = await readAll();
			return stateOf(read, 'migrated')?.boundTo !== undefined ? read : undefined;
		},
	);
	const text = JSON.stringify(staticData).toLowerCase();
	// The host name is in every spelling of the host (scheme, case, slash); the e-mail and its domain likewise.
	const fields = Object.values(servers).flatMap((server) => [
		'127.0.0.1',
		server.admin.email.toLowerCase(),
		server.admin.email.toLowerCase().split('@')[1],
	]);
	return {
		states: {
			now: stateOf(staticData, 'now'),
			all: stateOf(staticData, 'all'),
			migrated: stateOf(staticData, 'migrated'),
		},
		expectedDigests: {
			now: digestOf(servers.now),
			all: digestOf(servers.all),
			migrated: digestOf(servers.migrated),
		},
		credentialFieldsFound: [...new Set(fields.filter((field) => text.includes(field)))],
		migratedSince: servers.migrated.control
			.requestLog()
			.filter((entry) => entry.path === '/api/v2/chats')
			.map((entry) => String(entry.query.since)),
	};
}

async function readStored(n8n: N8n, workflowId: string): Promise<StoredTriggerState> {
	const result = await run(
		n8n.runtime.nodeBin,
		[
			'--disable-warning=ExperimentalWarning',
			path.join(REPO_ROOT, 'test/e2e/trigger-persistence-db.cjs'),
			path.join(n8n.userFolder, '.n8n/database.sqlite'),
			workflowId,
		],
		{ env: n8n.env, timeout: 60_000 },
	);
	if (result.exitCode !== 0) throw new Error(`Reading n8n's database failed:\n${result.stderr}`);
	return JSON.parse(result.stdout) as StoredTriggerState;
}

/** The trigger's stored position: durable poller_state when n8n keeps one for the node, else the workflow's static data. */
function storedPosition(
	stored: StoredTriggerState,
	key: 'now' | 'all',
	triggerName: string,
): string | undefined {
	const durable = stored.pollerState.find((row) => row.nodeId === TRIGGER_NODE_IDS[key]);
	const state =
		durable?.cursor ??
		(stored.staticData?.[`node:${triggerName}`] as Record<string, unknown> | undefined) ??
		{};
	return typeof state.cursor === 'string' ? state.cursor : undefined;
}

async function waitFor<T>(
	what: string,
	n8n: N8n,
	timeoutMs: number,
	probe: () => Promise<T | undefined>,
): Promise<T> {
	return await waitUntil(probe, {
		what,
		timeoutMs,
		output: () => n8n.serverOutput.slice(-4_000),
		everyMs: 500,
	});
}

/** The id of a seeded chat (a version's fingerprint starts with its chat id). */
const firstChatId = (sandbox: Sandbox) => sandbox.control.allVersions()[0].split(':')[0];

const chatIdsOf = (items: Array<Record<string, unknown>>) => items.map((item) => String(item.id));

/**
 * 1. n8n starts: "Now" anchors on its server (a poll that emits nothing); "Beginning of History" emits the 30 seeded
 *    chats into an execution whose first step is slow. n8n is killed with SIGKILL while that execution runs.
 * 2. While n8n is down, one chat changes on each server.
 * 3. n8n starts again and polls; it is killed again once both triggers have polled. The figures say what was emitted.
 */
async function runPersistenceScenario(setting: 'default' | 'durable'): Promise<PersistenceFigures> {
	const runtime = ensureRuntime(log);
	const nowServer = await startSandbox({ seed: 16, chats: SEEDED_CHATS });
	const allServer = await startSandbox({ seed: 61, chats: SEEDED_CHATS });
	// Durable cursors keep the state outside static data, so the read-back runs with the default settings only.
	const migratedServer =
		setting === 'default' ? await startSandbox({ seed: 27, chats: 3 }) : undefined;
	const n8n = await N8n.create({
		runtime,
		log,
		env: setting === 'durable' ? DURABLE_CURSOR_ENV : {},
	});
	try {
		n8n.installPackage(REPO_ROOT);
		n8n.setOwner(OWNER);
		const nowCredential = sandboxCredential(nowServer, {
			id: 'svcPersistCredNow',
			name: 'Svc now server',
		});
		const allCredential = sandboxCredential(allServer, {
			id: 'svcPersistCredAll',
			name: 'Svc all server',
		});
		// The migrated trigger's server typed another way than its state in clear has it: still the same server.
		const migratedCredential =
			migratedServer &&
			sandboxCredential(
				{ ...migratedServer, host: `HTTP://127.0.0.1:${migratedServer.port}/` },
				{ id: 'svcPersistCredOld', name: 'Svc server in clear' },
			);
		await n8n.importCredentials([
			nowCredential,
			allCredential,
			...(migratedCredential ? [migratedCredential] : []),
		]);
		const triggers = { now: 'Chats from now', all: 'All chats' } as const;
		await n8n.importWorkflows([
			triggerWorkflow('now', { id: nowCredential.id, name: nowCredential.name }),
			triggerWorkflow('all', { id: allCredential.id, name: allCredential.name }),
			...(migratedServer && migratedCredential
				? [
						migratedWorkflow(
							{ id: migratedCredential.id, name: migratedCredential.name },
							migratedServer,
						),
					]
				: []),
		]);
		await n8n.publishWorkflows([
			WORKFLOW_IDS.now,
			WORKFLOW_IDS.all,
			...(migratedServer ? [MIGRATED.workflowId] : []),
		]);

		// 1. First start: both triggers poll at activation.
		await n8n.start();
		const killed = await waitFor(
			'the Beginning of History execution to start',
			n8n,
			90_000,
			async () => {
				const stored = await readStored(n8n, WORKFLOW_IDS.all);
				return stored.executions.length > 0 &&
					nowServer.control.requestLog().some((entry) => entry.path === '/api/v2/chats')
					? stored.executions[0]
					: undefined;
			},
		);
		// Give n8n up to 8 s to store the "Now" position of that first poll (it emitted nothing), then crash.
		const nowPositionAfterFirstPoll = await waitFor(
			'the "Now" position to be stored',
			n8n,
			8_000,
			async () => storedPosition(await readStored(n8n, WORKFLOW_IDS.now), 'now', triggers.now),
		).catch(() => undefined);
		const readBack =
			migratedServer &&
			(await readBackStaticData(n8n, {
				now: nowServer,
				all: allServer,
				migrated: migratedServer,
			}));
		await n8n.stop('SIGKILL');
		log(`killed with execution ${killed.id} (${killed.status}) running`);

		// 2. While n8n is down.
		const seededIds = (await sandboxAllChats(allServer)).chats.map((chat) => String(chat.id));
		const changedNow = nowServer.control.updateChat(firstChatId(nowServer));
		const changedAll = allServer.control.updateChat(firstChatId(allServer));
		const nowRequestsBefore = nowServer.control.requestLog().length;

		// 3. Second start; wait until both triggers have polled again.
		const restartedAt = Date.now();
		await n8n.start();
		const delivery = await waitFor(
			'the change made while n8n was down to be delivered',
			n8n,
			150_000,
			async () => {
				const executions = await n8n.readExecutions(WORKFLOW_IDS.all);
				const run = executions.find(
					(execution) =>
						execution.status === 'success' &&
						chatIdsOf(nodeOutput(execution.data, 'Delivered')).includes(String(changedAll.id)),
				);
				return run ? { executions, seconds: (Date.now() - restartedAt) / 1000 } : undefined;
			},
		).catch(() => undefined);
		await waitFor('the "Now" trigger to poll after the restart', n8n, 150_000, async () =>
			nowServer.control.requestLog().length > nowRequestsBefore ? true : undefined,
		);
		await delay(3_000);
		const allExecutions = await n8n.readExecutions(WORKFLOW_IDS.all);
		const nowExecutions = await n8n.readExecutions(WORKFLOW_IDS.now);
		await n8n.stop('SIGKILL');

		const allStored = await readStored(n8n, WORKFLOW_IDS.all);
		const outputIds = (run: (typeof allExecutions)[number], node: string) =>
			run.data.resultData.runData[node] ? chatIdsOf(nodeOutput(run.data, node)) : [];
		const completed = allExecutions.filter((execution) => execution.status === 'success');
		const emittedAfterRestart = completed.flatMap((run) => outputIds(run, triggers.all));
		const seededDelivered = new Set(
			completed
				.flatMap((run) => outputIds(run, 'Delivered'))
				.filter((id) => seededIds.includes(id)),
		);
		return {
			setting,
			nowPositionAfterFirstPoll,
			nowPositionAfterLaterPoll: storedPosition(
				await readStored(n8n, WORKFLOW_IDS.now),
				'now',
				triggers.now,
			),
			nowChangesEmitted: nowExecutions.filter((execution) =>
				outputIds(execution, triggers.now).includes(String(changedNow.id)),
			).length,
			killedExecutionStatus:
				allStored.executions.find((execution) => execution.id === Number(killed.id))?.status ??
				'missing',
			seededChats: seededIds.length,
			seededDelivered: seededDelivered.size,
			seededLost: seededIds.length - seededDelivered.size,
			duplicates: emittedAfterRestart.length - new Set(emittedAfterRestart).size,
			changeAfterRestartDelivered: delivery !== undefined,
			secondsToDeliverAfterRestart: delivery?.seconds ?? Number.NaN,
			...(readBack ? { readBack } : {}),
			executions: allExecutions.map((run) => ({
				id: run.id,
				status: run.status,
				emitted: outputIds(run, triggers.all).length,
				delivered: outputIds(run, 'Delivered').length,
			})),
		};
	} finally {
		await n8n.dispose();
		await nowServer.stop();
		await allServer.stop();
		await migratedServer?.stop();
	}
}

const SETTING_LABELS = { default: 'default settings', durable: 'durable cursors' };

/** Runs the scenario once before the file's tests, prints its figures, and gives them to the tests. */
export function usePersistenceScenario(setting: 'default' | 'durable'): PersistenceFigures {
	let figures: PersistenceFigures | undefined;
	beforeAll(async () => {
		figures = await runPersistenceScenario(setting);
		process.stderr.write(
			`trigger persistence, ${SETTING_LABELS[setting]}: ${JSON.stringify(figures)}\n`,
		);
	}, SETUP_TIMEOUT_MS);
	return lateBound(() => {
		if (!figures) throw new Error('The persistence scenario has not run (its beforeAll failed)');
		return figures;
	});
}

/** What both settings guarantee: a change made while n8n was down arrives once; a killed execution's chats are lost. */
export function testOutcomesOfEverySetting(figures: PersistenceFigures): void {
	test('a change made while n8n was down is delivered after the restart, once', () => {
		expect(figures.changeAfterRestartDelivered).toBe(true);
		expect(figures.duplicates).toBe(0);
	});

	test('SIGKILL during an execution: n8n marks it crashed and the trigger does not emit its chats again (the measured loss)', () => {
		expect(figures.killedExecutionStatus).toBe('crashed');
		// Only the seeded chat that changed again while n8n was down came back; the other 29 stay in the crashed execution.
		expect(figures.seededDelivered).toBe(1);
		expect(figures.seededLost).toBe(SEEDED_CHATS - 1);
	});
}
