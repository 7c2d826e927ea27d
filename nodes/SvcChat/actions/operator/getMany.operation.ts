// Operator > Get Many: GET /operators (spec 4.4), filtered in the node by status, role and e-mail.
import { updateDisplayOptions, type IExecuteFunctions, type INodeProperties } from 'n8n-workflow';

import { svcApiRequest } from '../../transport';
import type { Operator } from '../../types';
import { applyLimit } from '../../helpers/limit';
import { returnAllOrLimit } from '../common.descriptions';
import { OPERATOR_STATUS_OPTIONS } from './statusOptions';

const properties: INodeProperties[] = [
	...returnAllOrLimit,
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		description: 'The API always returns every operator; these filters are applied by the node',
		options: [
			{
				displayName: 'E-Mail',
				name: 'email',
				type: 'string',
				placeholder: 'name@email.com',
				default: '',
				description: 'Only the operator with this e-mail (upper and lower case are treated alike)',
			},
			{
				displayName: 'Role',
				name: 'role',
				type: 'multiOptions',
				options: [
					{ name: 'Admin', value: 'admin' },
					{ name: 'Operator', value: 'operator' },
					{ name: 'Supervisor', value: 'supervisor' },
				],
				default: [],
				description: 'Only operators that have at least one of these roles',
			},
			{
				displayName: 'Status',
				name: 'status',
				type: 'multiOptions',
				options: OPERATOR_STATUS_OPTIONS,
				default: [],
				description: 'Only operators currently in one of these statuses',
			},
		],
	},
];

export const description = updateDisplayOptions({ show: { resource: ['operator'], operation: ['getMany'] } }, properties);

interface OperatorFilters {
	email?: string;
	role?: string[];
	status?: string[];
}

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<Operator[]> {
	const filters = this.getNodeParameter('filters', itemIndex, {}) as OperatorFilters;
	const email = typeof filters.email === 'string' ? filters.email.trim().toLowerCase() : '';
	const roles = filters.role ?? [];
	const statuses = filters.status ?? [];
	const operators = (await svcApiRequest.call(this, 'GET', 'operators', { itemIndex })) as Operator[];
	const matching = operators.filter(
		(operator) =>
			(!email || String(operator.email ?? '').toLowerCase() === email) &&
			(!roles.length || (Array.isArray(operator.roles) && operator.roles.some((role) => roles.includes(role)))) &&
			(!statuses.length || statuses.includes(operator.status)),
	);
	return applyLimit(this, itemIndex, matching);
}
