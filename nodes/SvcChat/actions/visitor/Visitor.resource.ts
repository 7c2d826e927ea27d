// Visitor resource: pair a logged-in visitor's auth token with their fields, or remove the pairing (spec 4.1).
import { resource } from '../router';
import * as pairToken from './pairToken.operation';
import * as removeToken from './removeToken.operation';

export const visitor = resource(
	{ pairToken, removeToken },
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['visitor'] } },
		options: [
			{
				name: 'Pair Token',
				value: 'pairToken',
				description:
					'Link an auth token to a logged-in visitor of your website, so the chat widget knows who they are',
				action: 'Pair visitor token',
			},
			{
				name: 'Remove Token',
				value: 'removeToken',
				description: 'Remove the pairing of an auth token, e.g. when the visitor logs out',
				action: 'Remove visitor token',
			},
		],
		default: 'pairToken',
	},
);
