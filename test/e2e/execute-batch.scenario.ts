// test/harness/executeBatch.ts on a real n8n: each outcome of n8n's execute-batch comes back, none is left out quietly.
import { SANDBOX_CREDENTIAL } from '../../scripts/examples';
import type { Workflow } from '../../scripts/n8n';
import { executeBatch } from '../harness/executeBatch';
import type { E2eEnvironment } from './environment';

/** The tests, on the caller's n8n 2.x environment with "Svc sandbox" (read when they run). */
export function testExecuteBatchOutcomes(env: () => E2eEnvironment) {
	test('a failure that execute-batch files under warnings (its text names an internal server error) comes back as its error', async () => {
		const { n8n, sandbox } = env();
		// An HTML error page answers the one attempt (a 500 is not retried); the node's error quotes its title.
		sandbox.control.injectFault({ kind: 'html', path: '/api/v2/partner/tariffs', count: 1 });
		const workflow: Workflow = {
			id: 'svcRun500Tariffs1',
			name: 'Tariffs while the server fails',
			nodes: [
				{
					id: 'w-start',
					name: 'Start',
					type: 'n8n-nodes-base.manualTrigger',
					typeVersion: 1,
					position: [-440, 200],
					parameters: {},
				},
				{
					id: 'w-tariffs',
					name: 'Tariffs',
					type: 'n8n-nodes-svc.svcChat',
					typeVersion: 1,
					position: [-220, 200],
					parameters: { resource: 'tariff', operation: 'getMany', returnAll: true },
					credentials: { svcApi: SANDBOX_CREDENTIAL },
				},
			],
			connections: { Start: { main: [[{ node: 'Tariffs', type: 'main', index: 0 }]] } },
			settings: { executionOrder: 'v1' },
		};
		try {
			await n8n.importWorkflows([workflow]);
			const { runs, errors } = await executeBatch(n8n, [workflow.id]);
			expect(runs).toEqual({});
			expect(errors[workflow.id]).toMatch(/Internal Server Error.* on node Tariffs$/s);
		} finally {
			sandbox.control.clearFaults();
		}
	});

	test('a workflow ID without a digit, which execute-batch quietly leaves out, is refused with that reason', async () => {
		await expect(executeBatch(env().n8n, ['svcNoDigitHere'])).rejects.toThrow(
			'n8n execute-batch runs no workflow ID without a digit: svcNoDigitHere',
		);
	});
}
