// Statistics > Get Usage: GET /stats?mode=usage (spec 4.9), one item per day.
import { dayProperties, fetchDailyStats } from './days';
import type { ExecuteItem } from '../router';

export const properties = dayProperties;

export const execute: ExecuteItem = async function (itemIndex) {
	const daily = await fetchDailyStats(this, itemIndex, 'usage');
	return daily.map(({ date, reply }) => ({ date, ...reply }));
};
