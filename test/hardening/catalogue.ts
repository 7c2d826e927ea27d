// Every operation of Svc Chat and the trigger's parameters: per field its valid values (for the sandbox) and its hostile ones.
import fc from 'fast-check';
import type { IDataObject } from 'n8n-workflow';

import { operations } from '../../nodes/SvcChat/actions/resources';

import {
	anyHostileValue,
	emptyStrings,
	hugeStrings,
	invalidDates,
	nestedValues,
	unicodeStrings,
	weirdCursors,
	weirdJsonTexts,
	weirdNumbers,
} from './hostileValues';

/** Every operation of the Svc Chat node, "resource/operation", read from the node itself: a new one must be added here. */
export const ACTION_OPERATION_NAMES = Object.entries(operations).flatMap(([resource, ofResource]) =>
	Object.keys(ofResource).map((operation) => `${resource}/${operation}`),
);

/** The catalogue entry of an operation; fails if the node has an operation the catalogue lacks. */
export function operationNamed<T extends { name: string }>(catalogue: T[], name: string): T {
	const found = catalogue.find((entry) => entry.name === name);
	if (!found) throw new Error(`The hardening catalogue has no entry for "${name}"`);
	return found;
}

/** One parameter (or one list of a fixedCollection) the fuzzer varies. */
export interface FuzzField {
	/** Path in the node's parameters, dotted: "limit", "filters.email", "headerParameters.parameter". */
	path: string;
	/** Words an error about this field must contain (any of them, case-insensitive): its label, as the node names it. */
	names: string[];
	valid: fc.Arbitrary<unknown>;
	/** Values wrong for this kind of field, added to the values wrong for any field. */
	hostile?: fc.Arbitrary<unknown>;
	/** Other parameters are shown or hidden by this one's value (displayOptions). */
	structural?: boolean;
}

export interface FuzzOperation {
	/** "resource/operation", or "trigger". */
	name: string;
	/** Parameters that are fixed for the operation (resource and operation). */
	fixed: Record<string, unknown>;
	fields: FuzzField[];
	/** Runs with several input items send them together (broadcasts). */
	maxItems: number;
}

/** What the sandbox the fuzzer runs against holds; valid values are drawn from it. */
export interface SandboxFacts {
	chatIds: Array<number | string>;
	/** Operators whose status may change (not offline: leaving offline is refused by design). */
	changeableEmails: string[];
	adminOperatorId: number;
	channelId: string;
	templates: string[];
	phones: string[];
	/** Epoch ms of the sandbox's start: seeded chats lie in the 30 days before. */
	nowMs: number;
}

const DAY_MS = 86_400_000;
const STATUSES = ['online', 'invisible', 'dinner', 'pre-dinner'];
const HEADER_TYPES = ['text', 'image', 'video', 'document', 'audio'];
const OUTPUTS = ['raw', 'simplified', 'messages', 'transcript'];

const word = fc
	.stringMatching(/^[A-Za-z][A-Za-z0-9 _.-]{0,20}$/)
	.filter((text) => text.trim() !== '');
const someText = fc.oneof(
	word,
	fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }).filter((text) => text.trim() !== ''),
);
const hostileText = fc.oneof(
	emptyStrings,
	hugeStrings,
	nestedValues,
	weirdNumbers,
	fc.constantFrom(null, true),
);

/** Values for a number of list rows whose members are each valid or hostile. */
function rows<T extends Record<string, unknown>>(
	row: fc.Arbitrary<T>,
	hostileRow: fc.Arbitrary<unknown>,
): fc.Arbitrary<unknown> {
	return fc.oneof(
		fc.array(hostileRow, { minLength: 1, maxLength: 3 }),
		fc.array(fc.oneof(row, hostileRow), { minLength: 1, maxLength: 3 }),
		fc.constantFrom(null, 'text', 42, {}, { 0: { text: 'a' } }),
	);
}

const returnAllAndLimit: FuzzField[] = [
	{ path: 'returnAll', names: ['Return All'], valid: fc.boolean(), structural: true },
	{
		path: 'limit',
		names: ['Limit'],
		valid: fc.integer({ min: 1, max: 60 }),
		hostile: weirdNumbers,
	},
];

