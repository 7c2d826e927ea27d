// Department resource: the operation selector and its operations.
import type { INodeProperties } from 'n8n-workflow';

import type { SvcResource } from '../router';
import * as getMany from './getMany.operation';

const operationSelector: INodeProperties = {
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
};

export const department: SvcResource = {
	description: [operationSelector, ...getMany.description],
	operations: { getMany },
};
