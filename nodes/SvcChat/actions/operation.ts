// The shape every operation module has: its parameters and how it runs (per item, or over all items at once).
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

import type { RetryPolicy } from '../transport';

export interface SvcOperation {
	/** The operation's parameters, already limited (displayOptions) to its resource and operation. */
	description: INodeProperties[];
	/**
	 * Runs for one input item and returns its output records; the router pairs them with the item. `retry` goes to the
	 * transport (tests pass pauses that take no time; the node passes nothing).
	 */
	execute?(
		this: IExecuteFunctions,
		itemIndex: number,
		retry?: Partial<RetryPolicy>,
	): Promise<IDataObject[]>;
	/** Runs once over all input items (batched requests); must return items with pairedItem set. */
	executeBatch?(
		this: IExecuteFunctions,
		items: INodeExecutionData[],
	): Promise<INodeExecutionData[]>;
}

/** A resource: its operation selector and its operations by value. */
export interface SvcResource {
	description: INodeProperties[];
	operations: Record<string, SvcOperation>;
}
