// The one execute contract: the operation kinds, the router (item loop, continue-on-fail, pairedItem) and item errors.
import {
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeProperties,
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

/** A copy of the error with a sentence added to its description; the error that was thrown stays as it was. */
function withNote(error: Error, note: string | undefined): Error {
	if (note === undefined) return error;
	const prototype = Object.getPrototypeOf(error) as object;
	const copy = Object.create(prototype, Object.getOwnPropertyDescriptors(error)) as Error & {
		description?: unknown;
	};
	const { description } = copy;
	copy.description =
		typeof description === 'string' && description ? `${description} ${note}` : note;
	return copy;
}

/** The node's output, in input order, each item paired with its input item; the one place continue-on-fail is decided. */
export class ItemOutput {
	private readonly continueOnFail: boolean;
	private readonly perItem: INodeExecutionData[][];

	constructor(
		private readonly context: IExecuteFunctions,
		itemCount: number,
	) {
		this.continueOnFail = context.continueOnFail();
		this.perItem = Array.from({ length: itemCount }, () => []);
	}

	get items(): INodeExecutionData[] {
		return this.perItem.flat();
	}

	succeed(itemIndex: number, records: IDataObject[]): void {
		this.perItem[itemIndex] = records.map((json) => ({ json, pairedItem: { item: itemIndex } }));
	}

	/**
	 * Without continue-on-fail, the failure stops the run with the error of its first item (and the note, if any); with
	 * it, each failed item gets an error item (the message, the fix and its `fields`) and the run goes on.
	 */
	fail(error: unknown, failed: Array<{ itemIndex: number; fields?: IDataObject }>, note?: string) {
		if (!this.continueOnFail) {
			throw withNote(asNodeError(this.context, error, failed[0].itemIndex), note);
		}
		const { message, description } = error as Error & { description?: unknown };
		const json: IDataObject = { error: message };
		if (typeof description === 'string' && description) json.description = description;
		for (const { itemIndex, fields } of failed)
			this.perItem[itemIndex] = [{ json: { ...json, ...fields }, pairedItem: { item: itemIndex } }];
	}
}

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
	const output = new ItemOutput(this, items.length);
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
	return [output.items];
}
