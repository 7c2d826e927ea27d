// Chat resource: one chat by ID, or the chats changed since a date or cursor (spec 4.6, 4.7).
import { resource } from '../router';
import * as get from './get.operation';
import * as getMany from './getMany.operation';

export const chat = resource(
	{ get, getMany },
	{
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
	},
);
