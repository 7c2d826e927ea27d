// Tariff > Get Many: GET /partner/tariffs (spec 4.8), one item per tariff.
import { updateDisplayOptions, type IExecuteFunctions, type INodeProperties } from 'n8n-workflow';

import { svcApiRequest, type RetryPolicy } from '../../transport';
import type { Tariff } from '../../types';
import { itemParameters } from '../../parameters';
import { returnAllOrLimit } from '../../descriptions/parameterBlocks';

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
	return itemParameters(this, itemIndex, properties).limited(reply.tariffs);
}
