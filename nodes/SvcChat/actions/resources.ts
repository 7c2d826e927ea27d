// Every resource of the Svc Chat node with its operation selector: the node's description and the router read this list.
import { updateDisplayOptions, type INodeProperties } from 'n8n-workflow';

import type { SvcOperation } from './router';
import * as sendOverChatHistory from './broadcast/sendOverChatHistory.operation';
import * as sendTemplate from './broadcast/sendTemplate.operation';
import * as chatGet from './chat/get.operation';
import * as chatGetMany from './chat/getMany.operation';
import * as departmentGetMany from './department/getMany.operation';
import * as operatorGetMany from './operator/getMany.operation';
import * as setStatus from './operator/setStatus.operation';
import * as getOperatorStats from './statistics/getOperatorStats.operation';
import * as getUsage from './statistics/getUsage.operation';
import * as tariffGetMany from './tariff/getMany.operation';
import * as pairToken from './visitor/pairToken.operation';
import * as removeToken from './visitor/removeToken.operation';

/**
 * A resource from its operations, each shown only for this resource and operation, and its selector, shown only for
 * this resource and otherwise written out in full so n8n's lint checks the options.
 */
const resource = (
	name: string,
	operations: Record<string, SvcOperation>,
	operationSelector: INodeProperties,
) => ({
	description: [
		{ ...operationSelector, displayOptions: { show: { resource: [name] } } },
		...Object.entries(operations).flatMap(([operation, { properties }]) =>
			updateDisplayOptions({ show: { resource: [name], operation: [operation] } }, properties),
		),
	],
	operations,
});

export const resources: Record<string, ReturnType<typeof resource>> = {
	// Broadcast: template broadcasts through a messaging-app channel, and broadcasts over chat history (spec 4.3).
	broadcast: resource(
		'broadcast',
		{ sendOverChatHistory, sendTemplate },
		{
			displayName: 'Operation',
			name: 'operation',
			type: 'options',
			noDataExpression: true,
			options: [
				{
					name: 'Send Over Chat History',
					value: 'sendOverChatHistory',
					description: 'Send a broadcast to visitors of past chats, with content you give as JSON',
					action: 'Send broadcast over chat history',
				},
				{
					name: 'Send Template',
					value: 'sendTemplate',
					description:
						'Send a registered message template (e.g. WhatsApp) to phone numbers; each input item is one recipient',
					action: 'Send template broadcast',
				},
			],
			default: 'sendTemplate',
		},
	),
	// Chat: one chat by ID, or the chats changed since a date or cursor (spec 4.6, 4.7).
	chat: resource(
		'chat',
		{ get: chatGet, getMany: chatGetMany },
		{
			displayName: 'Operation',
			name: 'operation',
			type: 'options',
			noDataExpression: true,
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
	),
	department: resource(
		'department',
		{ getMany: departmentGetMany },
		{
			displayName: 'Operation',
			name: 'operation',
			type: 'options',
			noDataExpression: true,
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
	),
	operator: resource(
		'operator',
		{ getMany: operatorGetMany, setStatus },
		{
			displayName: 'Operation',
			name: 'operation',
			type: 'options',
			noDataExpression: true,
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
	),
	// Statistics: daily usage figures and per-operator figures (spec 4.9).
	statistics: resource(
		'statistics',
		{ getOperatorStats, getUsage },
		{
			displayName: 'Operation',
			name: 'operation',
			type: 'options',
			noDataExpression: true,
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
	),
	// Tariff: the tariffs offered to partners (spec 4.8).
	tariff: resource(
		'tariff',
		{ getMany: tariffGetMany },
		{
			displayName: 'Operation',
			name: 'operation',
			type: 'options',
			noDataExpression: true,
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
	),
	// Visitor: pair a logged-in visitor's auth token with their fields, or remove the pairing (spec 4.1).
	visitor: resource(
		'visitor',
		{ pairToken, removeToken },
		{
			displayName: 'Operation',
			name: 'operation',
			type: 'options',
			noDataExpression: true,
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
	),
};
