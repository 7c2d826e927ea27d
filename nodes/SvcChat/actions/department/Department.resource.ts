// Department resource: the operation selector and its operations.
import { resource } from '../router';
import * as getMany from './getMany.operation';

export const department = resource(
	{ getMany },
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['department'] } },
		options: [
			{
				name: 'Get Many',
				value: 'getMany',
				description: 'List the departments of the account',
				action: 'Get many departments',
			},
		],
		default: 'getMany',
	},
);
