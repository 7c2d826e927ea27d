// Every label a parameter error quotes is the field's displayName in the node's description, for each reader at its call site.
import {
	NodeOperationError,
	type INode,
	type INodeParameters,
	type INodeProperties,
	type INodePropertyCollection,
} from 'n8n-workflow';

import { SvcChat } from '../../../nodes/SvcChat/SvcChat.node';
import { SvcChatTrigger } from '../../../nodes/SvcChat/SvcChatTrigger.node';
import { ParameterReader } from '../../../nodes/SvcChat/parameters';
import { runNodeError } from '../actions/runNode';
import { triggerHarness } from '../trigger/fixtures';

/**
 * The label the editor shows for `name` (dotted for collections) in this resource and operation, found here by
 * walking the node's description, independently of the readers: a fixedCollection's rows go under its own label.
 */
function editorLabel(
	properties: INodeProperties[],
	name: string,
	show: Record<string, string> = {},
): string {
	const [head, ...path] = name.split('.');
	const shown = properties.filter(
		(property) =>
			property.name === head &&
			Object.entries(show).every(([key, value]) =>
				(property.displayOptions?.show?.[key] ?? [value]).includes(value),
			),
	);
	expect(shown).toHaveLength(1);
	let label = shown[0].displayName;
	let options = shown[0].options as Array<INodeProperties | INodePropertyCollection> | undefined;
	for (const key of path) {
		const child = options?.find((option) => option.name === key);
		if (!child) throw new Error(`${name} is not in the description`);
		if ('values' in child) options = child.values;
		else {
			label = child.displayName;
			options = child.options as typeof options;
		}
	}
	return label;
}

const actionProperties = new SvcChat().description.properties;
const sender = { operatorId: 7, channelId: 'wa-main' };
const template = { ...sender, templateId: 'welcome_v2', phoneNumber: '+15550000001' };

/**
 * [resource:operation, parameter read, parameters that make it bad]. Collections and row lists that are not objects
 * cannot pass the strict harness (it normalises them as n8n does); readers.test.ts covers those readers directly.
 */
const actionCases: Array<[string, string, INodeParameters]> = [
	['chat:get', 'chatId', { chatId: ' ' }],
	['chat:get', 'chatId', { chatId: '1'.repeat(1001) }],
	['chat:get', 'output', { chatId: '1', output: 'Raw' }],
	['chat:get', 'fields', { chatId: '1', output: 'selectedFields', fields: ['nope'] }],
	['chat:getMany', 'sinceCursor', { since: 'cursor', sinceCursor: '12.5' }],
	['chat:getMany', 'sinceDate', { sinceDate: 'not a date' }],
	['chat:getMany', 'limit', { sinceDate: '2024-05-01T00:00:00Z', limit: 2.5 }],
	['chat:getMany', 'visitor', { visitor: ['a@x.io'] }],
	['operator:getMany', 'filters.email', { filters: { email: ['a@x.io'] } }],
	['operator:getMany', 'filters.role', { filters: { role: 5 } }],
	['operator:getMany', 'filters.status', { filters: { status: { a: 1 } } }],
	['operator:setStatus', 'email', { email: '' }],
	['operator:setStatus', 'status', { email: 'a@b.c', status: ' ' }],
	[
		'operator:setStatus',
		'options.initialStatuses',
		{ email: 'a@b.c', options: { initialStatuses: 'x' } },
	],
	['statistics:getUsage', 'date', { date: 'yesterday' }],
	[
		'statistics:getOperatorStats',
		'dateFrom',
		{ dateMode: 'range', dateFrom: '', dateTo: '2024-05-01' },
	],
	[
		'statistics:getOperatorStats',
		'dateTo',
		{ dateMode: 'range', dateFrom: '2024-05-01', dateTo: 'x' },
	],
	['visitor:pairToken', 'visitorId', { visitorId: '' }],
	['visitor:pairToken', 'fieldsJson', { visitorId: 'v', fieldsInputMode: 'json', fieldsJson: '[' }],
	[
		'visitor:pairToken',
		'customFields.field',
		{ visitorId: 'v', customFields: { field: [{ name: {} }] } },
	],
	['visitor:pairToken', 'authToken', { visitorId: 'v', authToken: { token: 1 } }],
	['visitor:removeToken', 'authToken', { authToken: '  ' }],
	['broadcast:sendOverChatHistory', 'operatorId', { ...sender, operatorId: '1e3' }],
	['broadcast:sendOverChatHistory', 'channelId', { ...sender, channelId: '' }],
	['broadcast:sendOverChatHistory', 'payload', { ...sender, payload: '[1]' }],
	['broadcast:sendTemplate', 'templateId', { ...template, templateId: '' }],
	['broadcast:sendTemplate', 'phoneNumber', { ...template, phoneNumber: '' }],
	['broadcast:sendTemplate', 'languageCode', { ...template, languageCode: '' }],
	[
		'broadcast:sendTemplate',
		'headerParameters.parameter',
		{ ...template, headerParameters: { parameter: [{ type: 'gif', text: 'x' }] } },
	],
	[
		'broadcast:sendTemplate',
		'bodyParameters.parameter',
		{ ...template, bodyParameters: { parameter: [{ text: '' }] } },
	],
	[
		'broadcast:sendTemplate',
		'footerParameters.parameter',
		{ ...template, footerParameters: { parameter: [7] } },
	],
	[
		'broadcast:sendTemplate',
		'options.recipientsPerRequest',
		{ ...template, options: { recipientsPerRequest: 2.5 } },
	],
];

