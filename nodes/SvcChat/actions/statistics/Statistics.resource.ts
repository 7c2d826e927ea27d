// Statistics resource: daily usage figures and per-operator figures (spec 4.9).
import { resource } from '../router';
import * as getOperatorStats from './getOperatorStats.operation';
import * as getUsage from './getUsage.operation';

export const statistics = resource(
	{ getOperatorStats, getUsage },
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['statistics'] } },
		options: [
			{
				name: 'Get Operator Statistics',
				value: 'getOperatorStats',
				description:
					'Retrieve statistics per operator and day: online time, chatting time, handled chats, busy notices',
				action: 'Get operator statistics',
			},
			{
				name: 'Get Usage',
				value: 'getUsage',
				description:
					'Retrieve usage statistics per day: contacts, missed contacts, chats, offline messages and average waiting time',
				action: 'Get usage statistics',
			},
		],
		default: 'getUsage',
	},
);
