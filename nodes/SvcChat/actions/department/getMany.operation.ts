// Department > Get Many: GET /departments (spec 4.5).
import type { IExecuteFunctions } from 'n8n-workflow';
import { svcRequest } from '../../transport/request';
import { returnAllOrLimit } from '../../descriptions/parameterBlocks';
import { itemParameters } from '../../parameters';

export const properties = returnAllOrLimit();

export async function execute(this: IExecuteFunctions, itemIndex: number) {
	const departments = await svcRequest(this, 'departments', { itemIndex });
	return departments.slice(0, itemParameters(this, itemIndex, properties).limit());
}
