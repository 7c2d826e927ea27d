// Real n8n 2.41.1, one n8n: the execute-batch reader, a trigger on n8n's own schedule emitting once, example 14's Data table, then the login guard.
import {
	createChatsTable,
	EXAMPLE_IDS,
	findExample,
	pollEvery,
	readExamples,
} from '../../scripts/examples';
import { nodeOutput } from '../../scripts/executions';
import type { Workflow } from '../../scripts/n8n';
import { waitUntil } from '../../scripts/processes';
import { testExecuteBatchOutcomes } from './execute-batch.scenario';
import { testLoginBackOff } from './trigger-backoff.scenario';
import {
	POLL_EVERY_SECONDS,
	POLL_WAIT_MS,
	QUIET_POLLS,
	sandboxCredentialOf,
	setPublished,
	usePolls,
	useE2eEnvironment,
} from './environment';

const env = useE2eEnvironment(
	{ sandbox: { seed: 25, chats: 20 } },
	async (started) => await started.n8n.start(),
);
// First: execute-batch runs in a process of its own beside this n8n, before any trigger polls the sandbox.
describe("the harness reads every outcome of n8n's execute-batch", () =>
	testExecuteBatchOutcomes(() => env));

describe('n8n 2.x: a published trigger on its own schedule', () => {
	const NODE = 'Chat changes';
	let workflowId = '';
	// The only reader of /chats while it runs: each poll reads it once.
	const polls = usePolls(env, '/api/v2/chats', () => 1);

	beforeAll(async () => {
		const workflow: Omit<Workflow, 'id'> = {
			name: 'Schedule e2e: chat changes',
			nodes: [
				{
					id: 'e2e63000-0000-4000-8000-000000000001',
					name: NODE,
					type: 'n8n-nodes-svc.svcChatTrigger',
					typeVersion: 1,
					position: [0, 0],
					// From Now (the default), every change.
					parameters: {
						pollTimes: pollEvery(POLL_EVERY_SECONDS),
						emit: 'everyChange',
						output: 'raw',
					},
					credentials: await sandboxCredentialOf(env.n8n),
				},
			],
			connections: {},
			settings: { executionOrder: 'v1' },
			active: false,
		};
		workflowId = String((await (await env.n8n.rest())('POST', 'workflows', workflow)).id);
		await env.n8n.publishWorkflows([workflowId]);
	});
	// Its polls would only load the n8n that the login guard's workflows share, on the same account.
	afterAll(async () => {
		if (workflowId) await setPublished(env, workflowId, false);
	});

	test('published, it polls on its schedule and emits a change made after its publication, once', async () => {
		// The poll at publication caught up to the present, emitted nothing, and n8n saved where it got to.
		expect((await env.n8n.staticData(workflowId))?.[`node:${NODE}`]).toMatchObject({
			startedFrom: 'now',
			catchingUp: false,
		});
		const [recent] = env.sandbox.control.recentChats(1);
		const changed = env.sandbox.control.updateChat(recent.id);
		await env.n8n.waitForExecutions(workflowId, 1, POLL_WAIT_MS);
		await polls.after(QUIET_POLLS);
		const executions = polls.withoutFailedByN8n(
			await env.n8n.readExecutions(workflowId, { all: true }),
		);
		expect(executions).toHaveLength(1);
		expect(executions[0]).toMatchObject({ mode: 'trigger', status: 'success' });
		expect(nodeOutput(executions[0].data, NODE).map(({ id }) => id)).toEqual([changed.id]);
	});
});

describe('example 14, published: one Data table row per finished chat', () => {
	let tableRows: () => Promise<Array<Record<string, unknown>>>;
	const example = findExample(readExamples(), EXAMPLE_IDS.chatsTable);
	// The example polling every POLL_EVERY_SECONDS s, from now: the rows are those of the chats this test finishes.
	const copy = {
		...example,
		nodes: example.nodes.map((node) =>
			node.type === 'n8n-nodes-svc.svcChatTrigger'
				? {
						...node,
						parameters: {
							...node.parameters,
							pollTimes: pollEvery(POLL_EVERY_SECONDS),
							startFrom: 'now',
						},
					}
				: node,
		),
	};

	beforeAll(async () => {
		const tableId = await createChatsTable(env.n8n);
		const rest = await env.n8n.rest();
		const { id: projectId } = (await rest('GET', 'projects/personal')) as { id: string };
		tableRows = async () =>
			(
				(await rest('GET', `projects/${projectId}/data-tables/${tableId}/rows`)) as {
					data: Array<Record<string, unknown>>;
				}
			).data;
		await env.n8n.importWorkflows([copy]);
		await env.n8n.publishWorkflows([copy.id]);
	});
	afterAll(async () => {
		await setPublished(env, copy.id, false);
	});

	test('a numeric and a GUID chat finish: a row each; a late rating updates its row, no second one', async () => {
		// Five new chats hold a GUID one (the sandbox gives every fifth a GUID) and numeric ones.
		const added = env.sandbox.control.addChats(5);
		const guid = added.find(({ id }) => typeof id === 'string')!;
		const numeric = added.find(({ id }) => typeof id === 'number')!;
		for (const { id } of [guid, numeric]) env.sandbox.control.closeChat(id);
		const rowsOf = async () => {
			const rows = await tableRows();
			return rows.filter(({ chat_id }) =>
				[String(guid.id), String(numeric.id)].includes(String(chat_id)),
			);
		};
		const wait = async (what: string, done: (rows: Array<Record<string, unknown>>) => boolean) =>
			await waitUntil(async () => ((rows) => done(rows) && rows)(await rowsOf()), {
				what,
				timeoutMs: POLL_WAIT_MS,
				everyMs: 2_000,
			});
		const finished = await wait('a row for each finished chat', (rows) => rows.length === 2);
		expect(finished.map(({ rating }) => rating)).toEqual([null, null]);
		env.sandbox.control.rateChat(numeric.id, { rate: 4 });
		await wait('the late rating in its row', (rows) => rows.some(({ rating }) => rating === 4));
		const rows = await tableRows();
		expect(rows.map(({ chat_id }) => chat_id).sort()).toEqual(
			[String(guid.id), String(numeric.id)].sort(),
		);
		const rated = rows.find(({ chat_id }) => chat_id === String(numeric.id))!;
		expect(rated).toMatchObject({
			rating: 4,
			final_state: 'closed',
			transcript: expect.stringContaining('['),
		});
		// The operator by name (Simplified's operator_name), null for a chat without one.
		const operator = env.sandbox.control
			.getOperators()
			.find(({ id }) => id === numeric.operator_id);
		expect(rated.operator_name).toBe(operator?.full_name ?? null);
		expect(
			typeof rated.first_response_seconds === 'number' || rated.first_response_seconds === null,
		).toBe(true);
	});
});

testLoginBackOff(env);
