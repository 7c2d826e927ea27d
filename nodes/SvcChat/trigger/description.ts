// The Svc Chat Trigger's parameters (names fixed by the shared parameter contract) and how a poll reads and checks them.
import type { INodeProperties, IPollFunctions } from 'n8n-workflow';

import { CHAT_OUTPUT_OPTIONS, type ChatOutputMode } from '../output/chatOutput';
import { dateToCursor, toEpochMs, zonelessAsUtc } from '../helpers/time';
import { showValue } from '../helpers/values';
import { pollParameters, type ParameterReader } from '../parameters';
import { includeCursorOption, optionsCollection, notice } from '../descriptions/parameterBlocks';
import { SVC_CHAT_DESCRIPTION } from '../descriptions/nodeDescriptions';
import { isChatEvent, type ChatEvent, type RatingRange } from './events';

const DEFAULT_MAX_CHATS_PER_POLL = 1000;
/** One end of a Ratings range, within 1 to 5. */
const ratingEnd = (displayName: 'From' | 'To', value: number): INodeProperties => ({
	...{ displayName, name: displayName.toLowerCase(), type: 'number', default: value },
	typeOptions: { minValue: 1, maxValue: 5 },
});

/** The chat events of 'Trigger On'; the parameters about chats show only for them (the operator events' are in operators.ts). */
const CHAT_CHANGES = ['everyChange', 'finishedChats', 'newChats'];
const CHAT_EVENTS: ChatEvent[] = ['missedChat', 'newRating'];
const WAITING = 'visitorWaiting';
const forChats = { show: { emit: [...CHAT_CHANGES, ...CHAT_EVENTS, WAITING] } };

const AMONG_RECENT = 'among up to 300 recently changed chats';
const NOW_RULE =
	". The starting point is the server's own position in its list of changes, looked up at activation, not n8n's clock: a clock difference can neither skip nor replay any.";
const OPERATOR_POLLS =
	'A new workflow\'s first poll only records statuses; after a pause, what changed meanwhile comes late (<a href="https://github.com/n8n-nodes-svc/n8n-nodes-svc/blob/main/docs/trigger.md#when-it-happened" target="_blank">details</a>).';

/**
 * One definition per event of 'Trigger On': `emits` (what it emits and when: the option's description and the README's
 * line), `sample` (what Fetch Test Event shows), `since` (a chat event's Start From) and `more`; the texts derive from it.
 */
export const TRIGGER_EVENTS = [
	{
		value: 'everyChange',
		since: 'chats changed',
		name: 'Every Change',
		emits:
			"Each chat that is new or has changed (a message, a rating, a state change…) since 'Start From', once per poll, in its latest version",
		sample:
			'up to 5 recently changed chats: those of the last hour, or, with fewer than 5 there, of the last day, week, month, year or whole history',
	},
	{
		value: 'finishedChats',
		since: 'closed chats changed',
		name: 'Finished Chats Only',
		emits:
			"Each chat whose latest state is closed, changed since 'Start From', once per poll, in its latest version: a finished chat that changes again (say, a late rating) comes again",
		sample: `up to 5 of the most recently changed closed chats, ${AMONG_RECENT}; with none closed, open ones, so there are fields to map`,
	},
	{
		value: 'missedChat',
		since: 'chats closed',
		name: 'Missed Chat',
		emits:
			"Each finished chat that no operator answered, once, with the visitor's name, email and phone; chats closed before 'Start From' are left out",
		sample: `up to 5 missed chats, the last closed first, ${AMONG_RECENT}, or says there is none`,
	},
	{
		value: 'newChats',
		since: 'chats created',
		name: 'New Chats Only',
		emits:
			"Each chat once, the first time the trigger sees it; chats created before 'Start From' are left out, and later changes do not repeat it",
		sample: `up to 5 of the newest chats by their creation (created_at), newest first, ${AMONG_RECENT}`,
	},
	{
		value: 'newRating',
		since: 'ratings given',
		name: 'New Rating',
		emits:
			"Each rating once, when it appears: its value, the rated operator, its time and the chat; ratings given before 'Start From' are left out, and a chat's later changes do not repeat it",
		sample: `up to 5 ratings, the last given (rated_at) first, of the chats ${AMONG_RECENT}, or says there is none`,
	},
	{
		value: 'operatorAvailabilityChanged',
		name: 'Operator Availability Changed',
		emits: "Once when no operator is left in the 'Available Statuses', and once when one is back",
		sample: 'whether an operator is available now',
		more: OPERATOR_POLLS,
	},
	{
		value: 'operatorStatusChanged',
		name: 'Operator Status Changed',
		emits:
			'Each operator whose status differs from the previous poll, including operators added or removed',
		sample: 'the operators now, with previous_status equal to status',
		more: OPERATOR_POLLS,
	},
	{
		value: WAITING,
		since: 'waits begun',
		name: 'Visitor Waiting',
		emits:
			"Each open chat whose visitor has waited longer than 'Wait Longer Than' for an operator's answer, by the server's clock, once per wait; waits begun before 'Start From' are left out",
		sample: `up to 5 visitors waiting now, however briefly, the latest wait first, ${AMONG_RECENT}, or says nobody is waiting`,
	},
] as const;

