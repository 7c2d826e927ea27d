// Tariff > Get Many: GET /partner/tariffs (spec 4.8), one item per tariff.
import { svcRequest } from '../../transport/request';
import { itemParameters } from '../../parameters';
import { returnAllOrLimit } from '../../descriptions/parameterBlocks';
import type { ExecuteItem } from '../router';

export const properties = returnAllOrLimit();

export const execute: ExecuteItem = async function (itemIndex) {
	const reply = await svcRequest(this, 'partner/tariffs', { itemIndex });
	return itemParameters(this, itemIndex, properties).limited(reply.tariffs);
};
