// The trigger's description keeps the shared parameter contract (params.md) and n8n's polling-trigger shape.
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { SvcChatTrigger } from '../../../nodes/SvcChat/SvcChatTrigger.node';
import { SVC_CHAT_DESCRIPTION } from '../../../nodes/SvcChat/descriptions/nodeDescriptions';
import { TRIGGER_EVENTS } from '../../../nodes/SvcChat/trigger/description';

const { description } = new SvcChatTrigger();
const property = (name: string) =>
	description.properties.find((p) => p.name === name) as INodeProperties;
/** The chat events, each with the words its Start From must use (the operator events have none). */
const CHAT_EVENT_WORDS = [
	['everyChange', 'chats changed'],
	['finishedChats', 'closed chats changed'],
	['missedChat', 'chats closed'],
	['newChats', 'chats created'],
	['newRating', 'ratings given'],
	['visitorWaiting', 'waits begun'],
];
const startFromFields = () => description.properties.filter((p) => p.name === 'startFrom');
const words = (text: string) =>
	text
		.replace(/<[^>]+>/g, '')
		.split(/\s+/)
		.filter(Boolean).length;
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
		...TRIGGER_EVENTS.map(({ value }) => `${value}Notice`),
		'waitLongerThan',
		// One Start From per chat event, each in its own words (issue 65).
		...CHAT_EVENT_WORDS.map(() => 'startFrom'),
		'startDate',
		'ratings',
		'output',
		'chatOutput',
		'options',
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
	// Issue 59: the unit in the label; issue 65: no numberPrecision, with which n8n's number input shows 3 as "3.00".
	expect(property('waitLongerThan').displayName).toBe('Wait Longer Than (Minutes)');
	expect(property('waitLongerThan').typeOptions).toEqual({ minValue: 0 });
	for (const name of ['waitLongerThan', 'visitorWaitingNotice'])
		expect(property(name).displayOptions).toEqual({ show: { emit: ['visitorWaiting'] } });
	expect(property('chatOutput').displayOptions?.show?.emit).toContain('visitorWaiting');
	expect(startFromFields().flatMap((field) => field.displayOptions?.show?.emit)).toEqual(
		CHAT_EVENT_WORDS.map(([event]) => event),
	);
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
	for (const field of startFromFields()) {
		const now = (field.options as INodePropertyOptions[]).find((option) => option.value === 'now');
		expect(now?.description).toMatch(/clock/);
	}
});

// Issue 65: "every chat" and "chats that change" were said of ratings, missed chats and waits.
test.each(CHAT_EVENT_WORDS)(
	"%s: Start From's tooltip and options speak of its own %s",
	(event, since) => {
		const [field, ...others] = startFromFields().filter((one) =>
			one.displayOptions?.show?.emit?.includes(event),
		);
		expect(others).toEqual([]);
		expect(field.displayOptions).toEqual({ show: { emit: [event] } });
		expect(field.default).toBe('now');
		expect(field.description).toContain(`${since} before it are left out`);
		const options = field.options as INodePropertyOptions[];
		expect(options.map((option) => [option.value, option.name])).toEqual([
			['beginning', 'Beginning of History'],
			['now', 'Now'],
			['date', 'Specific Date'],
		]);
		for (const option of options) expect(option.description).toMatch(new RegExp(`\\b${since}\\b`));
		// The event's own line says the same of what Start From leaves out, where it says it.
		const { emits } = TRIGGER_EVENTS.find(({ value }) => value === event)!;
		if (emits.includes("before 'Start From'"))
			expect(emits).toContain(`${since} before 'Start From'`);
		for (const [other, otherWords] of CHAT_EVENT_WORDS)
			if (other !== event && !since.includes(otherWords))
				expect(JSON.stringify(field)).not.toContain(`${otherWords} `);
	},
);

test("every notice is plain: the operator events' at most 50 words, none with the words the first trial stumbled on", () => {
	for (const notice of description.properties.filter((p) => p.type === 'notice')) {
		if (/^operator/.test(notice.name)) expect(words(notice.displayName)).toBeLessThanOrEqual(50);
		expect(notice.displayName).not.toMatch(
			/durable poll cursors|only in memory|as the previous one|to map fields from\)/,
		);
	}
});

test('Output and Chat Output say what each shapes: the item, or the chat in the item', () => {
	expect(property('output').description).toMatch(/each emitted item/);
	expect(property('chatOutput').description).toMatch(
		/rating, a missed chat or a wait; .* its chat field/,
	);
});

// Issue 59: one definition per event, from which every text about it is derived, so none can drift from the others.
describe('each event of Trigger On, from its one definition in TRIGGER_EVENTS', () => {
	const subtitleOf = (emit: string): unknown =>
		new Function('$parameter', `return (${String(description.subtitle).slice(3, -2)});`)({ emit });
	const noticesOf = (emit: string) =>
		description.properties.filter(
			(p) => p.type === 'notice' && p.displayOptions?.show?.emit?.includes(emit),
		);

	test.each(TRIGGER_EVENTS.map((event) => [event.value, event]))('%s', (value, event) => {
		const option = (property('emit').options as INodePropertyOptions[]).find(
			(one) => one.value === value,
		);
		// The option: its name, and what it emits as its description (the README's line for it).
		expect(option).toEqual({
			name: event.name,
			value,
			action: `On ${event.name.toLowerCase()}`,
			description: event.emits,
		});
		// Its own notice, shown for it alone: what it emits, then what Fetch Test Event shows.
		const [notice, ...others] = noticesOf(value);
		expect(others).toEqual([]);
		expect(notice.displayOptions).toEqual({ show: { emit: [value] } });
		expect(
			notice.displayName.startsWith(`${event.emits}. 'Fetch Test Event' shows ${event.sample}`),
		).toBe(true);
		for (const other of TRIGGER_EVENTS.filter((one) => one.value !== value)) {
			expect(notice.displayName).not.toContain(other.emits);
			expect(notice.displayName).not.toContain(other.sample);
		}
		// The canvas subtitle and the node creator's description name it.
		expect(subtitleOf(value)).toBe(
			event.name.replace(/ Only$/, '').replace(/(?<=.)[A-Z]/g, (letter) => letter.toLowerCase()),
		);
		expect(description.description).toContain(event.name);
		// The one line of the README's table of events: one sentence, no line break.
		expect(event.emits).toMatch(/^[A-Z][^\n]+[^.]$/);
	});

	test("the table is Trigger On's list, the tooltip claims nothing of one event, and the node creator names all of them", () => {
		expect(TRIGGER_EVENTS.map(({ value }) => value)).toEqual(values('emit'));
		expect(property('emit').description).not.toMatch(
			new RegExp(`first|${TRIGGER_EVENTS.map(({ name }) => name).join('|')}`, 'i'),
		);
		expect(description.description).toBe(
			`${SVC_CHAT_DESCRIPTION}, or start a workflow on Every Change, Finished Chats Only, Missed Chat, New Chats Only, New Rating, Operator Availability Changed, Operator Status Changed or Visitor Waiting`,
		);
	});
});
