// The example workflows (examples/*.json): read them, point them at the sandbox, and run each once inside a real n8n.
import { randomUUID } from 'node:crypto';
import path from 'node:path';

import type { Sandbox } from '../sandbox';
import { nodeItems, type RunData } from './executions';
import {
	postJsonOnNewConnection,
	readWorkflowsIn,
	type ExportedCredential,
	type N8n,
	type Workflow,
} from './n8n';
import { quiet, waitUntil, type Log } from './processes';
import { REPO_ROOT } from './runtime';

/** The credential every example refers to; the demo and the tests import it pointing at their sandbox. */
export const SANDBOX_CREDENTIAL = { id: 'svcSandboxCred01', name: 'Svc sandbox' } as const;

export const EXAMPLE_IDS = {
	exportFinishedChats: 'svcExample1Export',
	crmBroadcast: 'svcExample2Broadcast',
	lunchBreak: 'svcExample3Lunch',
	visitorPairing: 'svcExample4Visitor',
	dailyStats: 'svcExample5Stats',
	aiAgent: 'svcExample6Agent',
	nobodyOnline: 'svcExample7Nobody',
	badRating: 'svcExample8Rating',
	missedChat: 'svcExample9Missed',
	visitorWaiting: 'svcExample10Waiting',
	weeklyReport: 'svcExample11Report',
	mcpServer: 'svcExample12Mcp',
	contactChats: 'svcExample13Contact',
	chatsTable: 'svcExample14Table',
} as const;

/** The examples that run in production, published: webhooks, and the chat trigger (example 7 polls the operators). */
const { exportFinishedChats, crmBroadcast, visitorPairing, contactChats } = EXAMPLE_IDS;
export const PUBLISHED_EXAMPLES = [exportFinishedChats, crmBroadcast, visitorPairing, contactChats];

/** An `svcApi` credential (by default the examples' one) logging in to `sandbox` as its admin, as n8n exports it. */
export function sandboxCredential(
	{ host, admin }: Pick<Sandbox, 'host' | 'admin'>,
	{ id, name }: { id: string; name: string } = SANDBOX_CREDENTIAL,
) {
	const data = { host, email: admin.email, password: admin.password, ignoreSslIssues: false };
	return { id, name, type: 'svcApi', data } satisfies ExportedCredential;
}

/** The Header Auth credential the examples' webhooks (2, 4, 13) check: their callers send `header` with its secret. */
export const WEBHOOK_CREDENTIAL = {
	id: 'svcExampleWebhookKey',
	name: 'Svc webhook secret',
	header: 'X-Svc-Webhook-Secret',
} as const;

/** The webhooks' `httpHeaderAuth` credential holding `secret`, as n8n exports it. */
export function webhookCredential(secret: string) {
	const { id, name, header } = WEBHOOK_CREDENTIAL;
	return {
		id,
		name,
		type: 'httpHeaderAuth',
		data: { name: header, value: secret },
	} satisfies ExportedCredential;
}

export const readExamples = () => readWorkflowsIn(path.join(REPO_ROOT, 'examples'));
/** All but example 12, which publishMcpExample imports after its token's credential: each imported (and logged) once. */
export const notMcpExample = ({ id }: Workflow) => id !== EXAMPLE_IDS.mcpServer;

export function findExample(examples: Workflow[], id: string): Workflow {
	const example = examples.find((workflow) => workflow.id === id);
	if (!example) throw new Error(`examples/ has no workflow with id ${id}`);
	return example;
}

/** Creates the Data table example 14 upserts into, with its Upsert node's columns, unless the owner has one: its id. */
export async function createChatsTable(n8n: N8n): Promise<string> {
	const { nodes } = findExample(readExamples(), EXAMPLE_IDS.chatsTable);
	const upsert = nodes.find(({ type }) => type === 'n8n-nodes-base.dataTable')!.parameters;
	const { value: name } = upsert.dataTableId as { value: string };
	const { schema } = upsert.columns as { schema: Array<{ id: string; type: string }> };
	const rest = await n8n.rest();
	const route = `projects/${String((await rest('GET', 'projects/personal')).id)}/data-tables`;
	const { data: tables } = (await rest('GET', route)) as { data: Array<Record<string, string>> };
	const columns = schema.map(({ id, type }) => ({ name: id, type }));
	const existing = tables.find((table) => table.name === name)?.id;
	return existing ?? String((await rest('POST', route, { name, columns })).id);
}

