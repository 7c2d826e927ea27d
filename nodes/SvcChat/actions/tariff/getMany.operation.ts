// Tariff > Get Many: GET /partner/tariffs (spec 4.8), one item per tariff.
import { updateDisplayOptions, type IExecuteFunctions, type INodeProperties } from 'n8n-workflow';

import { svcApiRequest, type RetryPolicy } from '../../transport';
import type { Tariff } from '../../types';
import { applyLimit } from '../../helpers/limit';
import { returnAllOrLimit } from '../common.descriptions';

const properties: INodeProperties[] = [...returnAllOrLimit];

export const description = updateDisplayOptions(
	{ show: { resource: ['tariff'], operation: ['getMany'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	retry?: Partial<RetryPolicy>,
): Promise<Tariff[]> {
	const reply = await svcApiRequest.call(this, 'partner/tariffs', { itemIndex, retry });
	return applyLimit(this, itemIndex, reply.tariffs);
}
