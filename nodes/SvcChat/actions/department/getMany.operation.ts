// Department > Get Many: GET /departments (spec 4.5).
import { updateDisplayOptions, type IExecuteFunctions, type INodeProperties } from 'n8n-workflow';

import { svcApiRequest, type RetryPolicy } from '../../transport';
import type { Department } from '../../types';
import { returnAllOrLimit } from '../../descriptions/parameterBlocks';
import { itemParameters } from '../../parameters';

const properties: INodeProperties[] = [...returnAllOrLimit];

export const description = updateDisplayOptions(
	{ show: { resource: ['department'], operation: ['getMany'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	retry?: Partial<RetryPolicy>,
): Promise<Department[]> {
	const departments = await svcApiRequest.call(this, 'departments', { itemIndex, retry });
	return itemParameters(this, itemIndex, properties).limited(departments);
}