/** Poll times from cron expressions with seconds, one custom item each: n8n refuses a cron that fires more than once a minute. */
export const pollCron = (expressions: string[]) => ({
	item: expressions.map((cronExpression) => ({ mode: 'custom' as const, cronExpression })),
});

/** Poll times for every `seconds` s. */
export const pollEvery = (seconds: number) =>
	pollCron(Array.from({ length: 60 / seconds }, (_, index) => `${index * seconds} * * * * *`));

const ALERT_TRIGGER = 'Operator availability';
const RATING_TRIGGER = 'Bad ratings';
const MISSED_TRIGGER = 'Missed chats';
const WAITING_TRIGGER = 'Waiting visitors';
/** How often the copies of examples 7 to 10 poll: each change is seen within it, and polled again before the next. */
const POLL_SECONDS = 3;
/** Seeded chats (seed 1) that `runExamples` rates: the bad one already has a rating of 1, older than the trigger. */
export const RATED_CHATS = { bad: 10004, good: 10000 };
/**
 * What example 7's copy shows its IF, in Europe/Berlin: nobody online on a Sunday at noon, back on a Monday at noon, so
 * that both branches run in every run. The real time could not: from Saturday 06:00 to Sunday 19:00 UTC, it is the
 * weekend in every time zone (UTC-12 to UTC+14).
 */
export const ALERT_CLOCK = {
	id: 'svcRunAlertPinned3s',
	zone: 'Europe/Berlin',
	offline: '2026-11-29T11:00:00.000Z',
	back: '2026-11-30T11:00:00.000Z',
};

/** A copy of an example under `id`, named for `what` changed: `parameters` set in the nodes `which` picks. */
function variant(workflow: Workflow, id: string, what: string, which: string, parameters: object) {
	const nodes = workflow.nodes.map((node) =>
		node.type === which ? { ...node, parameters: { ...node.parameters, ...parameters } } : node,
	);
	return { ...workflow, id, name: `${workflow.name} (${what})`, nodes };
}

/** Example 3 with a wait of `seconds` s, not an hour. */
export const lunchCopy = (workflow: Workflow, seconds: number) =>
	variant(workflow, 'svcRunLunch1300', `a wait of ${seconds} s`, 'n8n-nodes-base.wait', {
		amount: seconds,
		unit: 'seconds',
	});

/** A copy of an example whose chat trigger polls every POLL_SECONDS s instead of every minute. */
const pollingCopy = (workflow: Workflow, id: string, what = '') =>
	variant(workflow, id, `every ${POLL_SECONDS} s${what}`, 'n8n-nodes-svc.svcChatTrigger', {
		pollTimes: pollEvery(POLL_SECONDS),
	});

/** Example 7 polling every few seconds, its IF seeing ALERT_CLOCK: a Set node between them gives detected_at. */
function alertCopy(workflow: Workflow): Workflow {
	const copy = pollingCopy(workflow, ALERT_CLOCK.id, ', pinned clock');
	const value = `={{ $json.available ? '${ALERT_CLOCK.back}' : '${ALERT_CLOCK.offline}' }}`;
	const assignments = [{ id: 'c1', name: 'detected_at', value, type: 'string' }];
	const parameters = { assignments: { assignments }, includeOtherFields: true, options: {} };
	const clock = { id: 'c1', name: 'Pinned clock', type: 'n8n-nodes-base.set', typeVersion: 3.4 };
	const { [ALERT_TRIGGER]: triggerOutput, ...connections } = workflow.connections;
	const toClock = { main: [[{ node: clock.name, type: 'main' as const, index: 0 }]] };
	return {
		...copy,
		nodes: [...copy.nodes, { ...clock, position: [-100, 400], parameters }],
		connections: { ...connections, [ALERT_TRIGGER]: toClock, [clock.name]: triggerOutput },
		settings: { ...workflow.settings, timezone: ALERT_CLOCK.zone },
	};
}

