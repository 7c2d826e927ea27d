// Every resource of the Svc Chat node, by value: the node's description and the router both read this one list.
import type { INodePropertyOptions } from 'n8n-workflow';

import type { SvcResource } from './operation';
import { broadcast } from './broadcast/Broadcast.resource';
import { chat } from './chat/Chat.resource';
import { department } from './department/Department.resource';
import { operator } from './operator/Operator.resource';
import { statistics } from './statistics/Statistics.resource';
import { tariff } from './tariff/Tariff.resource';
import { visitor } from './visitor/Visitor.resource';

export const resources: Record<string, SvcResource> = {
	broadcast,
	chat,
	department,
	operator,
	statistics,
	tariff,
	visitor,
};

export const operations = Object.fromEntries(
	Object.entries(resources).map(([name, resource]) => [name, resource.operations]),
);

/** Each operation's action words ("Get chat"), by "resource:operation": what the canvas shows under the node. */
export function actionLabels(): Record<string, string> {
	const labels: Record<string, string> = {};
	for (const [resourceName, resource] of Object.entries(resources)) {
		const selector = resource.description.find((property) => property.name === 'operation');
		for (const option of (selector?.options ?? []) as INodePropertyOptions[]) {
			labels[`${resourceName}:${String(option.value)}`] = option.action ?? option.name;
		}
	}
	return labels;
}

/** The node's subtitle expression: the chosen operation's action words instead of its raw values. */
export function actionSubtitle(): string {
	return `={{ ${JSON.stringify(actionLabels())}[$parameter["resource"] + ":" + $parameter["operation"]] }}`;
}
