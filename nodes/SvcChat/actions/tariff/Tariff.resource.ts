// Tariff resource: the tariffs offered to partners (spec 4.8).
import { resource } from '../router';
import * as getMany from './getMany.operation';

export const tariff = resource(
	{ getMany },
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['tariff'] } },
		options: [
			{
				name: 'Get Many',
				value: 'getMany',
				description: 'List the tariffs with their partner and public prices and discounts',
				action: 'Get many tariffs',
			},
		],
		default: 'getMany',
	},
);
