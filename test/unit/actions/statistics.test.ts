// Statistics resource: Get Usage and Get Operator Stats, for one day or an inclusive range (one request per UTC day).
import { DateTime } from 'luxon';
import { NodeApiError, NodeOperationError, type INodePropertyOptions } from 'n8n-workflow';

import { selectors } from '../../../nodes/SvcChat/actions/resources';
import { dayProperties } from '../../../nodes/SvcChat/actions/statistics/days';
import { calendarDay } from '../../../nodes/SvcChat/helpers/time';
import { items, runNode, runNodeError, svc } from './runNode';

const usage = { resource: 'statistics', operation: 'getUsage' };
const operatorStats = { resource: 'statistics', operation: 'getOperatorStats' };
const USAGE = { contacts: 12, missed: 1, chats: 9, offlines: 2, avg_waiting_time: 31 };
const ROWS = [
	{
		operator_id: 2,
		online_time: 3600,
		chating_time: 1800,
		avg_chating_time: 300,
		busy_messages: 0,
		chats: 6,
	},
	{
		operator_id: 3,
		online_time: 7200,
		chating_time: 2400,
		avg_chating_time: 400,
		busy_messages: 1,
		chats: 6,
	},
];

describe('Statistics > Get Usage', () => {
	test('a single day sends date and mode=usage; the item is tagged with its date', async () => {
		svc().get('/api/v2/stats').query({ date: '2024-05-01', mode: 'usage' }).reply(200, USAGE);
		const output = await runNode({ ...usage, date: '2024-05-01' });
		expect(output).toEqual([{ json: { date: '2024-05-01', ...USAGE }, pairedItem: { item: 0 } }]);
	});

	test.each([
		['a picker value without a zone', '2024-05-01T00:00:00', '2024-05-01'],
		[
			"a value with an offset, taken as written (n8n's timezone must not shift the day)",
			'2024-05-01T00:00:00.000+02:00',
			'2024-05-01',
		],
		['an ISO instant in UTC', '2024-05-01T23:59:59.999Z', '2024-05-01'],
	])('%s is sent as yyyy-mm-dd', async (_case, date, day) => {
		svc().get('/api/v2/stats').query({ date: day, mode: 'usage' }).reply(200, USAGE);
		expect((await runNode({ ...usage, date }))[0].json.date).toBe(day);
	});

	test('a range makes one request per day, both ends included, across a month end', async () => {
		for (const date of ['2024-02-28', '2024-02-29', '2024-03-01']) {
			svc()
				.get('/api/v2/stats')
				.query({ date, mode: 'usage' })
				.reply(200, { ...USAGE, contacts: Number(date.slice(-2)) });
		}
		const output = await runNode({
			...usage,
			dateMode: 'range',
			dateFrom: '2024-02-28',
			dateTo: '2024-03-01T00:00:00',
		});
		expect(output.map((item) => [item.json.date, item.json.contacts, item.pairedItem])).toEqual([
			['2024-02-28', 28, { item: 0 }],
			['2024-02-29', 29, { item: 0 }],
			['2024-03-01', 1, { item: 0 }],
		]);
	});

	test('a range of 366 days, the most allowed, requests each of them once, in order', async () => {
		const requested: string[] = [];
		svc()
			.get('/api/v2/stats')
			.query((query) => requested.push(String(query.date)) > 0 && query.mode === 'usage')
			.times(366)
			.reply(200, USAGE);
		const output = await runNode({
			...usage,
			dateMode: 'range',
			dateFrom: '2024-01-01',
			dateTo: '2024-12-31',
		});
		expect(output.map((item) => item.json.date)).toEqual(requested);
		expect([requested.length, requested[0], requested[59], requested[365]]).toEqual([
			366,
			'2024-01-01',
			'2024-02-29',
			'2024-12-31',
		]);
		expect(new Set(requested).size).toBe(366);
	});

	test.each([
		[
			'a reversed range',
			{ dateMode: 'range', dateFrom: '2024-05-02', dateTo: '2024-05-01' },
			"'From' (2024-05-02) is after 'To' (2024-05-01)",
		],
		[
			'a range over 366 days',
			{ dateMode: 'range', dateFrom: '2023-01-01', dateTo: '2024-12-31' },
			'longer than 366 days',
		],
		[
			'a range of 367 days',
			{ dateMode: 'range', dateFrom: '2024-01-01', dateTo: '2025-01-01' },
			"The range 'From' (2024-01-01) to 'To' (2025-01-01) is longer than 366 days",
		],
		['an empty date', { date: '' }, "'Date' is empty"],
		['a date that is not a date', { date: '2024-13-45' }, "'Date' is not a date"],
		['a day that does not exist', { date: '2024-02-30' }, "'Date' is not a date"],
		["an empty 'To'", { dateMode: 'range', dateFrom: '2024-05-01', dateTo: '' }, "'To' is empty"],
	])('%s is a parameter error', async (_case, parameters, message) => {
		const error = await runNodeError({ ...usage, ...parameters });
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.message).toContain(message);
	});

	test('unknown-mode is a NodeApiError; continue-on-fail keeps going with the next item', async () => {
		svc()
			.get('/api/v2/stats')
			.query({ date: '2024-05-01', mode: 'usage' })
			.reply(200, { error: 'argument-missing' });
		svc().get('/api/v2/stats').query({ date: '2024-05-02', mode: 'usage' }).reply(200, USAGE);
		const dates = ['2024-05-01', '2024-05-02'];
		const output = await runNode((i) => ({ ...usage, date: dates[i] }), {
			items: items(2),
			continueOnFail: true,
		});
		expect(output[0]).toEqual({
			json: {
				error: expect.stringContaining('required query argument'),
				description: expect.any(String),
			},
			pairedItem: { item: 0 },
		});
		expect(output[1]).toEqual({ json: { date: '2024-05-02', ...USAGE }, pairedItem: { item: 1 } });

		svc()
			.get('/api/v2/stats')
			.query({ date: '2024-05-01', mode: 'usage' })
			.reply(200, { error: 'unknown-mode' });
		const error = await runNodeError({ ...usage, date: '2024-05-01' });
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toContain('statistics mode is not valid');
	});
});