/** The copies of examples 7 to 10 that `runExamples` publishes, polling every POLL_SECONDS s (10's alerts after 3 s). */
export function pollingCopies(examples: Workflow[]) {
	const example = (id: string) => findExample(examples, id);
	return {
		alert: alertCopy(example(EXAMPLE_IDS.nobodyOnline)),
		rating: pollingCopy(example(EXAMPLE_IDS.badRating), 'svcRunRating3s'),
		missed: pollingCopy(example(EXAMPLE_IDS.missedChat), 'svcRunMissed3s'),
		waiting: variant(
			example(EXAMPLE_IDS.visitorWaiting),
			'svcRunWaiting3s',
			`every ${POLL_SECONDS} s, a wait of 3 s`,
			'n8n-nodes-svc.svcChatTrigger',
			{ pollTimes: pollEvery(POLL_SECONDS), waitLongerThan: 0.05 },
		),
	};
}

/** The pinned sample a webhook example carries, i.e. what its caller would post. */
export function pinnedBody(workflow: Workflow, webhookName: string): Record<string, unknown> {
	const body = workflow.pinData?.[webhookName]?.[0]?.json.body;
	if (!body) throw new Error(`"${webhookName}" in "${workflow.name}" has no pinned sample body`);
	return body as Record<string, unknown>;
}

export interface ExampleStep {
	title: string;
	workflowId: string;
	/** What ran it: the editor's "Execute workflow" (schedules), a production webhook call, or its trigger, published. */
	how: string;
	/** Output items of the nodes worth showing, by node name: their json, plus the name, type and size of any file. */
	outputs: Record<string, Array<Record<string, unknown>>>;
	response?: { status: number; body: unknown };
}

export function outputsOf(run: RunData, nodeNames: string[]): ExampleStep['outputs'] {
	const item = ({ json, binary }: ReturnType<typeof nodeItems>[number]) => {
		if (!binary) return json;
		const files = Object.entries(binary).map(([key, { fileName, mimeType, fileSize }]) => [
			key,
			{ fileName, mimeType, fileSize },
		]);
		return { ...json, files: Object.fromEntries(files) };
	};
	// Those that ran: a branch the run did not take, or a node its input left without items, shows nothing.
	const ran = nodeNames.filter((name) => run.resultData.runData[name]);
	return Object.fromEntries(ran.map((name) => [name, nodeItems(run, name).map(item)]));
}

/** The run data of the `nth` finished execution of a workflow, once there is one; throws if it did not succeed. */
async function nthSuccess(n8n: N8n, workflowId: string, nth: number): Promise<RunData> {
	const execution = (await n8n.waitForExecutions(workflowId, nth))[nth - 1];
	if (execution.status !== 'success')
		throw new Error(
			`Execution ${nth} of ${workflowId} ended "${execution.status}": ${JSON.stringify(execution.data.resultData.error)}`,
		);
	return execution.data;
}

/** Waits for a published workflow's first poll: its chat trigger saved what it found (the statuses; the server's place). */
export async function firstPoll(n8n: N8n, { id, nodes }: Workflow) {
	const trigger = nodes.find(({ type }) => type === 'n8n-nodes-svc.svcChatTrigger')?.name;
	await waitUntil(
		async () => Object.keys((await n8n.staticData(id))?.[`node:${trigger}`] ?? {}).length,
		{ what: `the first poll of "${trigger}" in ${id}`, timeoutMs: 60_000, everyMs: 250 },
	);
}

type WebhookCall = { workflow: Workflow; webhook: string; body?: unknown; nth?: number };

/**
 * Posts to a published webhook example (by default its pinned sample) with the header `secret`: how, and its answer,
 * which must be a 200.
 */
