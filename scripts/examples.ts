// The example workflows (examples/*.json): read them, point them at the sandbox, and run each once inside a real n8n.
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
} as const;

/** The examples that run in production (webhooks, the chat trigger): published before `n8n start`. */
const { exportFinishedChats, crmBroadcast, visitorPairing } = EXAMPLE_IDS;
export const PUBLISHED_EXAMPLES = [exportFinishedChats, crmBroadcast, visitorPairing];

/** An `svcApi` credential (by default the examples' one) logging in to `sandbox` as its admin, as n8n exports it. */
export function sandboxCredential(
	{ host, admin }: Pick<Sandbox, 'host' | 'admin'>,
	{ id, name }: { id: string; name: string } = SANDBOX_CREDENTIAL,
) {
	const data = { host, email: admin.email, password: admin.password, ignoreSslIssues: false };
	return { id, name, type: 'svcApi', data } satisfies ExportedCredential;
}

export const readExamples = () => readWorkflowsIn(path.join(REPO_ROOT, 'examples'));

export function findExample(examples: Workflow[], id: string): Workflow {
	const example = examples.find((workflow) => workflow.id === id);
	if (!example) throw new Error(`examples/ has no workflow with id ${id}`);
	return example;
}

/** A scheduled example that execute-batch can start: a Manual Trigger in its trigger's place, waits of 2 s, not hours. */
function manualVariant(workflow: Workflow, triggerName: string, id: string): Workflow {
	const nodes = workflow.nodes.map((node) => {
		if (node.name === triggerName)
			return { ...node, type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, parameters: {} };
		const timed = (node.parameters.resume ?? 'timeInterval') === 'timeInterval';
		if (node.type !== 'n8n-nodes-base.wait' || !timed) return node;
		return { ...node, parameters: { ...node.parameters, amount: 2, unit: 'seconds' } };
	});
	return { ...workflow, id, name: `${workflow.name} (run from "${triggerName}")`, nodes };
}

/** Poll times at these seconds of every minute: one custom cron each, as n8n refuses a cron firing more than once a minute. */
export const pollAt = (seconds: number[]) => ({
	item: seconds.map((second) => ({
		mode: 'custom' as const,
		cronExpression: `${second} * * * * *`,
	})),
});

/** Poll times for every `seconds` s. */
export const pollEvery = (seconds: number) =>
	pollAt(Array.from({ length: 60 / seconds }, (_, index) => index * seconds));

/** A copy of a polling example whose trigger polls every `seconds` s, so that a run need not wait for minute marks. */
function pollingVariant(workflow: Workflow, triggerName: string, id: string, seconds: number) {
	const nodes = workflow.nodes.map((node) =>
		node.name === triggerName
			? { ...node, parameters: { ...node.parameters, pollTimes: pollEvery(seconds) } }
			: node,
	);
	return { ...workflow, id, name: `${workflow.name} (polling every ${seconds} s)`, nodes };
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
	/** How n8n ran it: `n8n execute-batch` (schedules), a production webhook call, or a trigger activated by `n8n start`. */
	how: string;
	/** Output items of the nodes worth showing, by node name: their json, plus the name, type and size of any file. */
	outputs: Record<string, Array<Record<string, unknown>>>;
	response?: { status: number; body: unknown };
}

