// Operator > Get Many: GET /operators (spec 4.4), filtered in the node by status, role and email.
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { svcRequest } from '../../transport/request';
import { itemParameters } from '../../parameters';
import {
	OPERATOR_ROLE_OPTIONS,
	OPERATOR_STATUS_OPTIONS,
	returnAllOrLimit,
} from '../../descriptions/parameterBlocks';

export const properties: INodeProperties[] = [
	...returnAllOrLimit(),
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		description: 'The API always returns every operator; these filters are applied by the node',
		options: [
			{
				displayName: 'Email',
				name: 'email',
				type: 'string',
				placeholder: 'name@email.com',
				default: '',
				description:
					'Only the operator with this email (upper and lower case are treated alike). An expression that gives no value fails the item.',
			},
			{
				displayName: 'Role',
				name: 'role',
				type: 'multiOptions',
				options: OPERATOR_ROLE_OPTIONS,
				default: [],
				description:
					'Only operators that have at least one of these roles. An expression that gives none fails the item.',
			},
			{
				displayName: 'Status',
				name: 'status',
				type: 'multiOptions',
				options: OPERATOR_STATUS_OPTIONS,
				default: [],
				description:
					'Only operators currently in one of these statuses. An expression that gives none fails the item.',
			},
		],
	},
];

export async function execute(this: IExecuteFunctions, itemIndex: number) {
	const read = itemParameters(this, itemIndex, properties);
	read.collection('filters'); // checked as a whole first, so a broken value is named as such
	const email = read.filterText('filters.email')?.toLowerCase();
	const roles = read.filterList('filters.role');
	const statuses = read.filterList('filters.status');
	const operators = await svcRequest(this, 'operators', { itemIndex });
	const matching = operators.filter(
		(operator) =>
			(!email || String(operator.email ?? '').toLowerCase() === email) &&
			(!roles.length ||
				(Array.isArray(operator.roles) && operator.roles.some((role) => roles.includes(role)))) &&
			(!statuses.length || statuses.includes(operator.status)),
	);
	return matching.slice(0, read.limit());
}
