// Statistics > Get Usage: GET /stats?mode=usage (spec 4.9), one item per day.
import { updateDisplayOptions, type IExecuteFunctions, type INodeProperties } from 'n8n-workflow';

import type { RetryPolicy } from '../../transport';
import { dayProperties, fetchDailyStats, type DatedRecord } from './days';

const properties: INodeProperties[] = [...dayProperties];

export const description = updateDisplayOptions(
	{ show: { resource: ['statistics'], operation: ['getUsage'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	retry?: Partial<RetryPolicy>,
): Promise<DatedRecord[]> {
	const daily = await fetchDailyStats(this, itemIndex, 'usage', retry);
	return daily.map(({ date, reply }) => ({ date, ...reply }));
}