describe.each(actionCases)('%s reading %s', (operationKey, name, bad) => {
	test('names the field by its displayName', async () => {
		const [resource, operation] = operationKey.split(':');
		const label = editorLabel(actionProperties, name, { resource, operation });
		const error = await runNodeError({ resource, operation, ...bad });
		expect(error).toBeInstanceOf(NodeOperationError);
		// Quoted alone, or as the start of a row's name ('Body Parameters, parameter 2').
		expect(error.message).toMatch(new RegExp(`'${label.replace(/[()]/g, '\\$&')}[',]`));
		expect(error.description).toEqual(expect.any(String));
	});
});

const triggerProperties = new SvcChatTrigger().description.properties;
const fromBeginning = { startFrom: 'beginning' };

const triggerCases: Array<[string, INodeParameters]> = [
	['startFrom', { startFrom: 'Now' }],
	['startDate', { startFrom: 'date', startDate: 'not a date' }],
	['emit', { ...fromBeginning, emit: 'constructor' }],
	['output', { ...fromBeginning, output: 42 }],
	['chatOutput', { ...fromBeginning, emit: 'missedChat', chatOutput: 'messages' }],
	['ratings', { ...fromBeginning, emit: 'newRating', ratings: { range: { from: 5, to: 1 } } }],
	['options.maxChatsPerPoll', { ...fromBeginning, options: { maxChatsPerPoll: 'many' } }],
];

describe.each(triggerCases)('the trigger reading %s', (name, bad) => {
	test('names the field by its displayName', async () => {
		// Start From is one field per chat event: the one the harness's event (Every Change unless given) shows.
		const label = editorLabel(triggerProperties, name, { emit: String(bad.emit ?? 'everyChange') });
		const staticData = {};
		await expect(triggerHarness(bad, staticData).poll()).rejects.toThrow(`'${label}'`);
		expect(staticData).toEqual({});
	});
});

test('a name the description lacks is a programming error, not a made-up label', () => {
	const read = new ParameterReader({ getNode: () => ({}) as INode }, triggerProperties, () => {});
	expect(() => read.label('options.maxChats')).toThrow(/not in the description/);
	expect(() => read.label('startAt')).toThrow(/not in the description/);
	expect(read.label('options.maxChatsPerPoll')).toBe('Max Chats per Poll');
});
