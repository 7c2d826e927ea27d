// The "Svc Chat" action node: its description is assembled from the resources; execution goes to the router.
import {
	NodeConnectionTypes,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';

import { router } from './actions/router';
import { resources } from './actions/operations';

export class SvcChat implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Svc Chat',
		name: 'svcChat',
		icon: { light: 'file:svc.svg', dark: 'file:svc.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
		description: 'Read chats, operators and statistics, set operator status, pair visitors and send template broadcasts with the Svc chat server',
		defaults: { name: 'Svc Chat' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'svcApi', required: true }],
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: [
					{ name: 'Broadcast', value: 'broadcast' },
					{ name: 'Chat', value: 'chat' },
					{ name: 'Department', value: 'department' },
					{ name: 'Operator', value: 'operator' },
					{ name: 'Statistic', value: 'statistics' },
					{ name: 'Tariff', value: 'tariff' },
					{ name: 'Visitor', value: 'visitor' },
				],
				default: 'chat',
			},
			...Object.values(resources).flatMap((resource) => resource.description),
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
