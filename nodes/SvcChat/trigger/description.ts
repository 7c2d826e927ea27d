// The Svc Chat Trigger's parameters (names fixed by the shared parameter contract) and how a poll reads and checks them.
import type { INodeProperties, IPollFunctions } from 'n8n-workflow';

import { CHAT_OUTPUT_OPTIONS, type ChatOutputMode } from '../output/chatOutput';
import { dateToCursor, toEpochMs, zonelessAsUtc } from '../helpers/time';
import { showValue } from '../helpers/values';
import { pollParameters, type ParameterReader } from '../parameters';
import { includeCursorOption, optionsCollection, notice } from '../descriptions/parameterBlocks';
import { isChatEvent, type ChatEvent, type RatingRange } from './events';

const DEFAULT_MAX_CHATS_PER_POLL = 1000;
const RATING_BOUNDS = { minValue: 1, maxValue: 5 };

/** The chat events of 'Trigger On'; the parameters about chats show only for them (the operator events' are in operators.ts). */
const CHAT_CHANGES = ['everyChange', 'finishedChats', 'newChats'];
const CHAT_EVENTS: ChatEvent[] = ['missedChat', 'newRating'];
const WAITING = 'visitorWaiting';
const forChats = { show: { emit: [...CHAT_CHANGES, ...CHAT_EVENTS, WAITING] } };

