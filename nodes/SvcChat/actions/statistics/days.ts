// The day or days a statistics operation covers: one date, or an inclusive range sent as one request per UTC day.
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { svcRequest } from '../../transport/request';
import type { StatsReplies } from '../../transport/endpoints';
import { calendarDay } from '../../helpers/time';
import { showValue } from '../../helpers/values';
import { itemParameters, type ParameterReader } from '../../parameters';

const MAX_DAYS = 366;
const DAY_MS = 86_400_000;

export const dayProperties: INodeProperties[] = [
	{
		displayName: 'Dates',
		name: 'dateMode',
		type: 'options',
		options: [
			{ name: 'Single Day', value: 'single' },
			{
				name: 'Date Range',
				value: 'range',
				description: `From one day to another, both included (at most ${MAX_DAYS} days)`,
			},
		],
		default: 'single',
		description:
			'Statistics are per day (UTC); a range makes one request per day and tags each item with its date',
	},
	{
		displayName: 'Date',
		name: 'date',
		type: 'dateTime',
		default: '={{ $now.toUTC().minus({ days: 1 }).toISODate() }}',
		required: true,
		displayOptions: { show: { dateMode: ['single'] } },
		description:
			"The day to report on (by default yesterday in UTC, since the API's days are UTC days). The day is taken as written, and reported as that UTC day.",
	},
	{
		displayName: 'From',
		name: 'dateFrom',
		type: 'dateTime',
		default: '={{ $now.toUTC().minus({ days: 7 }).toISODate() }}',
		required: true,
		displayOptions: { show: { dateMode: ['range'] } },
		description: 'First day of the range, included',
	},
	{
		displayName: 'To',
		name: 'dateTo',
		type: 'dateTime',
		default: '={{ $now.toUTC().minus({ days: 1 }).toISODate() }}',
		required: true,
		displayOptions: { show: { dateMode: ['range'] } },
		description: 'Last day of the range, included',
	},
];

function readDay(read: ParameterReader, name: string): string {
	const value = read.raw(name, '');
	const day = calendarDay(value);
	if (day !== undefined) return day;
	const shown = value === '' || value === undefined ? 'empty' : `not a date: ${showValue(value)}`;
	throw read.fail(`'${read.label(name)}' is ${shown}`, 'Pick a date, or give one as yyyy-mm-dd.');
}

function readDays(context: IExecuteFunctions, itemIndex: number): string[] {
	const read = itemParameters(context, itemIndex, dayProperties);
	if ((read.raw('dateMode', 'single') as string) !== 'range') return [readDay(read, 'date')];
	const from = readDay(read, 'dateFrom');
	const to = readDay(read, 'dateTo');
	const count = (Date.parse(to) - Date.parse(from)) / DAY_MS + 1;
	if (count < 1 || count > MAX_DAYS) {
		const [fromLabel, toLabel] = [read.label('dateFrom'), read.label('dateTo')];
		const problem =
			count < 1
				? `'${fromLabel}' (${from}) is after '${toLabel}' (${to})`
				: `The range '${fromLabel}' (${from}) to '${toLabel}' (${to}) is longer than ${MAX_DAYS} days`;
		throw read.fail(problem, `Choose a range of at most ${MAX_DAYS} days, '${fromLabel}' first.`);
	}
	const day = (offset: number) => new Date(Date.parse(from) + offset * DAY_MS).toISOString();
	return Array.from({ length: count }, (_, offset) => day(offset).slice(0, 10));
}

/** GET /stats for each day, in order; each reply comes with its day. */
export async function fetchDailyStats<Mode extends keyof StatsReplies>(
	context: IExecuteFunctions,
	itemIndex: number,
	mode: Mode,
) {
	const daily = [];
	for (const date of readDays(context, itemIndex)) {
		const reply = await svcRequest(context, 'stats', { qs: { date, mode }, itemIndex });
		daily.push({ date, reply });
	}
	return daily;
}
