// Applies the "Return All" / "Limit" parameters to a list the API returns whole.
import type { IExecuteFunctions } from 'n8n-workflow';

/** Reads Return All / Limit for the item; undefined means everything. */
export function readLimit(context: IExecuteFunctions, itemIndex: number): number | undefined {
	if (context.getNodeParameter('returnAll', itemIndex, false) as boolean) return undefined;
	return context.getNodeParameter('limit', itemIndex, 50) as number;
}

export function applyLimit<T>(context: IExecuteFunctions, itemIndex: number, list: T[]): T[] {
	const limit = readLimit(context, itemIndex);
	return limit === undefined ? list : list.slice(0, limit);
}
