// Department > Get Many: GET /departments (spec 4.5).
import { updateDisplayOptions, type INodeProperties } from 'n8n-workflow';

import { svcRequest } from '../../transport/request';
import { returnAllOrLimit } from '../../descriptions/parameterBlocks';
import { itemParameters } from '../../parameters';
import type { ExecuteItem } from '../router';

const properties: INodeProperties[] = [...returnAllOrLimit];

export const description = updateDisplayOptions(
	{ show: { resource: ['department'], operation: ['getMany'] } },
	properties,
);

export const execute: ExecuteItem = async function (itemIndex) {
	const departments = await svcRequest(this, 'departments', { itemIndex });
	return itemParameters(this, itemIndex, properties).limited(departments);
};
