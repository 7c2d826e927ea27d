// The in-process engine itself, on both n8n lines: a workflow's run matches the API, and a published trigger's polls
// carry their static data from poll to poll and across a restart, as n8n carries it.
import path from 'node:path';
import type { Department } from '../../nodes/SvcChat/types';
import { nodeOutput } from '../../scripts/executions';
import { readWorkflowsIn, type Workflow } from '../../scripts/n8n';
import { FLAVOURS } from '../../scripts/runtime';
import { sandboxGet } from '../e2e/environment';
import { useEngine } from '../harness/engine';

const READS = readWorkflowsIn(path.join(__dirname, '../e2e/workflows')).find(
	({ id }) => id === 'svcE2eReads',
)!;

/** Every change from the beginning, each chat's id set by an n8n-nodes-base Set node after the trigger. */
const EVERY_CHANGE: Workflow = {
	id: 'engineEveryChange',
	name: 'Engine: every change',
	nodes: [
		{
			id: 'engine-trigger',
			name: 'Changes',
			type: 'n8n-nodes-svc.svcChatTrigger',
			typeVersion: 1,
			position: [0, 0],
			parameters: {
				emit: 'everyChange',
				startFrom: 'beginning',
				pollTimes: { item: [{ mode: 'everyMinute' }] },
			},
			credentials: { svcApi: { id: 'engineCredential', name: 'Svc sandbox' } },
		},
		{
			id: 'engine-set',
			name: 'Ids',
			type: 'n8n-nodes-base.set',
			typeVersion: 3.4,
			position: [240, 0],
			parameters: {
				assignments: {
					assignments: [
						{ id: 'chat-id', name: 'chat', value: '={{ String($json.id) }}', type: 'string' },
					],
				},
				options: {},
			},
		},
	],
	connections: { Changes: { main: [[{ node: 'Ids', type: 'main', index: 0 }]] } },
	settings: { executionOrder: 'v1' },
	active: false,
};

describe.each([FLAVOURS['n8n-2'], FLAVOURS['n8n-1']])('the engine of $name', (flavour) => {
	const env = useEngine(flavour, { seed: 3, chats: 150 });

	test('a workflow run from its Manual Trigger gives what the API has', async () => {
		const run = await env.engine.run(READS, { credentials: env.credentials });
		expect(run.status).toBe('success');
		const departments = await sandboxGet<Department[]>(env.sandbox, 'departments');
		expect(departments.length).toBeGreaterThan(0);
		expect(nodeOutput(run.data, 'Departments')).toEqual(departments);
	});

	test('a published trigger emits each change once, its cursor carried from poll to poll and across a restart', async () => {
		const trigger = env.engine.publish(EVERY_CHANGE, { credentials: env.credentials });
		const first = await trigger.poll();
		expect(first.error).toBeUndefined();
		const ids = (run: typeof first) => nodeOutput(run.run!.data, 'Ids').map(({ chat }) => chat);
		expect(new Set(ids(first)).size).toBe(150);
		expect(first.run!.status).toBe('success');
		// n8n saved the static data when the poll emitted; in memory it is the same.
		expect(trigger.saved()).toEqual({ 'node:Changes': trigger.staticData() });
		expect(trigger.staticData().cursor).toMatch(/^\d+$/);
		expect(await trigger.poll()).toEqual({ emitted: null, run: null });

		const changed = env.sandbox.control.updateChat(env.sandbox.control.recentChats(1)[0].id);
		const second = await trigger.poll();
		expect(ids(second)).toEqual([String(changed.id)]);

		trigger.restart();
		expect(await trigger.poll()).toEqual({ emitted: null, run: null });
	});
});