const isoWithin = (facts: SandboxFacts, daysBack: number) =>
	fc
		.integer({ min: 0, max: daysBack * DAY_MS })
		.map((ms) => new Date(facts.nowMs - ms).toISOString());

/** A day within the last week, written the way n8n's date picker writes it. */
const pickerDay = (facts: SandboxFacts, offset: number) =>
	new Date(facts.nowMs - offset * DAY_MS).toISOString().slice(0, 10) + 'T00:00:00';

function actionOperations(facts: SandboxFacts): FuzzOperation[] {
	const senderFields: FuzzField[] = [
		{
			path: 'operatorId',
			names: ['Operator'],
			valid: fc.constantFrom(facts.adminOperatorId, String(facts.adminOperatorId)),
			hostile: fc.oneof(weirdNumbers, fc.constantFrom('1.5', '1e3', ' ', '０１')),
		},
		{
			path: 'channelId',
			names: ['Channel ID'],
			valid: fc.constant(facts.channelId),
			hostile: hostileText,
		},
	];
	const dateFields: FuzzField[] = [
		// An unknown "Dates" value is read as a single day: the error then names the field it shows.
		{
			path: 'dateMode',
			names: ['Dates', "'Date'"],
			valid: fc.constantFrom('single', 'range'),
			structural: true,
		},
		{
			path: 'date',
			names: ["'Date'"],
			valid: fc.integer({ min: 0, max: 6 }).map((d) => pickerDay(facts, d)),
			hostile: invalidDates,
		},
		{
			path: 'dateFrom',
			names: ["'From'"],
			valid: fc.constant(pickerDay(facts, 6)),
			hostile: invalidDates,
		},
		{
			path: 'dateTo',
			names: ["'To'"],
			valid: fc.integer({ min: 0, max: 3 }).map((d) => pickerDay(facts, d)),
			hostile: invalidDates,
		},
	];
	const chatOutput: FuzzField = {
		path: 'output',
		names: ['Output'],
		valid: fc.constantFrom(...OUTPUTS),
	};

	return [
		{
			name: 'operator/getMany',
			fixed: { resource: 'operator', operation: 'getMany' },
			maxItems: 2,
			fields: [
				...returnAllAndLimit,
				{
					path: 'filters',
					// Each filter names itself: a value of another type, or none from an expression (issue 64).
					names: ['Filter', 'Email', 'Role', 'Status'],
					valid: fc.record(
						{
							status: fc.subarray(['online', 'offline', 'dinner', 'invisible', 'pre-dinner']),
							role: fc.subarray(['operator', 'admin', 'supervisor']),
							email: fc.constantFrom('', 'anna@svc.test', 'ANNA@svc.test', 'nobody@svc.test'),
						},
						{ requiredKeys: [] },
					),
					hostile: fc.record(
						{ status: anyHostileValue, role: anyHostileValue, email: anyHostileValue },
						{ requiredKeys: [] },
					),
				},
			],
		},
		{
			name: 'operator/setStatus',
			fixed: { resource: 'operator', operation: 'setStatus' },
			maxItems: 2,
			fields: [
				{
					path: 'email',
					names: ['Operator'],
					valid: fc.constantFrom(...facts.changeableEmails),
					hostile: hostileText,
				},
				{
					path: 'status',
					names: ['Status'],
					valid: fc.constantFrom(...STATUSES),
					hostile: fc.oneof(hostileText, unicodeStrings),
				},
				{
					path: 'options',
					names: ['Options', 'Force', 'Only if Current Status Is'],
					valid: fc.record(
						{ force: fc.boolean(), initialStatuses: fc.subarray(STATUSES) },
						{ requiredKeys: [] },
					),
					hostile: fc.record(
						{ force: anyHostileValue, initialStatuses: anyHostileValue },
						{ requiredKeys: [] },
					),
				},
			],
		},
		{
			name: 'visitor/pairToken',
			fixed: { resource: 'visitor', operation: 'pairToken' },
			maxItems: 2,
			fields: [
				{
					path: 'authToken',
					names: ['Auth Token'],
					valid: fc.oneof(fc.constant(''), fc.uuid()),
					hostile: fc.oneof(nestedValues, fc.constantFrom(null, true)),
				},
				{ path: 'visitorId', names: ['Visitor ID'], valid: someText, hostile: hostileText },
				{
					path: 'fieldsInputMode',
					names: ['Fields Input Mode', 'fieldsInputMode'],
					valid: fc.constantFrom('fields', 'json'),
					structural: true,
				},
				{
					path: 'knownFields',
					names: ['Visitor Field'],
					valid: fc.record(
						{ name: someText, email: word, phone: word, site: word },
						{ requiredKeys: [] },
					),
					hostile: fc.record(
						{ name: anyHostileValue, email: anyHostileValue, login: anyHostileValue },
						{ requiredKeys: ['name'] },
					),
				},
				{
					path: 'customFields.field',
					names: ['Visitor Field', 'Custom Field'],
					valid: fc.uniqueArray(fc.record({ name: word.map((w) => `c_${w}`), value: someText }), {
						selector: (f) => f.name.trim(),
						maxLength: 3,
					}),
					hostile: rows(
						fc.record({ name: word.map((w) => `c_${w}`), value: someText }),
						fc.oneof(
							fc.constant(null),
							fc.record({ name: anyHostileValue, value: anyHostileValue }),
						),
					),
				},
				{
					path: 'fieldsJson',
					names: ['Fields (JSON)', 'Visitor Field'],
					valid: fc
						.dictionary(
							word.map((w) => `j_${w}`),
							someText,
							{ maxKeys: 3 },
						)
						.map((fields) => JSON.stringify(fields)),
					hostile: weirdJsonTexts,
				},
			],
		},
		{
			name: 'visitor/removeToken',
			fixed: { resource: 'visitor', operation: 'removeToken' },
			maxItems: 2,
			fields: [
				{ path: 'authToken', names: ['Auth Token'], valid: fc.uuid(), hostile: hostileText },
			],
		},
		{
			name: 'broadcast/sendTemplate',
			fixed: { resource: 'broadcast', operation: 'sendTemplate' },
			maxItems: 4,
			fields: [
				...senderFields,
				{
					path: 'templateId',
					names: ['Template ID'],
					valid: fc.constantFrom(...facts.templates),
					hostile: hostileText,
				},
				{
					path: 'phoneNumber',
					names: ['Phone Number'],
					valid: fc.constantFrom(...facts.phones),
					hostile: hostileText,
				},
				{
					path: 'languageCode',
					names: ['Language Code'],
					valid: fc.constantFrom('en', 'de', 'pt_BR'),
					hostile: hostileText,
				},
				{
					path: 'headerParameters.parameter',
					names: ['Header Parameters'],
					valid: fc.array(fc.record({ type: fc.constantFrom(...HEADER_TYPES), text: someText }), {
						maxLength: 2,
					}),
					hostile: rows(
						fc.record({ type: fc.constantFrom(...HEADER_TYPES), text: someText }),
						fc.oneof(
							fc.constant(null),
							fc.record({ type: anyHostileValue, text: anyHostileValue }),
						),
					),
				},
				{
					path: 'bodyParameters.parameter',
					names: ['Body Parameters'],
					valid: fc.array(fc.record({ text: someText }), { maxLength: 3 }),
					hostile: rows(
						fc.record({ text: someText }),
						fc.oneof(fc.constant(undefined), fc.record({ text: anyHostileValue })),
					),
				},
				{
					path: 'footerParameters.parameter',
					names: ['Footer Parameters'],
					valid: fc.array(fc.record({ text: someText }), { maxLength: 1 }),
					hostile: rows(fc.record({ text: someText }), fc.record({ text: anyHostileValue })),
				},
				{
					path: 'options.recipientsPerRequest',
					names: ['Recipients per Request'],
					valid: fc.integer({ min: 0, max: 3 }),
					hostile: weirdNumbers,
				},
			],
		},
		{
			name: 'broadcast/sendOverChatHistory',
			fixed: { resource: 'broadcast', operation: 'sendOverChatHistory' },
			maxItems: 2,
			fields: [
				...senderFields,
				{
					path: 'payload',
					names: ['Payload'],
					valid: fc.oneof(
						fc.object({ maxDepth: 2 }).map((value) => JSON.stringify(value)),
						fc.object({ maxDepth: 2 }),
					),
					hostile: weirdJsonTexts,
				},
			],
		},
		{
			name: 'chat/get',
			fixed: { resource: 'chat', operation: 'get' },
			maxItems: 2,
			fields: [
				{
					path: 'chatId',
					names: ["'Chat'", 'Chat '],
					valid: fc.constantFrom(...facts.chatIds),
					hostile: fc.oneof(hostileText, unicodeStrings, weirdCursors),
				},
				chatOutput,
			],
		},
		{
			name: 'chat/getMany',
			fixed: { resource: 'chat', operation: 'getMany' },
			maxItems: 2,
			fields: [
				{
					path: 'since',
					names: ['Since'],
					valid: fc.constantFrom('date', 'cursor'),
					structural: true,
				},
				{
					path: 'sinceDate',
					names: ['Since Date'],
					valid: isoWithin(facts, 40),
					hostile: invalidDates,
				},
				{
					path: 'sinceCursor',
					names: ['Since Cursor'],
					valid: fc.constantFrom('0', String((facts.nowMs - 5 * DAY_MS) * 1000)),
					hostile: weirdCursors,
				},
				{
					// Hostile, it is stored as an expression: one that gives no text fails the item (issue 64).
					path: 'visitor',
					names: ['Visitor'],
					valid: fc.constantFrom('', 'nobody@svc.test', '+1 555 0100'),
					hostile: hostileText,
					structural: true,
				},
				...returnAllAndLimit,
				chatOutput,
				{ path: 'options.includeCursor', names: ['Include Cursor'], valid: fc.boolean() },
			],
		},
		{
			name: 'department/getMany',
			fixed: { resource: 'department', operation: 'getMany' },
			maxItems: 2,
			fields: returnAllAndLimit,
		},
		{
			name: 'tariff/getMany',
			fixed: { resource: 'tariff', operation: 'getMany' },
			maxItems: 2,
			fields: returnAllAndLimit,
		},
		{
			name: 'statistics/getUsage',
			fixed: { resource: 'statistics', operation: 'getUsage' },
			maxItems: 2,
			fields: dateFields,
		},
		{
			name: 'statistics/getOperatorStats',
			fixed: { resource: 'statistics', operation: 'getOperatorStats' },
			maxItems: 2,
			fields: dateFields,
		},
	];
}