export const triggerProperties: INodeProperties[] = [
	{
		// First, as n8n's triggers put their event; "Trigger On" is a label n8n's node creator reads events from (name: emit).
		displayName: 'Trigger On',
		name: 'emit',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'Every Change',
				value: 'everyChange',
				action: 'On every change',
				description:
					'A chat each time it is new or has changed (a message, a rating, a state change…)',
			},
			{
				name: 'Finished Chats Only',
				value: 'finishedChats',
				action: 'On finished chats only',
				description:
					'Chats whose latest state is "closed". A finished chat that changes again (for example a late rating) is emitted again.',
			},
			{
				name: 'Missed Chat',
				value: 'missedChat',
				action: 'On missed chat',
				description:
					"Each finished chat that no operator answered, once, with the visitor's name, email and phone",
			},
			{
				name: 'New Chats Only',
				value: 'newChats',
				action: 'On new chats only',
				description:
					'Each chat once, the first time the trigger sees it; chats created before the starting point are left out',
			},
			{
				name: 'New Rating',
				value: 'newRating',
				action: 'On new rating',
				description:
					"Each rating once, when it appears: its value, the rated operator, its time and the chat. A chat's later changes do not repeat it.",
			},
			{
				name: 'Operator Availability Changed',
				value: 'operatorAvailabilityChanged',
				action: 'On operator availability changed',
				description:
					"Once when no operator is left in the 'Available Statuses' (Online by default), and once when one is back",
			},
			{
				name: 'Operator Status Changed',
				value: 'operatorStatusChanged',
				action: 'On operator status changed',
				description:
					'Each operator whose status differs from the previous poll, including operators added or removed',
			},
			{
				name: 'Visitor Waiting',
				value: WAITING,
				action: 'On visitor waiting',
				description:
					"Each open chat whose visitor has waited longer than 'Wait Longer Than' for an operator's answer, once per wait",
			},
		],
		default: 'everyChange',
		description:
			"What starts the workflow: chats, ratings, missed chats, waiting visitors or operators' changes. The first three emit a chat once per poll, in its latest version; New Rating emits each rating, two of one chat as two items.",
	},
	notice(
		'testEventNotice',
		{ emit: CHAT_CHANGES },
		"'Fetch Test Event' shows up to 5 recently changed chats, so you can map their fields: those of the last hour, or, with fewer than 5 there, of the last day, week, month, year or whole history. It ignores 'Start From' and does not move the trigger's place. Once the workflow is active, the trigger emits changes from 'Start From' on.",
	),
	notice(
		'ratingTestNotice',
		{ emit: ['newRating'] },
		"'Fetch Test Event' shows up to 5 ratings: the newest by their time (rated_at) among the ratings of recently changed chats (up to 300), or says there is none, and does not change what the trigger remembers. Once the workflow is active, each rating given from 'Start From' on is emitted once.",
	),
	notice(
		'missedChatTestNotice',
		{ emit: ['missedChat'] },
		"'Fetch Test Event' shows up to 5 missed chats: the newest by their closing time among recently changed chats (up to 300), or says there is none, and does not change what the trigger remembers. Once the workflow is active, each chat missed from 'Start From' on is emitted once.",
	),
	notice(
		'waitingTestNotice',
		{ emit: [WAITING] },
		"'Fetch Test Event' shows up to 5 chats whose visitor is waiting now (among up to 300 recently changed), however long, or says nobody is waiting, and changes nothing the trigger remembers. Once the workflow is active, each wait that began from 'Start From' on is emitted once, when it is longer than 'Wait Longer Than' by the server's clock.",
	),
	{
		displayName: 'Wait Longer Than',
		name: 'waitLongerThan',
		type: 'number',
		typeOptions: { minValue: 0, numberPrecision: 2 },
		default: 3,
		required: true,
		description:
			"Minutes the visitor has waited for an answer, by the server's clock; fractions allowed (0.5 is 30 seconds)",
		displayOptions: { show: { emit: [WAITING] } },
	},
	{
		displayName: 'Start From',
		name: 'startFrom',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'Beginning of History',
				value: 'beginning',
				description: 'Emit every chat the server has kept, oldest first, then every later change',
			},
			{
				name: 'Now',
				value: 'now',
				description:
					"Emit nothing old: only chats that change after the trigger is activated. The starting point is the server's own position in its list of changes, looked up once at activation, not n8n's clock, so a clock difference between n8n and the server can neither skip chats nor replay old ones.",
			},
			{
				name: 'Specific Date',
				value: 'date',
				description: 'Emit chats that changed after a date, as the server timestamps its changes',
			},
		],
		default: 'now',
		description:
			'Where the trigger starts reading changes the first time it runs. Changing this on an active workflow restarts from the new point.',
		displayOptions: forChats,
	},
	{
		displayName: 'Start Date',
		name: 'startDate',
		type: 'dateTime',
		default: '',
		required: true,
		description:
			'Chats that changed after this moment (UTC) are emitted; ratings given and chats closed before it are not new',
		displayOptions: { show: { startFrom: ['date'] } },
	},
	{
		displayName: 'Ratings',
		name: 'ratings',
		type: 'fixedCollection',
		placeholder: 'Add Range',
		default: {},
		description:
			'Only ratings in this range, e.g. 1 to 2 for bad ratings. None means every rating, also a value outside 1 to 5 if the server sends one.',
		displayOptions: { show: { emit: ['newRating'] } },
		options: [
			{
				displayName: 'Range',
				name: 'range',
				values: [
					{
						displayName: 'From',
						name: 'from',
						type: 'number',
						default: 1,
						typeOptions: RATING_BOUNDS,
					},
					{ displayName: 'To', name: 'to', type: 'number', default: 5, typeOptions: RATING_BOUNDS },
				],
			},
		],
	},
	{
		displayName: 'Output',
		name: 'output',
		type: 'options',
		noDataExpression: true,
		options: CHAT_OUTPUT_OPTIONS,
		default: 'simplified',
		description: 'The shape of the emitted items',
		displayOptions: { show: { emit: CHAT_CHANGES } },
	},
	{
		displayName: 'Chat Output',
		name: 'chatOutput',
		type: 'options',
		noDataExpression: true,
		// One item per message does not fit one item per rating or missed chat.
		options: CHAT_OUTPUT_OPTIONS.filter((option) => option.value !== 'messages'),
		default: 'simplified',
		description: 'The shape of the chat each item carries (its chat field)',
		displayOptions: { show: { emit: [...CHAT_EVENTS, WAITING] } },
	},
	{
		...optionsCollection([
			includeCursorOption(
				"Whether to add last_ts to each item: the server's position in its list of changes where this poll stopped",
			),
			{
				displayName: 'Max Chats per Poll',
				name: 'maxChatsPerPoll',
				type: 'number',
				typeOptions: { minValue: 1 },
				default: DEFAULT_MAX_CHATS_PER_POLL,
				description:
					'The poll stops at the end of the page (up to 100 chats) on which this many chats have been read; the rest follows on the next poll, so memory stays bounded',
			},
		]),
		displayOptions: forChats,
	},
];

export type OperatorEvent = 'operatorAvailabilityChanged' | 'operatorStatusChanged';
export type TriggerSettings = ReturnType<typeof readTriggerSettings>;

