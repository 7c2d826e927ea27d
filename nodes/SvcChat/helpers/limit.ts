// Applies the "Return All" / "Limit" parameters to a list the API returns whole.
import { NodeOperationError, type IExecuteFunctions } from 'n8n-workflow';

import { showValue } from './values';

/** Reads Return All / Limit for the item; undefined means everything. A limit that is not a number of 1 or more is refused. */
export function readLimit(context: IExecuteFunctions, itemIndex: number): number | undefined {
	if (context.getNodeParameter('returnAll', itemIndex, false) as boolean) return undefined;
	const value = context.getNodeParameter('limit', itemIndex, 50) as unknown;
	const limit = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
	// An expression can give anything; a negative, fractional or non-numeric limit would silently return nothing.
	if (typeof limit !== 'number' || !Number.isFinite(limit) || limit < 1) {
		throw new NodeOperationError(
			context.getNode(),
			`'Limit' must be a whole number of 1 or more, not ${showValue(value)}`,
			{
				itemIndex,
				description: "Set a positive limit, or turn on 'Return All'.",
			},
		);
	}
	return Math.floor(limit);
}

export function applyLimit<T>(context: IExecuteFunctions, itemIndex: number, list: T[]): T[] {
	const limit = readLimit(context, itemIndex);
	return limit === undefined ? list : list.slice(0, limit);
}
