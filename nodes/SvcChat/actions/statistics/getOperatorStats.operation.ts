// Statistics > Get Operator Stats: GET /stats?mode=operators (spec 4.9), one item per operator row and day.
import { dayProperties, fetchDailyStats } from './days';
import type { ExecuteItem } from '../router';

export const properties = dayProperties;

export const execute: ExecuteItem = async function (itemIndex) {
	const daily = await fetchDailyStats(this, itemIndex, 'operators');
	return daily.flatMap(({ date, reply }) => reply.map((row) => ({ date, ...row })));
};
