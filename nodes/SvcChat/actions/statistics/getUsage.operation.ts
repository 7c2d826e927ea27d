// Statistics > Get Usage: GET /stats?mode=usage (spec 4.9), one item per day.
import type { IExecuteFunctions } from 'n8n-workflow';
import { dayProperties, fetchDailyStats } from './days';

export const properties = dayProperties;

export async function execute(this: IExecuteFunctions, itemIndex: number) {
	const daily = await fetchDailyStats(this, itemIndex, 'usage');
	return daily.map(({ date, reply }) => ({ date, ...reply }));
}
