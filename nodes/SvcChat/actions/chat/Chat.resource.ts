// Chat resource: one chat by ID, or the chats changed since a date or cursor (spec 4.6, 4.7).
import type { INodeProperties } from 'n8n-workflow';

import type { SvcResource } from '../router';
import * as get from './get.operation';
import * as getMany from './getMany.operation';

const operationSelector: INodeProperties = {
	displayName: 'Operation',
	name: 'operation',
	type: 'options',
	noDataExpression: true,
	displayOptions: { show: { resource: ['chat'] } },
	options: [
		{
			name: 'Get',
			value: 'get',
			description: 'Retrieve one chat with its messages, ratings and visitor',
			action: 'Get chat',
		},
		{
			name: 'Get Many',
			value: 'getMany',
			description:
				'Retrieve the chats that are new or changed since a date, or since the position an earlier run stopped at',
			action: 'Get many chats',
		},
	],
	default: 'getMany',
};

export const chat: SvcResource = {
	description: [operationSelector, ...get.description, ...getMany.description],
	operations: { get, getMany },
};
