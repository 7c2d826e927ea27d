// The output of a batched operation: one item per input item, and the one place its continue-on-fail is decided.
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { asNodeError, errorItem } from '../itemErrors';

export interface FailedItem {
	itemIndex: number;
	/** Added to the error item, e.g. which request the item was in. */
	fields?: IDataObject;
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

export class BatchOutput {
	private readonly continueOnFail: boolean;
	private readonly items: INodeExecutionData[];

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
	 * Without continue-on-fail, the failure stops the run, as the error of its first item (with the note, if any);
	 * with it, each failed item gets its error item and the batch goes on.
	 */
	fail(error: unknown, failed: FailedItem[], note?: string): void {
		if (!this.continueOnFail) {
			throw withNote(asNodeError(this.context, error, failed[0].itemIndex), note);
		}
		for (const { itemIndex, fields } of failed) {
			const item = errorItem(error as Error, itemIndex);
			this.items[itemIndex] = { ...item, json: { ...item.json, ...fields } };
		}
	}

	/** The items, in input order, each paired with its input item. */
	result(): INodeExecutionData[] {
		return this.items;
	}
}
