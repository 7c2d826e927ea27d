// Tariff > Get Many: GET /partner/tariffs (spec 4.8), one item per tariff.
import { updateDisplayOptions, type INodeProperties } from 'n8n-workflow';

import { svcApiRequest } from '../../transport';
import type { Tariff } from '../../types';
import { itemParameters } from '../../parameters';
import { returnAllOrLimit } from '../../descriptions/parameterBlocks';
import type { ExecuteItem } from '../router';

const properties: INodeProperties[] = [...returnAllOrLimit];

export const description = updateDisplayOptions(
	{ show: { resource: ['tariff'], operation: ['getMany'] } },
	properties,
);

export const execute: ExecuteItem<Tariff> = async function (itemIndex, retry) {
	const reply = await svcApiRequest.call(this, 'partner/tariffs', { itemIndex, retry });
	return itemParameters(this, itemIndex, properties).limited(reply.tariffs);
};