describe('Statistics > Get Operator Stats', () => {
	test('one item per operator row and day, tagged with the date', async () => {
		svc().get('/api/v2/stats').query({ date: '2024-05-01', mode: 'operators' }).reply(200, ROWS);
		svc()
			.get('/api/v2/stats')
			.query({ date: '2024-05-02', mode: 'operators' })
			.reply(200, ROWS.slice(1));
		const output = await runNode({
			...operatorStats,
			dateMode: 'range',
			dateFrom: '2024-05-01',
			dateTo: '2024-05-02',
		});
		expect(output).toEqual([
			{ json: { date: '2024-05-01', ...ROWS[0] }, pairedItem: { item: 0 } },
			{ json: { date: '2024-05-01', ...ROWS[1] }, pairedItem: { item: 0 } },
			{ json: { date: '2024-05-02', ...ROWS[1] }, pairedItem: { item: 0 } },
		]);
	});

	test('a single day with no rows gives no items', async () => {
		svc().get('/api/v2/stats').query({ date: '2024-05-01', mode: 'operators' }).reply(200, []);
		expect(await runNode({ ...operatorStats, date: '2024-05-01' })).toEqual([]);
	});

	test('a usage-shaped reply to mode operators is a NodeApiError', async () => {
		svc().get('/api/v2/stats').query({ date: '2024-05-01', mode: 'operators' }).reply(200, USAGE);
		expect(await runNodeError({ ...operatorStats, date: '2024-05-01' })).toBeInstanceOf(
			NodeApiError,
		);
	});
});

// Issue 65: no text said the times are seconds (spec 2.11 and 2.12 give them so).
test.each([
	['getUsage', ['avg_waiting_time']],
	['getOperatorStats', ['online_time', 'chating_time', 'avg_chating_time']],
])('%s: its description names its time fields, in seconds', (operation, fields) => {
	const options = selectors.statistics.options as INodePropertyOptions[];
	const description = String(options.find((one) => one.value === operation)?.description);
	expect(description).toMatch(new RegExp(`${fields.join(',? (and )?')} in seconds`));
});

describe('calendarDay', () => {
	test("text keeps its written day; Luxon keeps its own zone's day; Date objects and milliseconds give the UTC day", () => {
		expect(calendarDay('2024-05-01')).toBe('2024-05-01');
		expect(calendarDay('2024-05-01T23:30:00-05:00')).toBe('2024-05-01');
		expect(calendarDay({ toISODate: () => '2024-05-01' })).toBe('2024-05-01');
		expect(calendarDay(new Date('2024-05-01T23:30:00-05:00'))).toBe('2024-05-02');
		expect(calendarDay(Date.UTC(2024, 4, 1, 12))).toBe('2024-05-01');
		expect(calendarDay('2024-05-01Tnonsense')).toBeUndefined();
		expect(calendarDay('yesterday')).toBeUndefined();
		expect(calendarDay({ toISODate: () => null })).toBeUndefined();
	});
});

describe('the default dates', () => {
	// n8n gives expressions $now and $today in the workflow's time zone; the API's days are UTC days.
	function evaluateDefault(name: string, instant: string, zone: string): unknown {
		const property = dayProperties.find((candidate) => candidate.name === name);
		const expression = String(property?.default).match(/^=\{\{(.*)\}\}$/s)?.[1];
		if (!expression) throw new Error(`${name} has no expression default`);
		const $now = DateTime.fromISO(instant, { zone });
		return new Function('$now', '$today', `return (${expression});`)($now, $now.startOf('day'));
	}

	test.each([
		['east of UTC, early in the local day', 'Pacific/Kiritimati', '2026-01-10T11:00:00Z'],
		['west of UTC, late in the local day', 'America/Los_Angeles', '2026-01-10T06:00:00Z'],
		['UTC', 'UTC', '2026-01-10T11:00:00Z'],
	])('"Date" is yesterday in UTC whatever n8n\'s time zone (%s)', (_case, zone, instant) => {
		expect(evaluateDefault('date', instant, zone)).toBe('2026-01-09');
		expect(evaluateDefault('dateTo', instant, zone)).toBe('2026-01-09');
		expect(evaluateDefault('dateFrom', instant, zone)).toBe('2026-01-03');
	});
});
