// Tariff > Get Many: GET /partner/tariffs (spec 4.8), one item per tariff.
import type { IExecuteFunctions } from 'n8n-workflow';
import { svcRequest } from '../../transport/request';
import { itemParameters } from '../../parameters';
import { returnAllOrLimit } from '../../descriptions/parameterBlocks';

export const properties = returnAllOrLimit();

export async function execute(this: IExecuteFunctions, itemIndex: number) {
	const reply = await svcRequest(this, 'partner/tariffs', { itemIndex });
	return reply.tariffs.slice(0, itemParameters(this, itemIndex, properties).limit());
}
