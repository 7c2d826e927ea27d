// A workflow of one Svc Chat Trigger published on the engine, and its polls as the trigger scenarios assert them.
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { nodeOutput } from '../../scripts/executions';
import type { Workflow } from '../../scripts/n8n';
import { QUIET_POLLS } from '../e2e/environment';
import type { EngineUnderTest } from '../harness/engine';

/** The trigger alone, as the editor saves a new workflow; Poll Times does not matter: each poll is the test's. */
function triggerWorkflow(
	node: string,
	parameters: INodeParameters,
	settings: IDataObject,
): Workflow {
	return {
		id: `engine-${node.replace(/\W+/g, '-')}`,
		name: `Engine: ${node}`,
		nodes: [
			{
				id: 'engine-trigger',
				name: node,
				type: 'n8n-nodes-svc.svcChatTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: { pollTimes: { item: [{ mode: 'everyMinute' }] }, ...parameters },
				credentials: { svcApi: { id: 'engineCredential', name: 'Svc sandbox' } },
			},
		],
		connections: {},
		settings: { executionOrder: 'v1', ...settings },
		active: false,
	};
}

/** Publishes a trigger on the engine; nothing polls until the test says so. `settings` are the workflow's (its Timezone…). */
export function publishTrigger(
	env: EngineUnderTest,
	node: string,
	parameters: INodeParameters,
	settings: IDataObject = {},
) {
	const trigger = env.engine.publish(triggerWorkflow(node, parameters, settings), {
		credentials: env.credentials,
	});
	return {
		...trigger,
		node,
		/** The node's static data as n8n saved it. */
		savedState: () => trigger.saved()[`node:${node}`] as IDataObject | undefined,
		/** A poll that must start an execution that succeeds: the items the trigger gave it, as n8n stores them. */
		async emits(): Promise<IDataObject[]> {
			const { run, error } = await trigger.poll();
			expect(error).toBeUndefined();
			expect(run?.status).toBe('success');
			return nodeOutput(run!.data, node);
		},
		/** Polls that must each emit nothing and fail nothing: after a change, an item emitted twice would show. */
		async quiet(polls = QUIET_POLLS): Promise<void> {
			for (let poll = 0; poll < polls; poll++)
				expect(await trigger.poll()).toEqual({ emitted: null, run: null });
		},
	};
}

export type PublishedTrigger = ReturnType<typeof publishTrigger>;