async function callWebhook(n8n: N8n, secret: string, { workflow, webhook, body }: WebhookCall) {
	const node = workflow.nodes.find(({ name }) => name === webhook);
	if (!node) throw new Error(`Workflow "${workflow.name}" has no node "${webhook}"`);
	const route = `/webhook/${String(node.parameters.path)}`;
	const posted = body ?? pinnedBody(workflow, webhook);
	const header = { [WEBHOOK_CREDENTIAL.header]: secret };
	const url = `${n8n.baseUrl}${route}`;
	const { status, text } = await postJsonOnNewConnection(url, posted, 60_000, header);
	const answer: unknown = await Promise.resolve(text)
		.then(JSON.parse)
		.catch(() => text);
	if (status !== 200) throw new Error(`"${webhook}" answered ${status}: ${JSON.stringify(answer)}`);
	return { how: `POST ${route}`, response: { status, body: answer } };
}

/**
 * Runs every example once against the sandbox the `Svc sandbox` credential points at, the way it runs for users, in
 * the running n8n: the scheduled ones started from their schedule trigger as the editor's "Execute workflow" does, the
 * webhook ones by calling their production URLs, and the chat triggers by publishing (example 7's copy, ALERT_CLOCK,
 * polls every few seconds while every operator goes offline and back: it changes the sandbox's operators' statuses, and
 * restores them). n8n must have the package and the Svc credential; this imports the webhooks' one. `onStep` is called after each step, e.g. to look at the
 * sandbox before the next one changes it. Throws on the first step that fails.
 */
