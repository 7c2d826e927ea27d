// Tariff > Get Many: GET /partner/tariffs (spec 4.8), one item per tariff.
import { updateDisplayOptions, type IExecuteFunctions, type INodeProperties } from 'n8n-workflow';

import { svcApiRequest } from '../../transport';
import type { Tariff } from '../../types';
import { itemParameters } from '../../parameters';
import { returnAllOrLimit } from '../../descriptions/parameterBlocks';

const properties: INodeProperties[] = [...returnAllOrLimit];

export const description = updateDisplayOptions(
	{ show: { resource: ['tariff'], operation: ['getMany'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<Tariff[]> {
	const reply = (await svcApiRequest.call(this, 'GET', 'partner/tariffs', { itemIndex })) as {
		tariffs: Tariff[];
	};
	return itemParameters(this, itemIndex, properties).limited(reply.tariffs);
}