/**
 * Read once per poll; a bad value is an error naming the field. `start`: the state a cursor starts from (a changed
 * startedFrom starts again, rule 7); Now has no cursor until it caught up; chats created before newChatsFrom are not new.
 */
export function readTriggerSettings(context: IPollFunctions) {
	const read = pollParameters(context, triggerProperties);
	const startFrom = read.choice<'now' | 'beginning' | 'date'>('startFrom');
	// Checked as a whole first, so a broken Options value is named as such rather than through one of its fields.
	read.collection('options', { fix: 'Set the options in the editor again.' });
	const emit = read.choice<
		'everyChange' | 'newChats' | 'finishedChats' | ChatEvent | 'visitorWaiting'
	>('emit');
	const withChat = isChatEvent(emit) || emit === WAITING;
	return {
		emit,
		output: read.choice<ChatOutputMode>(withChat ? 'chatOutput' : 'output'),
		ratings: emit === 'newRating' ? readRatingRange(read) : undefined,
		waitMs: emit === WAITING ? readWaitLongerThan(read) : 0,
		// A bad value is an error like a bad Limit, never a silent fall back to the default.
		maxChatsPerPoll: read.wholeNumber('options.maxChatsPerPoll', {
			min: 1,
			fallback: DEFAULT_MAX_CHATS_PER_POLL,
			fix: `Set a whole number of 1 or more, or remove the option to read up to ${DEFAULT_MAX_CHATS_PER_POLL.toLocaleString('en-US')} chats per poll.`,
		}),
		includeCursor: read.flag('options.includeCursor'),
		start: readStart(read, startFrom),
	};
}

/** 'Ratings': none means every rating; a range lies within 1 to 5, 'From' not above 'To'. */
function readRatingRange(read: ParameterReader): RatingRange {
	if (read.collection('ratings').range === undefined) return undefined;
	const [from, to] = [read.raw('ratings.range.from', 1), read.raw('ratings.range.to', 5)];
	const isRating = (value: unknown): value is number =>
		Number.isInteger(value) && (value as number) >= 1 && (value as number) <= 5;
	if (isRating(from) && isRating(to) && from <= to) return { from, to };
	throw read.fail(
		`'${read.label('ratings')}' must be whole numbers from 1 to 5, 'From' not above 'To': not from ${showValue(from)} to ${showValue(to)}`,
		"Set 'From' and 'To' between 1 and 5, e.g. 1 to 2 for bad ratings, or remove the range to get every rating.",
	);
}

/** 'Wait Longer Than': minutes above 0, fractions allowed, as milliseconds. */
function readWaitLongerThan(read: ParameterReader): number {
	const [value, label] = [read.raw('waitLongerThan'), read.label('waitLongerThan')];
	const ms =
		60_000 * (typeof value === 'string' && value.trim() ? Number(value) : (value as number));
	if (['number', 'string'].includes(typeof value) && ms > 0 && ms < 2 ** 53) return Math.round(ms);
	const fix = `Set '${label}' to the minutes a visitor may wait before the alert, e.g. 3, or 0.5 for 30 seconds.`;
	throw read.fail(`'${label}' must be a number of minutes above 0, not ${showValue(value)}`, fix);
}

function readStart(read: ParameterReader, startFrom: string) {
	const catchingUp = startFrom === 'now';
	if (startFrom !== 'date')
		return { startedFrom: startFrom, cursor: catchingUp ? undefined : '0', catchingUp };
	// n8n's date picker gives a date-time without a zone; like every time of the API, it is read as UTC.
	const startDate = zonelessAsUtc(read.raw('startDate'));
	const cursor = dateToCursor(startDate);
	const startMs = toEpochMs(startDate);
	if (cursor === undefined || startMs === undefined) {
		const [dateLabel, startFromLabel] = [read.label('startDate'), read.label('startFrom')];
		throw read.fail(
			`'${dateLabel}' is not a valid date: ${showValue(startDate)}`,
			`Pick a date in '${dateLabel}', or choose another '${startFromLabel}'.`,
		);
	}
	const newChatsFrom = new Date(startMs).toISOString();
	return { startedFrom: `date:${cursor}`, cursor, catchingUp: false, newChatsFrom };
}