export async function runExamples(
	n8n: N8n,
	sandbox: Sandbox,
	{ log = quiet, onStep }: { log?: Log; onStep?: (step: ExampleStep) => void | Promise<void> } = {},
): Promise<ExampleStep[]> {
	const examples = readExamples().filter(notMcpExample);
	const example = (id: string) => findExample(examples, id);
	const lunch = lunchCopy(example(EXAMPLE_IDS.lunchBreak), 2);
	const { alert, rating, missed, waiting } = pollingCopies(examples);
	// The webhooks check a secret of this run; its credential comes first, so the imported webhooks find it.
	const secret = randomUUID();
	await n8n.importCredentials([webhookCredential(secret)]);
	await n8n.importWorkflows([...examples, lunch, alert, rating, missed, waiting]);

	const steps: ExampleStep[] = [];
	/** Records the `nth` execution of a workflow as a step, with the output of the nodes `shown`. */
	const record = async (step: Omit<ExampleStep, 'outputs'>, shown: string[], nth = 1) => {
		const outputs = outputsOf(await nthSuccess(n8n, step.workflowId, nth), shown);
		steps.push({ ...step, outputs });
		log(`ran: ${step.title}`);
		await onStep?.({ ...step, outputs });
	};

	// The schedules, one after the other, before anything polls the operators the lunch break changes.
	const rest = await n8n.rest();
	const scheduled = async ({ id }: Workflow, trigger: string, title: string, shown: string[]) => {
		await rest('POST', `workflows/${id}/run`, { triggerToStartFrom: { name: trigger } });
		await record({ title, workflowId: id, how: `"Execute workflow" from "${trigger}"` }, shown);
	};
	const stats = example(EXAMPLE_IDS.dailyStats);
	const statsShown = ['Report columns'];
	await scheduled(stats, 'Every day at 07:00', 'Daily operator statistics (07:00)', statsShown);
	const lunchShown = ['Online operators', 'Set to dinner', 'Back online'];
	await scheduled(lunch, 'Every day at 13:00', 'Lunch break (13:00, back at 14:00)', lunchShown);
	const report = example(EXAMPLE_IDS.weeklyReport);
	const reportTitle = 'Weekly first-response report (Monday 08:00)';
	const reportShown = ['Week bounds', 'Per operator', 'Fastest first'];
	await scheduled(report, 'Every Monday at 08:00', reportTitle, reportShown);

	// Webhooks and the chat triggers run in production once published.
	const copies = [alert.id, rating.id, missed.id, waiting.id];
	await n8n.publishWorkflows([...PUBLISHED_EXAMPLES, ...copies]);
	const webhook = async (call: WebhookCall, title: string, shown: string[]) => {
		const { how, response } = await callWebhook(n8n, secret, call);
		await record({ title, workflowId: call.workflow.id, how, response }, shown, call.nth);
		return response.body as Record<string, unknown> | null;
	};
	const crm = { workflow: example(EXAMPLE_IDS.crmBroadcast), webhook: 'CRM webhook' };
	const sent = ['Skip contacts already sent', 'Send template'];
	await webhook(crm, 'CRM webhook sends a template broadcast', sent);
	// A CRM that resends its webhook: Remove Duplicates lets nobody through a second time.
	await webhook({ ...crm, nth: 2 }, 'The same campaign again: nobody gets it twice', sent);
	const pairing = example(EXAMPLE_IDS.visitorPairing);
	const login = { workflow: pairing, webhook: 'Website login' };
	const answer = await webhook(login, 'Website login pairs the visitor', ['Pair token']);
	const token = answer?.auth_token;
	if (typeof token !== 'string')
		throw new Error(`"Website login" answered no auth_token: ${JSON.stringify(answer)}`);
	const logout = { workflow: pairing, webhook: 'Website logout', body: { auth_token: token } };
	await webhook({ ...logout, nth: 2 }, 'Website logout removes the pairing', ['Remove token']);
	const contact = { workflow: example(contactChats), webhook: 'CRM contact' };
	await webhook(contact, "A CRM contact's 3 latest chats, newest first", ['Latest 3 chats']);

	// Publishing polled once at once; that poll read the history from the beginning.
	const title = 'Finished chats exported (Svc Chat Trigger, polled when published)';
	const exported = { title, workflowId: EXAMPLE_IDS.exportFinishedChats, how: 'publishing it' };
	await record(exported, ['Finished chats', 'Spreadsheet columns', 'CSV file']);

	// Example 7: once its first poll has recorded the statuses, every operator goes offline, then back.
	await firstPoll(n8n, alert);
	const how = `its trigger, published, polling every ${POLL_SECONDS} s (its IF sees a pinned clock)`;
	const shown = [ALERT_TRIGGER, 'Message for the team', 'Outside business hours'];
	const alertStep = async (nth: number, title: string) =>
		await record({ title, workflowId: alert.id, how }, shown, nth);
	const before = sandbox.control.getOperators();
	sandbox.control.cycleOperators({ statuses: ['offline'] });
	await alertStep(1, 'Nobody online: every operator was set offline');
	for (const { id, status } of before) sandbox.control.setOperatorStatus(id, status);
	await alertStep(2, 'Nobody online: the operators are back');

	// Examples 8 and 9: once both have found their place, a chat is rated 1 and another 5, and two chats are missed.
	const polled = `its trigger, published, polling every ${POLL_SECONDS} s`;
	await firstPoll(n8n, rating);
	await firstPoll(n8n, missed);
	sandbox.control.rateChat(RATED_CHATS.bad, { rate: 1 });
	sandbox.control.rateChat(RATED_CHATS.good, { rate: 5 });
	const ratingTitle = `Bad rating: chat ${RATED_CHATS.bad} rated 1, chat ${RATED_CHATS.good} rated 5`;
	const ratingShown = [RATING_TRIGGER, 'Message for the team lead'];
	await record({ title: ratingTitle, workflowId: rating.id, how: polled }, ratingShown);
	sandbox.control.addMissedChat('fields');
	sandbox.control.addMissedChat('none');
	const missedTitle = 'Missed chats: one with an e-mail address, one without any contact';
	const missedShown = [MISSED_TRIGGER, 'Has an e-mail address?', 'Follow-up e-mail'];
	await record({ title: missedTitle, workflowId: missed.id, how: polled }, missedShown);

	// Example 10: two visitors write; one is answered at once, the other waits past 3 s.
	await firstPoll(n8n, waiting);
	sandbox.control.visitorWaits();
	sandbox.control.answerChat(sandbox.control.visitorWaits().id);
	const waitingTitle = 'A visitor waits more than 3 s; another, answered at once, does not count';
	const waitingShown = [WAITING_TRIGGER, 'Message for the team'];
	await record({ title: waitingTitle, workflowId: waiting.id, how: polled }, waitingShown);
	return steps;
}
