// Statistics > Get Operator Stats: GET /stats?mode=operators (spec 4.9), one item per operator row and day.
import { updateDisplayOptions, type IExecuteFunctions, type INodeProperties } from 'n8n-workflow';

import type { RetryPolicy } from '../../transport';
import { dayProperties, fetchDailyStats, type DatedRecord } from './days';

const properties: INodeProperties[] = [...dayProperties];

export const description = updateDisplayOptions(
	{ show: { resource: ['statistics'], operation: ['getOperatorStats'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	retry?: Partial<RetryPolicy>,
): Promise<DatedRecord[]> {
	const daily = await fetchDailyStats(this, itemIndex, 'operators', retry);
	return daily.flatMap(({ date, reply }) => reply.map((row) => ({ date, ...row })));
}
