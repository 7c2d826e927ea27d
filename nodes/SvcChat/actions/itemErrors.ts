// Per-item failures: the error item continue-on-fail emits, and wrapping of foreign errors so they name their item.
import {
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
} from 'n8n-workflow';

/** The output item of a failed input item when continue-on-fail is on: the message and the fix. */
export function errorItem(error: Error, itemIndex: number): INodeExecutionData {
	const json: IDataObject = { error: error.message };
	const description = (error as { description?: unknown }).description;
	if (typeof description === 'string' && description) json.description = description;
	return { json, pairedItem: { item: itemIndex } };
}

/** n8n's convention (node UX guidelines): a message about one item ends with "[item N]". */
export function withItemNumber(error: Error, itemIndex: number): Error {
	const suffix = ` [item ${itemIndex}]`;
	if (!error.message.endsWith(suffix)) error.message = `${error.message}${suffix}`;
	return error;
}

/** Wraps anything that is not already an n8n error, so every failure names its item, in its message too. */
export function asNodeError(context: IExecuteFunctions, error: unknown, itemIndex: number): Error {
	const nodeError =
		error instanceof Error && 'node' in error
			? error
			: new NodeOperationError(context.getNode(), error as Error, { itemIndex });
	return withItemNumber(nodeError, itemIndex);
}