type TriggerEvent = (typeof TRIGGER_EVENTS)[number];
const subtitle = ({ name }: TriggerEvent) =>
	name.replace(/ Only$/, '').replace(/ \w/g, (word) => word.toLowerCase());
const notices = TRIGGER_EVENTS.map((event) => {
	const fetch = `'Fetch Test Event' shows ${event.sample}, and changes nothing the trigger remembers.`;
	const text = `${event.emits}. ${fetch} ${'more' in event ? event.more : ''}`;
	return notice(`${event.value}Notice`, { emit: [event.value] }, text.trim());
});

/** Start From, one per chat event, in its own words: "Only ratings given after a date (UTC)". */
const startFromFields = TRIGGER_EVENTS.flatMap((event): INodeProperties[] => {
	if (!('since' in event)) return [];
	const [since, only, all] = [event.since, `Only ${event.since} after`, `All ${event.since}`];
	const startFrom: INodeProperties = {
		displayName: 'Start From',
		name: 'startFrom',
		type: 'options',
		noDataExpression: true,
		options: [
			{ name: 'Beginning of History', value: 'beginning', description: `${all}, oldest first` },
			{ name: 'Now', value: 'now', description: `${only} the trigger is activated${NOW_RULE}` },
			{ name: 'Specific Date', value: 'date', description: `${only} a date (UTC)` },
		],
		default: 'now',
		description: `Where the trigger starts the first time it runs: ${since} before it are left out. Changing it on an active workflow starts again from there.`,
		displayOptions: { show: { emit: [event.value] } },
	};
	return [startFrom];
});

/** n8n's node creator shows it under the "Svc Chat" entry, so it starts with the app's; it names every event. */
export const SVC_CHAT_TRIGGER_DESCRIPTION = `${SVC_CHAT_DESCRIPTION}, or start a workflow on ${TRIGGER_EVENTS.map(
	({ name }) => name,
)
	.join(', ')
	.replace(/, (?=[^,]*$)/, ' or ')}`;
/** The canvas subtitle: the event's name in sentence case. */
export const TRIGGER_SUBTITLE = `={{ ${JSON.stringify(Object.fromEntries(TRIGGER_EVENTS.map((event) => [event.value, subtitle(event)])))}[$parameter["emit"]] }}`;

export const triggerProperties: INodeProperties[] = [
	{
		// First, as n8n's triggers put their event; "Trigger On" is a label n8n's node creator reads events from (name: emit).
		displayName: 'Trigger On',
		name: 'emit',
		type: 'options',
		noDataExpression: true,
		options: TRIGGER_EVENTS.map(({ name, value, emits }) => ({
			name,
			value,
			action: `On ${name.toLowerCase()}`,
			description: emits,
		})),
		default: 'everyChange',
		description:
			'What starts the workflow. The note below says what the chosen event emits and what Fetch Test Event shows.',
	},
	...notices,
	{
		displayName: 'Wait Longer Than (Minutes)',
		name: 'waitLongerThan',
		type: 'number',
		// No numberPrecision: the editor would show 3 as 3.00; fractions are kept without it.
		typeOptions: { minValue: 0 },
		default: 3,
		required: true,
		description:
			"Minutes the visitor has waited for an answer, by the server's clock; fractions allowed (0.5 is 30 seconds)",
		displayOptions: { show: { emit: [WAITING] } },
	},
	...startFromFields,
	{
		displayName: 'Start Date',
		name: 'startDate',
		type: 'dateTime',
		default: '',
		required: true,
		description: "The moment (UTC) 'Start From' starts at: what came before it is left out",
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
				values: [ratingEnd('From', 1), ratingEnd('To', 5)],
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
		description: 'The shape of each emitted item: a chat, or one item per message',
		displayOptions: { show: { emit: CHAT_CHANGES } },
	},
	{
		displayName: 'Chat Output',
		name: 'chatOutput',
		type: 'options',
		noDataExpression: true,
		options: CHAT_OUTPUT_OPTIONS.filter((option) => option.value !== 'messages'),
		default: 'simplified',
		description:
			'Each item is a rating, a missed chat or a wait; this is the shape of the chat in its chat field',
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
