// Every resource of the Svc Chat node: its operations and its operation selector, for the description and the router.
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

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

// Each table is a top-level const, not written inline below: knip sees a namespace import used only that way.
const broadcast = { sendOverChatHistory, sendTemplate };
const chat = { get: chatGet, getMany: chatGetMany };
const department = { getMany: departmentGetMany };
const operator = { getMany: operatorGetMany, setStatus };
const statistics = { getOperatorStats, getUsage };
const tariff = { getMany: tariffGetMany };
const visitor = { pairToken, removeToken };

export const operations: Record<string, Record<string, SvcOperation>> = {
	broadcast,
	chat,
	department,
	operator,
	statistics,
	tariff,
	visitor,
};

/** The Resource dropdown, first on the node's panel; its names begin the canvas subtitle. */
export const resourceSelector: INodeProperties = {
	displayName: 'Resource',
	name: 'resource',
	type: 'options',
	noDataExpression: true,
	options: [
		{ name: 'Broadcast', value: 'broadcast' },
		{ name: 'Chat', value: 'chat' },
		{ name: 'Department', value: 'department' },
		{ name: 'Operator', value: 'operator' },
		{ name: 'Statistic', value: 'statistics' },
		{ name: 'Tariff', value: 'tariff' },
		{ name: 'Visitor', value: 'visitor' },
	],
	default: 'chat',
};

/**
 * Each resource's operation selector, written out in full so n8n's lint checks the options. Each option's description
 * says what the operation does and returns: the node shows it, and Svc Chat Tool gives it to the model.
 */
export const selectors: Record<string, INodeProperties> = {
	broadcast: {
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'Send Over Chat History',
				value: 'sendOverChatHistory',
				description:
					'Send a broadcast to the visitors of past chats, with content given as JSON. Returns one item: result ok, the kind, operator and channel.',
				action: 'Send broadcast over chat history',
			},
			{
				name: 'Send Template',
				value: 'sendTemplate',
				description:
					'Send a registered message template (e.g. WhatsApp) to phone numbers; each input item is one recipient. Returns one item per recipient sent.',
				action: 'Send template broadcast',
			},
		],
		default: 'sendTemplate',
	},
	chat: {
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'Get',
				value: 'get',
				description:
					'Retrieve one chat by its ID (a number such as 1042, or a text ID) with its messages, ratings and visitor. Returns the chat as Output sets it: raw, simplified, one item per message, or a transcript (the conversation as text, one line per message).',
				action: 'Get chat',
			},
			{
				name: 'Get Many',
				value: 'getMany',
				description:
					'Retrieve the chats that are new or changed since a date, or since the position an earlier run stopped at, oldest first; or the most recently changed first; of every visitor or one. Returns one item per chat (or per message), shaped by Output, up to Limit.',
				action: 'Get many chats',
			},
		],
		default: 'getMany',
	},
	department: {
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'Get Many',
				value: 'getMany',
				description:
					'List the departments of the account. Returns one item per department: ID, name and sort order.',
				action: 'Get many departments',
			},
		],
		default: 'getMany',
	},
	operator: {
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'Get Many',
				value: 'getMany',
				description:
					'List the operators of the account, optionally filtered by status, role or email. Returns one item per operator: ID, email, full name, status (online, offline, invisible, dinner, pre-dinner) and roles.',
				action: 'Get many operators',
			},
			{
				name: 'Set Status',
				value: 'setStatus',
				description:
					'Set the status of the operator with an email: online, offline, invisible, or a break (dinner, pre-dinner). Returns one item: result ok, the email and the status; an email no operator has is an error that says so.',
				action: 'Set operator status',
			},
		],
		default: 'getMany',
	},
	statistics: {
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'Get Operator Statistics',
				value: 'getOperatorStats',
				description:
					'Retrieve statistics per operator and day: online_time, chating_time and avg_chating_time in seconds, handled chats, busy notices. Returns one item per operator and day.',
				action: 'Get operator statistics',
			},
			{
				name: 'Get Usage',
				value: 'getUsage',
				description:
					'Retrieve usage statistics per day: contacts, missed contacts, chats, offline messages and avg_waiting_time in seconds. Returns one item per day.',
				action: 'Get usage statistics',
			},
		],
		default: 'getUsage',
	},
	tariff: {
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'Get Many',
				value: 'getMany',
				description:
					'List the tariffs with their partner and public prices and discounts. Returns one item per tariff.',
				action: 'Get many tariffs',
			},
		],
		default: 'getMany',
	},
	visitor: {
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'Pair Token',
				value: 'pairToken',
				description:
					'Link an auth token to a logged-in visitor of your website, so the chat widget knows who they are. Returns the token, the visitor fields sent and a snippet for the website.',
				action: 'Pair visitor token',
			},
			{
				name: 'Remove Token',
				value: 'removeToken',
				description:
					'Remove the pairing of an auth token, e.g. when the visitor logs out. Returns the token and deleted: true.',
				action: 'Remove visitor token',
			},
		],
		default: 'pairToken',
	},
};

/** The canvas subtitle: the resource and operation as their dropdowns name them, in sentence case ("Operator: Set status"). */
const subtitles = Object.fromEntries(
	(resourceSelector.options as INodePropertyOptions[]).flatMap(({ name: resourceName, value }) =>
		(selectors[value as string].options as INodePropertyOptions[]).map(
			({ name, value: operation }) => [
				`${value}:${operation}`,
				`${resourceName}: ${name.charAt(0)}${name.slice(1).toLowerCase()}`,
			],
		),
	),
);
export const operationSubtitle = `={{ ${JSON.stringify(subtitles)}[$parameter["resource"] + ":" + $parameter["operation"]] }}`;
