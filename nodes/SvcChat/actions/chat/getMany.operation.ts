// Chat > Get Many: the chats changed since a date or a microsecond cursor, paged through GET /chats (spec 4.6).
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { walkChats } from '../../transport/chats';
import { chatFormatter, chatOutputProperties, readChatOutputMode } from '../../output/chatOutput';
import { itemParameters, type ParameterReader } from '../../parameters';
import { dateToCursor, zonelessAsUtc } from '../../helpers/time';
import {
	includeCursorOption,
	optionsCollection,
	returnAllOrLimit,
} from '../../descriptions/parameterBlocks';
import { showValue } from '../../helpers/values';

export const properties: INodeProperties[] = [
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
	},
	{
		displayName: 'Since Date',
		name: 'sinceDate',
		type: 'dateTime',
		default: '={{ $now.minus({ hours: 24 }).toISO() }}',
		required: true,
		displayOptions: { show: { since: ['date'] } },
		description:
			'Chats created or changed after this time (24 hours ago by default). A time without a time zone is read as UTC.',
	},
	{
		displayName: 'Since Cursor',
		name: 'sinceCursor',
		type: 'string',
		default: '0',
		required: true,
		displayOptions: { show: { since: ['cursor'] } },
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
	const since = readSinceCursor(read);
	const output = readChatOutputMode(this, itemIndex);
	const includeCursor = read.flag('options.includeCursor');
	// With Include Cursor, Limit is met in whole pages, so the cursor handed back passes every chat returned and
	// skips none: fed back, it always moves forward (a cut inside a page could only give back the cursor passed in).
	const walk = { limit: read.limit(), wholePages: includeCursor, itemIndex };
	const { chats, lastTs } = await walkChats(this, since, walk);
	const format = await chatFormatter(this, output, { itemIndex, perNodeRun: true });
	const records = format(chats);
	if (!includeCursor) return records;
	return records.map((record) => ({ ...record, last_ts: String(lastTs) }));
}
