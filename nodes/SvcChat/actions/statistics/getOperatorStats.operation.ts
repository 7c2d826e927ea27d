// Statistics > Get Operator Stats: GET /stats?mode=operators (spec 4.9), one item per operator row and day.
import { updateDisplayOptions } from 'n8n-workflow';

import { dayProperties, fetchDailyStats } from './days';
import type { ExecuteItem } from '../router';

export const description = updateDisplayOptions(
	{ show: { resource: ['statistics'], operation: ['getOperatorStats'] } },
	dayProperties,
);

export const execute: ExecuteItem = async function (itemIndex) {
	const daily = await fetchDailyStats(this, itemIndex, 'operators');
	return daily.flatMap(({ date, reply }) => reply.map((row) => ({ date, ...row })));
};
