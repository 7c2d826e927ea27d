// Visitor > Remove Token: POST rt/provide_visitor_fields without visitor_fields, which removes the pairing (spec 4.1 rule 2).
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { svcRequest } from '../../transport/request';
import { itemParameters } from '../../parameters';
import { readAuthToken } from './pairToken.operation';

export const properties: INodeProperties[] = [
	{
		displayName: 'Auth Token',
		name: 'authToken',
		type: 'string',
		typeOptions: { password: true },
		default: '',
		required: true,
		placeholder: 'e.g. 9f1c2b7e-4d3a-4c8e-a1f0-3b5d7e9c2a64',
		description:
			'The token whose pairing to remove, e.g. when the visitor logs out of your website',
	},
];

export async function execute(this: IExecuteFunctions, itemIndex: number) {
	const read = itemParameters(this, itemIndex, properties);
	const authToken = readAuthToken(read);
	if (authToken === undefined) {
		throw read.fail(
			`'${read.label('authToken')}' is empty`,
			'Enter the token that the Pair visitor token action returned for this visitor.',
		);
	}
	const body = { auth_token: authToken };
	await svcRequest(this, 'rt/provide_visitor_fields', { body, itemIndex });
	// n8n's convention for a deletion is { deleted: true }; version 1 of the node said { removed: true }, and keeps it.
	if (this.getNode().typeVersion < 2) return [{ auth_token: authToken, removed: true }];
	return [{ deleted: true, auth_token: authToken }];
}
