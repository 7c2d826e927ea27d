// The trigger's description keeps the shared parameter contract (params.md) and n8n's polling-trigger shape.
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { SvcChatTrigger } from '../../../nodes/SvcChat/SvcChatTrigger.node';

const { description } = new SvcChatTrigger();
const property = (name: string) =>
	description.properties.find((p) => p.name === name) as INodeProperties;
const values = (name: string) =>
	(property(name).options as INodePropertyOptions[]).map((option) => option.value);

test('is a polling trigger without inputs, on the svcApi credentials', () => {
	expect(description).toMatchObject({
		name: 'svcChatTrigger',
		displayName: 'Svc Chat Trigger',
		polling: true,
		inputs: [],
		group: ['trigger'],
	});
	expect(description.credentials).toEqual([
		expect.objectContaining({ name: 'svcApi', required: true }),
	]);
});

test('declares exactly the parameters of the shared contract, with their values and defaults', () => {
	// The notice is display-only: n8n stores no value for it.
	// 'Trigger On' (emit) first, as n8n's triggers put their event first (issue 42).
	expect(description.properties.map((p) => p.name)).toEqual([
		'emit',
		'testEventNotice',
		'ratingTestNotice',
		'missedChatTestNotice',
		'waitingTestNotice',
		'waitLongerThan',
		'startFrom',
		'startDate',
		'ratings',
		'output',
		'chatOutput',
		'options',
		'operatorEventNotice',
		'availabilityEventNotice',
		'operators',
		'toStatuses',
		'availableStatuses',
		'roles',
	]);
	expect(values('startFrom').sort()).toEqual(['beginning', 'date', 'now']);
	expect(property('startFrom').default).toBe('now');
	expect(property('startDate').displayOptions).toEqual({ show: { startFrom: ['date'] } });
	expect(values('emit').sort()).toEqual([
		'everyChange',
		'finishedChats',
		'missedChat',
		'newChats',
		'newRating',
		'operatorAvailabilityChanged',
		'operatorStatusChanged',
		'visitorWaiting',
	]);
	expect(property('emit').default).toBe('everyChange');
	// Visitor Waiting: minutes, fractions allowed, 3 by default; its chat shaped as the other events' (Chat Output).
	expect(property('waitLongerThan')).toMatchObject({ type: 'number', default: 3, required: true });
	expect(property('waitLongerThan').typeOptions).toEqual({ minValue: 0, numberPrecision: 2 });
	for (const name of ['waitLongerThan', 'waitingTestNotice'])
		expect(property(name).displayOptions).toEqual({ show: { emit: ['visitorWaiting'] } });
	expect(property('chatOutput').displayOptions?.show?.emit).toContain('visitorWaiting');
	expect(property('startFrom').displayOptions?.show?.emit).toContain('visitorWaiting');
	expect(values('output').sort()).toEqual(['messages', 'raw', 'simplified', 'transcript']);
	// New Rating and Missed Chat carry one chat per item: every shape but One Item per Message.
	expect(values('chatOutput')).toEqual(values('output').filter((value) => value !== 'messages'));
	expect(property('chatOutput').default).toBe('simplified');
	expect(property('ratings').default).toEqual({});
	const range = (property('ratings').options as Array<{ values: INodeProperties[] }>)[0].values;
	expect(range.map(({ name, default: value }) => [name, value])).toEqual([
		['from', 1],
		['to', 5],
	]);
	const options = property('options').options as INodeProperties[];
	expect(options.map((option) => [option.name, option.default])).toEqual([
		['includeCursor', false],
		['maxChatsPerPoll', 1000],
	]);
	expect(property('output').default).toBe('simplified');
});

test('the operator filters: Operators from a list, by email or by ID; seen statuses; roles; Online is available', () => {
	const locator = (property('operators').options as Array<{ values: INodeProperties[] }>)[0]
		.values[0];
	expect(locator.type).toBe('resourceLocator');
	expect(locator.modes?.map((mode) => mode.name)).toEqual(['list', 'email', 'id']);
	expect(locator.modes?.[0].typeOptions?.searchListMethod).toBe('searchOperators');
	expect(typeof new SvcChatTrigger().methods.listSearch.searchOperators).toBe('function');
	const seen = ['dinner', 'invisible', 'offline', 'online', 'pre-dinner'];
	expect(values('toStatuses')).toEqual(seen);
	expect(values('availableStatuses')).toEqual(seen);
	expect(property('availableStatuses').default).toEqual(['online']);
	expect(values('roles')).toEqual(['admin', 'operator', 'supervisor']);
	expect(property('roles').default).toEqual([]);
	expect(property('toStatuses').default).toEqual([]);
});

test('the "Now" option says how clock differences are handled', () => {
	const now = (property('startFrom').options as INodePropertyOptions[]).find(
		(option) => option.value === 'now',
	);
	expect(now?.description).toMatch(/clock/);
});