function outputsOf(run: RunData, nodeNames: string[]): ExampleStep['outputs'] {
	const item = ({ json, binary }: ReturnType<typeof nodeItems>[number]) => {
		if (!binary) return json;
		const files = Object.entries(binary).map(([key, { fileName, mimeType, fileSize }]) => [
			key,
			{ fileName, mimeType, fileSize },
		]);
		return { ...json, files: Object.fromEntries(files) };
	};
	return Object.fromEntries(nodeNames.map((name) => [name, nodeItems(run, name).map(item)]));
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

type WebhookCall = { workflow: Workflow; webhook: string; body?: unknown; nth?: number };

/** Calls a webhook example (404 while n8n still registers it), checks its answer and records the `nth` execution. */
async function webhookStep(
	n8n: N8n,
	{ workflow, webhook, body = pinnedBody(workflow, webhook), nth = 1 }: WebhookCall,
	title: string,
	shown: string[],
): Promise<ExampleStep> {
	const node = workflow.nodes.find(({ name }) => name === webhook);
	if (!node) throw new Error(`Workflow "${workflow.name}" has no node "${webhook}"`);
	const how = `POST /webhook/${String(node.parameters.path)}`;
	const url = `${n8n.baseUrl}${how.slice('POST '.length)}`;
	const post = async () => {
		const reply = await postJsonOnNewConnection(url, body, 60_000);
		return reply.status !== 404 && reply;
	};
	const what = `POST ${url} (still 404)`;
	const { status, text } = await waitUntil(post, { what, timeoutMs: 30_000, everyMs: 500 });
	const answer: unknown = await Promise.resolve(text)
		.then(JSON.parse)
		.catch(() => text);
	if (status !== 200) throw new Error(`"${webhook}" answered ${status}: ${JSON.stringify(answer)}`);
	const outputs = outputsOf(await nthSuccess(n8n, workflow.id, nth), shown);
	return { title, workflowId: workflow.id, how, outputs, response: { status: 200, body: answer } };
}

/**
 * Runs every example once against the sandbox the `Svc sandbox` credential points at, the way it runs for users:
 * the scheduled ones from their schedule trigger (through `n8n execute-batch`), the webhook ones by calling their
 * production URLs, and the chat triggers by activation in `n8n start` (example 7 polls every 5 s while every
 * operator goes offline and back: it changes the sandbox's operators' statuses, and restores them). n8n must have
 * the package and credential. `onStep` is called after each step, e.g. to look at the sandbox before the next one
 * changes it. Throws on the first step that fails; always stops the n8n server it started.
 */
export async function runExamples(
	n8n: N8n,
	sandbox: Sandbox,
	{ log = quiet, onStep }: { log?: Log; onStep?: (step: ExampleStep) => void | Promise<void> } = {},
): Promise<ExampleStep[]> {
	const examples = readExamples();
	const example = (id: string) => findExample(examples, id);
	const pairing = example(EXAMPLE_IDS.visitorPairing);
	const alertTrigger = 'Operator availability';
	const variants = {
		stats: manualVariant(example(EXAMPLE_IDS.dailyStats), 'Every day at 07:00', 'svcRunStats0700'),
		lunch: manualVariant(example(EXAMPLE_IDS.lunchBreak), 'Every day at 13:00', 'svcRunLunch1300'),
		alert: pollingVariant(example(EXAMPLE_IDS.nobodyOnline), alertTrigger, 'svcRunAlert5s', 5),
	};
	await n8n.importWorkflows([...examples, ...Object.values(variants)]);

	const steps: ExampleStep[] = [];
	const record = async (step: ExampleStep) => {
		steps.push(step);
		log(`ran: ${step.title}`);
		await onStep?.(step);
	};

	// Schedules run once now, together in one n8n process (each n8n start costs seconds); the lunch hour lasts two seconds.
	const { runs, errors } = await n8n.executeBatch([variants.stats.id, variants.lunch.id]);
	const scheduledStep = async ({ id }: Workflow, title: string, shown: string[]) => {
		if (errors[id]) throw new Error(`${title}: the workflow failed: ${errors[id]}`);
		const how = 'n8n execute-batch';
		await record({ title, workflowId: id, how, outputs: outputsOf(runs[id], shown) });
	};
	await scheduledStep(variants.stats, 'Daily operator statistics (07:00)', ['Report columns']);
	const lunchShown = ['Online operators', 'Set to dinner', 'Back online'];
	await scheduledStep(variants.lunch, 'Lunch break (13:00, back at 14:00)', lunchShown);

	// Webhooks and the chat trigger run in production: publish, then `n8n start`.
	await n8n.publishWorkflows([...PUBLISHED_EXAMPLES, variants.alert.id]);
	await n8n.start();
	try {
		const crm = { workflow: example(EXAMPLE_IDS.crmBroadcast), webhook: 'CRM webhook' };
		await record(
			await webhookStep(n8n, crm, 'CRM webhook sends a template broadcast', ['Send template']),
		);
		const login = await webhookStep(
			n8n,
			{ workflow: pairing, webhook: 'Website login' },
			'Website login pairs the visitor',
			['Pair token'],
		);
		const answer = login.response?.body as { auth_token?: unknown } | null;
		const token = answer?.auth_token;
		if (typeof token !== 'string')
			throw new Error(`"Website login" answered no auth_token: ${JSON.stringify(answer)}`);
		await record(login);
		const logout = { workflow: pairing, webhook: 'Website logout', body: { auth_token: token } };
		await record(
			await webhookStep(n8n, { ...logout, nth: 2 }, 'Website logout removes the pairing', [
				'Remove token',
			]),
		);

		// Activation polls once at once; that poll reads the history from the beginning.
		const exportRun = await nthSuccess(n8n, EXAMPLE_IDS.exportFinishedChats, 1);
		await record({
			title: 'Finished chats exported (Svc Chat Trigger, polled on activation)',
			workflowId: EXAMPLE_IDS.exportFinishedChats,
			how: 'published; n8n start',
			outputs: outputsOf(exportRun, ['Finished chats', 'Spreadsheet columns', 'CSV file']),
		});

		// Example 7: once its first poll has recorded the statuses, every operator goes offline, then back.
		await waitUntil(
			async () =>
				(await n8n.staticData(variants.alert.id))?.[`node:${alertTrigger}`]?.operatorEvents !==
				undefined,
			{ what: `the first poll of "${alertTrigger}"`, timeoutMs: 60_000, everyMs: 500 },
		);
		const alertStep = async (nth: number, title: string) => {
			const data = await nthSuccess(n8n, variants.alert.id, nth);
			// The trigger, and whichever branch of the IF ran.
			const shown = [alertTrigger, 'Message for the team', 'Outside business hours'].filter(
				(name) => data.resultData.runData[name],
			);
			const how = 'published, polling every 5 s; n8n start';
			await record({ title, workflowId: variants.alert.id, how, outputs: outputsOf(data, shown) });
		};
		const before = sandbox.control.getOperators();
		sandbox.control.cycleOperators({ statuses: ['offline'] });
		await alertStep(1, 'Nobody online: every operator was set offline');
		for (const { id, status } of before) sandbox.control.setOperatorStatus(id, status);
		await alertStep(2, 'Nobody online: the operators are back');
	} finally {
		await n8n.stop();
	}
	return steps;
}
