// The one execute contract: the operation kinds, the router (item loop, continue-on-fail, pairedItem) and item errors.
import {
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeProperties,
	type NodeApiError,
} from 'n8n-workflow';

import { showValue } from '../helpers/values';

/** Runs once over all items when they share requests (broadcasts), answering for each item through `output`. */
export type ExecuteBatch = (
	this: IExecuteFunctions,
	items: INodeExecutionData[],
	output: ItemOutput,
) => Promise<void>;

/** An operation module (`import * as get from './get.operation'`): its parameters; `execute` runs per input item. */
export type SvcOperation = { properties: INodeProperties[] } & (
	| { execute: (this: IExecuteFunctions, itemIndex: number) => Promise<IDataObject[]> }
	| { executeBatch: ExecuteBatch }
);

/** `record[key]` for own keys only: a hand-edited "constructor" or "__proto__" must not find Object's prototype. */
const own = <T>(record: Record<string, T> | undefined, key: unknown): T | undefined =>
	record && typeof key === 'string' && Object.hasOwn(record, key) ? record[key] : undefined;

/** An n8n node error: the one thrown, else a NodeOperationError around it. */
function asNodeError(context: IExecuteFunctions, error: unknown, itemIndex: number) {
	if (error instanceof Error && 'node' in error) return error as NodeApiError | NodeOperationError;
	return new NodeOperationError(context.getNode(), error as Error, { itemIndex });
}

/** The error that stops the run, naming its item ("[item N]", as n8n does; as a tool, not); a note goes on a copy. */
function stopError(context: IExecuteFunctions, error: unknown, itemIndex: number, note?: string) {
	const nodeError = asNodeError(context, error, itemIndex);
	const suffix = ` [item ${itemIndex}]`;
	const asTool = context.getNode().type.endsWith('Tool'); // a model's tool call has one item
	if (!asTool && !nodeError.message.endsWith(suffix)) nodeError.message += suffix;
	if (note === undefined) return nodeError;
	const prototype = Object.getPrototypeOf(nodeError) as object;
	const copy = Object.create(prototype, Object.getOwnPropertyDescriptors(nodeError)) as Error & {
		description?: unknown;
	};
	const { description } = copy;
	copy.description =
		typeof description === 'string' && description ? `${description} ${note}` : note;
	return copy;
}

/** The node's output in input order, each item paired with its input item; the one place continue-on-fail is decided. */
export function itemOutput(context: IExecuteFunctions, itemCount: number) {
	const continueOnFail = context.continueOnFail();
	// "Continue (using error output)": n8n-core moves an item there by its `error` (ours, json with more than `error`,
	// would stay) and then keeps only { error: message } of its json; the regular output keeps the fix and the fields.
	const toErrorOutput = context.getNode().onError === 'continueErrorOutput';
	const perItem: INodeExecutionData[][] = Array.from({ length: itemCount }, () => []);
	return {
		items: () => perItem.flat(),
		succeed(itemIndex: number, records: IDataObject[]) {
			perItem[itemIndex] = records.map((json) => ({ json, pairedItem: { item: itemIndex } }));
		},
		// Without continue-on-fail, the error of the first item (and the note, if any) stops the run; with it, each
		// failed item gets an error item (the message, the fix and its `fields`) and the run goes on.
		fail(error: unknown, items: Array<{ itemIndex: number; fields?: IDataObject }>, note?: string) {
			if (!continueOnFail) throw stopError(context, error, items[0].itemIndex, note);
			const { message, description } = error as Error & { description?: unknown };
			const json: IDataObject = { error: message };
			if (typeof description === 'string' && description) json.description = description;
			const nodeError = toErrorOutput
				? { error: asNodeError(context, error, items[0].itemIndex) }
				: {};
			for (const { itemIndex, fields } of items)
				perItem[itemIndex] = [
					{ json: { ...json, ...fields }, ...nodeError, pairedItem: { item: itemIndex } },
				];
		},
	};
}
type ItemOutput = ReturnType<typeof itemOutput>;

export async function router(
	this: IExecuteFunctions,
	operations: Record<string, Record<string, SvcOperation>>,
): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const resource = this.getNodeParameter('resource', 0) as unknown;
	const operationName = this.getNodeParameter('operation', 0) as unknown;
	const operation = own(own(operations, resource), operationName);
	if (!operation) {
		throw new NodeOperationError(
			this.getNode(),
			`The operation ${showValue(operationName)} of ${showValue(resource)} is not supported`,
		);
	}
	const output = itemOutput(this, items.length);
	if ('executeBatch' in operation) await operation.executeBatch.call(this, items, output);
	else {
		for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
			try {
				output.succeed(itemIndex, await operation.execute.call(this, itemIndex));
			} catch (error) {
				output.fail(error, [{ itemIndex }]);
			}
		}
	}
	return [output.items()];
}
