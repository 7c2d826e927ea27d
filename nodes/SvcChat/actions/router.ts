// The one router: runs the chosen operation for the input items, with continue-on-fail, pairedItem and itemIndex.
import { NodeOperationError, type IExecuteFunctions, type INodeExecutionData } from 'n8n-workflow';

import type { RetryPolicy } from '../transport';
import type { SvcOperation } from './operationTypes';
import { operations } from './resources';
import { asNodeError, errorItem } from './itemErrors';
import { showValue } from '../helpers/values';

/**
 * Runs the node's operation. `retry` is for tests (say, pauses that take no time); the node itself passes nothing.
 * Batched operations send broadcasts, which are never retried, so they need none.
 */
export async function router(
	this: IExecuteFunctions,
	retry?: Partial<RetryPolicy>,
): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const resource = this.getNodeParameter('resource', 0) as unknown;
	const operationName = this.getNodeParameter('operation', 0) as unknown;
	// Own keys only: a hand-edited "constructor" or "__proto__" must not find something on Object's prototype.
	const ofResource =
		typeof resource === 'string' && Object.hasOwn(operations, resource)
			? operations[resource]
			: undefined;
	const operation: SvcOperation | undefined =
		ofResource && typeof operationName === 'string' && Object.hasOwn(ofResource, operationName)
			? ofResource[operationName]
			: undefined;
	if (!operation) {
		throw new NodeOperationError(
			this.getNode(),
			`The operation ${showValue(operationName)} of ${showValue(resource)} is not supported`,
		);
	}

	// Batched operations (broadcasts) see every item at once and answer for each of them.
	if (operation.kind === 'batch') {
		return [await operation.executeBatch.call(this, items)];
	}

	const returnData: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			const results = await operation.execute.call(this, itemIndex, retry);
			for (const json of results) returnData.push({ json, pairedItem: { item: itemIndex } });
		} catch (error) {
			if (this.continueOnFail()) {
				returnData.push(errorItem(error as Error, itemIndex));
				continue;
			}
			throw asNodeError(this, error, itemIndex);
		}
	}
	return [returnData];
}
