// The node description: the parameter names of the shared contract, actions on every operation, and routing.
import type { INodeParameters, INodeProperties } from 'n8n-workflow';

import { SvcChat } from '../../../nodes/SvcChat/SvcChat.node';
import { operations } from '../../../nodes/SvcChat/actions/resources';
import { strictParameters } from '../../harness/contexts';

const { description } = new SvcChat();

/** The parameter names of each resource/operation (params.md), besides resource and operation. */
const CONTRACT: Record<string, string[]> = {
	'operator/getMany': ['returnAll', 'limit', 'filters'],
	'operator/setStatus': ['email', 'status', 'options'],
	'visitor/pairToken': ['authToken', 'visitorId', 'fieldsInputMode', 'knownFields', 'customFields'],
	'visitor/removeToken': ['authToken'],
	'broadcast/sendTemplate': [
		'operatorId',
		'channelId',
		'templateId',
		'phoneNumber',
		'languageCode',
		'headerParameters',
		'bodyParameters',
		'footerParameters',
		'options',
	],
	'broadcast/sendOverChatHistory': ['operatorId', 'channelId', 'payload'],
	'chat/get': ['chatId', 'output'],
	'chat/getMany': [
		'order',
		'visitor',
		'since',
		'sinceDate',
		'returnAll',
		'limit',
		'output',
		'options',
	],
	'department/getMany': ['returnAll', 'limit'],
	'tariff/getMany': ['returnAll', 'limit'],
	'statistics/getUsage': ['dateMode', 'date'],
	'statistics/getOperatorStats': ['dateMode', 'date'],
};

const resourceProperty = description.properties.find(
	(property) => property.name === 'resource',
) as INodeProperties;
const operationSelectors = description.properties.filter(
	(property) => property.name === 'operation',
);

/** The parameters n8n stores for these values (as the strict harness resolves them), without display-only notices. */
const notices = new Set(
	description.properties
		.filter((property) => property.type === 'notice')
		.map((property) => property.name),
);
const visibleParameters = (values: INodeParameters) =>
	Object.keys(strictParameters(description, values)).filter((name) => !notices.has(name));

test('the node is usable as a tool', () => {
	expect(description.usableAsTool).toBe(true);
});

test('resources are listed alphabetically and each has its operation selector', () => {
	const options = (resourceProperty.options ?? []) as Array<{ name: string; value: string }>;
	expect(options.map((option) => option.name)).toEqual([
		'Broadcast',
		'Chat',
		'Department',
		'Operator',
		'Statistic',
		'Tariff',
		'Visitor',
	]);
	for (const { value } of options) {
		expect(
			operationSelectors.filter((selector) =>
				selector.displayOptions?.show?.resource?.includes(value),
			),
		).toHaveLength(1);
	}
});

test('every operation has an action label and a description, and the router knows it', () => {
	const pairs: string[] = [];
	for (const selector of operationSelectors) {
		const resource = selector.displayOptions!.show!.resource![0] as string;
		for (const option of selector.options as Array<{
			name: string;
			value: string;
			action?: string;
			description?: string;
		}>) {
			expect(option.action).toBeTruthy();
			expect(option.description).toBeTruthy();
			expect(operations[resource][option.value]).toBeDefined();
			pairs.push(`${resource}/${option.value}`);
		}
	}
	expect(pairs.sort()).toEqual(Object.keys(CONTRACT).sort());
});

test.each(Object.entries(CONTRACT))('%s shows exactly the contract parameters', (pair, names) => {
	const [resource, operation] = pair.split('/');
	expect(visibleParameters({ resource, operation }).sort()).toEqual(
		['resource', 'operation', ...names].sort(),
	);
});

test('the modes of Pair Token, Chat Get Many and the statistics show their other parameters', () => {
	expect(
		visibleParameters({ resource: 'visitor', operation: 'pairToken', fieldsInputMode: 'json' }),
	).toContain('fieldsJson');
	expect(visibleParameters({ resource: 'chat', operation: 'getMany', since: 'cursor' })).toContain(
		'sinceCursor',
	);
	expect(
		visibleParameters({ resource: 'statistics', operation: 'getUsage', dateMode: 'range' }),
	).toEqual(expect.arrayContaining(['dateFrom', 'dateTo']));
});
