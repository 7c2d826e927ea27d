// Statistics > Get Operator Stats: GET /stats?mode=operators (spec 4.9), one item per operator row and day.
import type { IExecuteFunctions } from 'n8n-workflow';
import { dayProperties, fetchDailyStats } from './days';

export const properties = dayProperties;

export async function execute(this: IExecuteFunctions, itemIndex: number) {
	const daily = await fetchDailyStats(this, itemIndex, 'operators');
	return daily.flatMap(({ date, reply }) => reply.map((row) => ({ date, ...row })));
}
