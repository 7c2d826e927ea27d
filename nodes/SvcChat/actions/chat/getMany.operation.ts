// Chat > Get Many: the chats changed since a date or cursor, or the newest first, of one visitor or all (spec 4.6).
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { Chat } from '../../types';
import { walkChats, walkNewestFirst } from '../../transport/chats';
import { chatFormatter, chatOutputProperties, readChatOutputMode } from '../../output/chatOutput';
import { itemParameters, type ParameterReader } from '../../parameters';
import { dateToCursor, zonelessAsUtc } from '../../helpers/time';
import {
	includeCursorOption,
	optionsCollection,
	returnAllOrLimit,
} from '../../descriptions/parameterBlocks';
import { showValue } from '../../helpers/values';
import { visitorMatcher, type VisitorMatch } from '../../helpers/chat';

const oldestFirst = { displayOptions: { show: { order: ['oldestFirst'] } } };

export const properties: INodeProperties[] = [
	{
		displayName: 'Order',
		name: 'order',
		type: 'options',
		options: [
			{ name: 'Oldest First', value: 'oldestFirst' },
			{ name: 'Newest First', value: 'newestFirst' },
		],
		default: 'oldestFirst',
		description:
			"Oldest First as the API lists changes, from Since on. Newest First reads back from the server's present in widening windows (1 hour, 1 day, 1 week, 30 days) and stops at the one that holds Limit chats.",
	},
	{
		displayName: 'Look Back At Most (Days)',
		name: 'lookBackDays',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 30,
		displayOptions: { show: { order: ['newestFirst'] } },
		description: 'Each item says how far it read (searched_back_to); none found: chats_found 0',
	},
	{
		displayName: 'Visitor',
		name: 'visitor',
		type: 'string',
		default: '',
		placeholder: 'e.g. jane@example.com',
		description:
			"Only this visitor's chats: by the visitor fields, else their latest contact form. Left empty in the editor: every visitor's. An expression that gives no value fails the item and reads nothing.",
	},
	{
		displayName: 'Match Visitor By',
		name: 'visitorMatch',
		type: 'options',
		options: [
			{ name: 'Email', value: 'email', description: 'Without regard to case' },
			{ name: 'Email or Phone', value: 'emailOrPhone', description: 'Email when it has an @' },
			{ name: 'Name', value: 'name', description: 'The whole name, without regard to case' },
			{ name: 'Phone', value: 'phone', description: 'By its digits: +1 (555) 010-20 is 155501020' },
			{ name: 'Visitor ID', value: 'visitorId', description: "The server's or your site's ID" },
		],
		default: 'emailOrPhone',
		displayOptions: { hide: { visitor: [''] } },
	},
	{
		displayName: 'Since',
		name: 'since',
		type: 'options',
		options: [
			{
				name: 'Date',
				value: 'date',
				description: 'Chats created or changed after a date and time',
			},
			{
				name: 'Cursor',
				value: 'cursor',
				description:
					'Continue where an earlier run stopped, from the position it returned (its last_ts field); 0 means the beginning of history',
			},
		],
		default: 'date',
		description: 'Where to start reading changes',
		...oldestFirst,
	},
	{
		displayName: 'Since Date',
		name: 'sinceDate',
		type: 'dateTime',
		default: '={{ $now.minus({ hours: 24 }).toISO() }}',
		required: true,
		displayOptions: { show: { since: ['date'], order: ['oldestFirst'] } },
		description:
			'Chats created or changed after this time (24 hours ago by default). A time without a time zone is read as UTC.',
	},
	{
		displayName: 'Since Cursor',
		name: 'sinceCursor',
		type: 'string',
		default: '0',
		required: true,
		displayOptions: { show: { since: ['cursor'], order: ['oldestFirst'] } },
		placeholder: 'e.g. 1714557600000000',
		description:
			"The position an earlier run stopped at: the last_ts field of its items (turn on 'Include Cursor'). 0 reads the whole history.",
	},
	...returnAllOrLimit(
		'Counts chats, not items: with One Item per Message, each chat gives one item per message.',
	),
	...chatOutputProperties,
	optionsCollection([
		includeCursorOption(
			"Whether to add last_ts to each item: the position to give as 'Since Cursor' next time, so that nothing is missed or read twice",
		),
	]),
];

/** The microsecond cursor to start from, from a date or a cursor typed (or saved) by the user. */
function readSinceCursor(read: ParameterReader): string {
	if ((read.raw('since', 'date') as string) === 'cursor') {
		const cursor = read.optionalText('sinceCursor') ?? '';
		if (/^\d{1,20}$/.test(cursor)) return cursor;
		throw read.fail(
			`'${read.label('sinceCursor')}' must be digits only (a last_ts value from an earlier run), not ${showValue(cursor)}`,
			`Use the last_ts of an earlier run (turn on the '${read.label('options.includeCursor')}' option to get it), or 0 for the beginning.`,
		);
	}
	const date = read.raw('sinceDate', '');
	const cursor = dateToCursor(zonelessAsUtc(date));
	if (cursor !== undefined) return cursor;
	throw read.fail(
		`'${read.label('sinceDate')}' is ${date === '' || date === undefined ? 'empty' : `not a date: ${showValue(date)}`}`,
		'Pick a date, or give an ISO 8601 date such as 2024-05-01T00:00:00Z.',
	);
}

export async function execute(this: IExecuteFunctions, itemIndex: number) {
	const read = itemParameters(this, itemIndex, properties);
	const output = readChatOutputMode(this, itemIndex);
	const includeCursor = read.flag('options.includeCursor');
	const visitor = read.filterText('visitor');
	const keep = visitor && visitorMatcher(read.choice<VisitorMatch>('visitorMatch'), visitor);
	const limit = read.limit();
	const format = async (chats: Chat[]) =>
		chats.length ? (await chatFormatter(this, output, { itemIndex, perNodeRun: true }))(chats) : [];
	if (read.choice('order', { fallback: 'oldestFirst' as string }) === 'newestFirst') {
		const fix = 'Give a whole number of days, 1 or more.';
		const lookBackMs = read.wholeNumber('lookBackDays', { fix, min: 1, fallback: 30 }) * 864e5;
		const found = await walkNewestFirst(this, {
			limit,
			lookBackMs,
			keep: keep || undefined,
			itemIndex,
		});
		const searched = { searched_back_to: new Date(found.searchedBackToMs).toISOString() };
		const cursor = includeCursor ? { last_ts: String(found.lastTs) } : {};
		if (!found.chats.length) return [{ chats_found: 0, ...searched, ...cursor }];
		return (await format(found.chats)).map((record) => ({ ...record, ...searched, ...cursor }));
	}
	// With Include Cursor, Limit is met in whole pages, so the cursor handed back passes every chat returned and
	// skips none: fed back, it always moves forward (a cut inside a page could only give back the cursor passed in).
	const walk = { limit, wholePages: includeCursor, itemIndex, keep: keep || undefined };
	const { chats, lastTs } = await walkChats(this, readSinceCursor(read), walk);
	const records = await format(chats);
	if (!includeCursor) return records;
	return records.map((record) => ({ ...record, last_ts: String(lastTs) }));
}
