// The "Svc Chat" action node: its description is assembled from the resources; execution goes to the router.
import {
	NodeConnectionTypes,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';

import { router } from './actions/router';
import { actionSubtitle, resources } from './actions/operations';
import { searchChats, searchOperatorEmails, searchOperators } from './actions/listSearch';
import { svcApiCredentialTest } from './transport/credentialTest';

export class SvcChat implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Svc Chat',
		name: 'svcChat',
		icon: { light: 'file:svc.svg', dark: 'file:svc.dark.svg' },
		group: ['transform'],
		// Version 2 changes only what Remove Token returns ({ deleted: true }); version 1 workflows keep { removed: true }.
		version: [1, 2],
		defaultVersion: 2,
		subtitle: actionSubtitle(),
		description: 'Read chats, operators and statistics, set operator status, pair visitors and send template broadcasts with the Svc chat server',
		defaults: { name: 'Svc Chat' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'svcApi', required: true, testedBy: 'svcApiCredentialTest' }],
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

	methods = {
		credentialTest: { svcApiCredentialTest },
		listSearch: { searchChats, searchOperatorEmails, searchOperators },
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
