// Operator resource: the operation selector and its operations.
import { resource } from '../router';
import * as getMany from './getMany.operation';
import * as setStatus from './setStatus.operation';

export const operator = resource(
	{ getMany, setStatus },
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['operator'] } },
		options: [
			{
				name: 'Get Many',
				value: 'getMany',
				description: 'List the operators of the account with their status and roles',
				action: 'Get many operators',
			},
			{
				name: 'Set Status',
				value: 'setStatus',
				description: 'Set an operator online, offline, invisible or on a break',
				action: 'Set operator status',
			},
		],
		default: 'getMany',
	},
);