/** resource and operation themselves: options that only a hand-edited workflow can set to anything else. */
const routerOperation: FuzzOperation = {
	name: 'router',
	fixed: {},
	maxItems: 1,
	fields: [
		{
			path: 'resource',
			names: ['operation', 'resource'],
			valid: fc.constantFrom('department', 'tariff', 'operator'),
			hostile: fc.oneof(
				fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'),
				anyHostileValue,
			),
		},
		{
			path: 'operation',
			names: ['operation', 'resource'],
			valid: fc.constant('getMany'),
			hostile: fc.oneof(
				fc.constantFrom(
					'__proto__',
					'constructor',
					'toString',
					'call',
					'name',
					'execute',
					'description',
				),
				anyHostileValue,
			),
		},
	],
};

export function triggerOperation(facts: SandboxFacts): FuzzOperation {
	return {
		name: 'trigger',
		fixed: {},
		maxItems: 1,
		fields: [
			{
				path: 'startFrom',
				names: ['Start From'],
				valid: fc.constantFrom('now', 'beginning', 'date'),
				structural: true,
				hostile: fc.oneof(fc.constantFrom('Now', 'toString', '__proto__'), anyHostileValue),
			},
			{
				path: 'startDate',
				names: ['Start Date'],
				valid: isoWithin(facts, 40),
				hostile: invalidDates,
			},
			{
				path: 'emit',
				names: ['Trigger On'],
				valid: fc.constantFrom(
					'everyChange',
					'newChats',
					'finishedChats',
					'newRating',
					'missedChat',
				),
				hostile: fc.oneof(fc.constantFrom('newchats', 'constructor'), anyHostileValue),
			},
			{
				path: 'chatOutput',
				names: ['Chat Output'],
				valid: fc.constantFrom(...OUTPUTS.filter((output) => output !== 'messages')),
				hostile: fc.oneof(fc.constantFrom('messages', 'Raw'), anyHostileValue),
			},
			{
				path: 'ratings',
				names: ['Ratings'],
				valid: fc.oneof(
					fc.constant({}),
					fc
						.tuple(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 5 }))
						.map(([one, other]) => ({
							range: { from: Math.min(one, other), to: Math.max(one, other) },
						})),
				),
				hostile: fc.record({
					range: fc.record(
						{ from: fc.oneof(fc.integer(), anyHostileValue), to: anyHostileValue },
						{ requiredKeys: [] },
					),
				}),
			},
			{
				path: 'output',
				names: ['Output'],
				valid: fc.constantFrom(...OUTPUTS),
				hostile: fc.oneof(fc.constantFrom('Raw', 'toString'), anyHostileValue),
			},
			{
				path: 'options',
				names: ['Options', 'Max Chats per Poll', 'Include Cursor'],
				valid: fc.record(
					{ maxChatsPerPoll: fc.integer({ min: 1, max: 250 }), includeCursor: fc.boolean() },
					{ requiredKeys: [] },
				),
				hostile: fc.record(
					{ maxChatsPerPoll: anyHostileValue, includeCursor: anyHostileValue },
					{ requiredKeys: ['maxChatsPerPoll'] },
				),
			},
		],
	};
}

