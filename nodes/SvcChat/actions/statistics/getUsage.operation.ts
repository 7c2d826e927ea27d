// Statistics > Get Usage: GET /stats?mode=usage (spec 4.9), one item per day.
import { updateDisplayOptions } from 'n8n-workflow';

import { dayProperties, fetchDailyStats } from './days';
import type { ExecuteItem } from '../router';

export const description = updateDisplayOptions(
	{ show: { resource: ['statistics'], operation: ['getUsage'] } },
	dayProperties,
);

export const execute: ExecuteItem = async function (itemIndex) {
	const daily = await fetchDailyStats(this, itemIndex, 'usage');
	return daily.map(({ date, reply }) => ({ date, ...reply }));
};
