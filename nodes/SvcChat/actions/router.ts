// The one execute contract: the operation kinds, the router (item loop, continue-on-fail, pairedItem) and item errors.
import {
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeProperties,
} from 'n8n-workflow';

import { showValue } from '../helpers/values';

/** Runs for one input item and returns its output records; the router pairs them with the item. */
export type ExecuteItem = (this: IExecuteFunctions, itemIndex: number) => Promise<IDataObject[]>;
export type ExecuteBatch = (
	this: IExecuteFunctions,
	items: INodeExecutionData[],
) => Promise<INodeExecutionData[]>;

/**
 * An operation module as imported (`import * as get from './get.operation'`): its parameters (resources.ts shows them
 * for its resource and operation only) and either `execute`, run per input item (the router adds
 * continue-on-fail, pairedItem and "[item N]"), or `executeBatch`, run once over all items when they share requests
 * (broadcasts), answering for each of them through a BatchOutput.
 */
export type SvcOperation = { properties: INodeProperties[] } & (
	| { execute: ExecuteItem }
	| { executeBatch: ExecuteBatch }
);

/** `record[key]` for own keys only: a hand-edited "constructor" or "__proto__" must not find Object's prototype. */
const own = <T>(record: Record<string, T> | undefined, key: unknown): T | undefined =>
	record && typeof key === 'string' && Object.hasOwn(record, key) ? record[key] : undefined;

/** The output item of a failed input item when continue-on-fail is on: the message, the fix and any `fields`. */
function errorItem(error: Error, itemIndex: number, fields?: IDataObject): INodeExecutionData {
	const json: IDataObject = { error: error.message };
	const description = (error as { description?: unknown }).description;
	if (typeof description === 'string' && description) json.description = description;
	return { json: { ...json, ...fields }, pairedItem: { item: itemIndex } };
}

/** Wraps anything that is not already an n8n error; every failure names its item, in its message too ("[item N]"). */
function asNodeError(context: IExecuteFunctions, error: unknown, itemIndex: number): Error {
	const nodeError =
		error instanceof Error && 'node' in error
			? error
			: new NodeOperationError(context.getNode(), error as Error, { itemIndex });
	// n8n's convention (node UX guidelines): a message about one item ends with "[item N]".
	const suffix = ` [item ${itemIndex}]`;
	if (!nodeError.message.endsWith(suffix)) nodeError.message = `${nodeError.message}${suffix}`;
	return nodeError;
}

/** Runs the chosen operation of `resources`. */
export async function router(
	this: IExecuteFunctions,
	resources: Record<string, { operations: Record<string, SvcOperation> }>,
): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const resource = this.getNodeParameter('resource', 0) as unknown;
	const operationName = this.getNodeParameter('operation', 0) as unknown;
	const operation = own(own(resources, resource)?.operations, operationName);
	if (!operation) {
		throw new NodeOperationError(
			this.getNode(),
			`The operation ${showValue(operationName)} of ${showValue(resource)} is not supported`,
		);
	}

	// Batched operations (broadcasts) see every item at once and answer for each of them.
	if ('executeBatch' in operation) return [await operation.executeBatch.call(this, items)];

	const returnData: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			const results = await operation.execute.call(this, itemIndex);
			for (const json of results) returnData.push({ json, pairedItem: { item: itemIndex } });
		} catch (error) {
			if (!this.continueOnFail()) throw asNodeError(this, error, itemIndex);
			returnData.push(errorItem(error as Error, itemIndex));
		}
	}
	return [returnData];
}

/** A copy of the error with a sentence added to its description; the error that was thrown stays as it was. */
function withNote(error: Error, note: string | undefined): Error {
	if (note === undefined) return error;
	const copy = Object.create(
		Object.getPrototypeOf(error) as object,
		Object.getOwnPropertyDescriptors(error),
	) as Error & { description?: string | null };
	const { description } = error as { description?: unknown };
	copy.description =
		typeof description === 'string' && description ? `${description} ${note}` : note;
	return copy;
}

/** The output of a batched operation: one item per input item, and the one place its continue-on-fail is decided. */
export class BatchOutput {
	private readonly continueOnFail: boolean;
	/** The items, in input order, each paired with its input item. */
	readonly items: INodeExecutionData[];

	constructor(
		private readonly context: IExecuteFunctions,
		itemCount: number,
	) {
		this.continueOnFail = context.continueOnFail();
		this.items = new Array<INodeExecutionData>(itemCount);
	}

	succeed(itemIndex: number, json: IDataObject): void {
		this.items[itemIndex] = { json, pairedItem: { item: itemIndex } };
	}

	/**
	 * Without continue-on-fail, the failure stops the run, as the router would throw the error of its first item (with
	 * the note, if any); with it, each failed item gets its error item and the batch goes on.
	 */
	fail(error: unknown, failed: Array<{ itemIndex: number; fields?: IDataObject }>, note?: string) {
		if (!this.continueOnFail) {
			throw withNote(asNodeError(this.context, error, failed[0].itemIndex), note);
		}
		for (const { itemIndex, fields } of failed)
			this.items[itemIndex] = errorItem(error as Error, itemIndex, fields);
	}
}
