// Department > Get Many: GET /departments (spec 4.5).
import { svcRequest } from '../../transport/request';
import { returnAllOrLimit } from '../../descriptions/parameterBlocks';
import { itemParameters } from '../../parameters';
import type { ExecuteItem } from '../router';

export const properties = returnAllOrLimit();

export const execute: ExecuteItem = async function (itemIndex) {
	const departments = await svcRequest(this, 'departments', { itemIndex });
	return itemParameters(this, itemIndex, properties).limited(departments);
};
