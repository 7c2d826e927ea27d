// The two kinds of operation (per input item, or over all items at once) and the resource that lists them.
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

import type { RetryPolicy } from '../transport';

/**
 * Runs for one input item and returns its output records; the router pairs them with the item. `retry` goes to the
 * transport (tests pass pauses that take no time; the node passes nothing).
 */
export type ExecuteItem<OutputRecord extends object = IDataObject> = (
	this: IExecuteFunctions,
	itemIndex: number,
	retry?: Partial<RetryPolicy>,
) => Promise<OutputRecord[]>;

/** Most operations: one run per input item; the router adds continue-on-fail, pairedItem and "[item N]". */
export interface PerItemOperation {
	kind: 'perItem';
	/** The operation's parameters, already limited (displayOptions) to its resource and operation. */
	description: INodeProperties[];
	execute: ExecuteItem;
}

/** Operations that batch items into shared requests (broadcasts): one run over all input items. */
export interface BatchOperation {
	kind: 'batch';
	description: INodeProperties[];
	/** Runs once over all input items; answers for each of them, with pairedItem set. */
	executeBatch(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]>;
}

export type SvcOperation = PerItemOperation | BatchOperation;

/** A resource: its operation selector and its operations by value. */
export interface SvcResource {
	description: INodeProperties[];
	operations: Record<string, SvcOperation>;
}

/** A per-item operation from its module (`import * as get from './get.operation'`). */
export function perItem(operation: Omit<PerItemOperation, 'kind'>): PerItemOperation {
	return { kind: 'perItem', description: operation.description, execute: operation.execute };
}

/** A batch operation from its module. */
export function batch(operation: Omit<BatchOperation, 'kind'>): BatchOperation {
	return {
		kind: 'batch',
		description: operation.description,
		executeBatch: operation.executeBatch,
	};
}