/** What the trigger may find in its static data: nothing, a state it saved itself, or anything a hand edit left there. */
export function storedTriggerStates(facts: SandboxFacts): fc.Arbitrary<IDataObject> {
	const cursor = String((facts.nowMs - 10 * DAY_MS) * 1000);
	return fc.oneof(
		fc.constant({}),
		fc.constantFrom<IDataObject>(
			{ startedFrom: 'beginning', cursor: '0', catchingUp: false },
			{ startedFrom: 'now', catchingUp: true },
			{
				startedFrom: 'now',
				cursor,
				catchingUp: false,
				newChatsFrom: new Date(facts.nowMs - DAY_MS).toISOString(),
				seenIds: facts.chatIds.map(String),
			},
			{
				startedFrom: 'beginning',
				cursor: '0',
				catchingUp: false,
				events: { of: 'newRating', seen: ['AAAAAAAAAAAAAAAA'] },
			},
		),
		fc.record(
			{
				startedFrom: fc.oneof(fc.constantFrom('now', 'beginning'), anyHostileValue),
				cursor: fc.oneof(fc.constant(cursor), weirdCursors, anyHostileValue),
				catchingUp: fc.oneof(fc.boolean(), anyHostileValue),
				newChatsFrom: fc.oneof(invalidDates, anyHostileValue),
				seenIds: fc.oneof(
					fc.array(fc.oneof(fc.string(), anyHostileValue), { maxLength: 4 }),
					anyHostileValue,
				),
				// New Rating's or Missed Chat's memory, as saved or as a hand edit left it.
				events: fc.oneof(
					fc.record(
						{
							of: fc.oneof(fc.constantFrom('newRating', 'missedChat'), anyHostileValue),
							from: fc.oneof(invalidDates, anyHostileValue),
							seen: fc.oneof(fc.array(fc.string(), { maxLength: 4 }), anyHostileValue),
						},
						{ requiredKeys: [] },
					),
					anyHostileValue,
				),
				// The server binding: another server, or anything a hand edit left there; in clear as states saved before the digest.
				boundTo: fc.oneof(fc.constant('0'.repeat(64)), anyHostileValue),
				host: fc.oneof(fc.constant('https://elsewhere.example'), anyHostileValue),
				account: fc.oneof(fc.constant('someone@elsewhere.example'), anyHostileValue),
			},
			{ requiredKeys: [] },
		) as fc.Arbitrary<IDataObject>,
	);
}

/** What the fuzzers run on Svc Chat, by name: every operation of the node, and the router. */
export const FUZZED_ACTIONS = [...ACTION_OPERATION_NAMES, routerOperation.name];

/** The fuzzed Svc Chat operation called `name` (see FUZZED_ACTIONS), built from the sandbox's facts. */
export function fuzzedAction(facts: SandboxFacts, name: string): FuzzOperation {
	return operationNamed([...actionOperations(facts), routerOperation], name);
}
