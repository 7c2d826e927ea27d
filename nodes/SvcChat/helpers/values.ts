// Names the type of a value in words, for error messages a person without a programming background can read.

export function describeValueType(value: unknown): string {
	if (value === null) return 'empty (null)';
	if (value === undefined) return 'missing';
	if (Array.isArray(value)) return 'a list';
	if (typeof value === 'object') return 'an object';
	if (typeof value === 'number')
		return Number.isFinite(value) ? 'a number' : `the number ${String(value)}`;
	if (typeof value === 'boolean') return 'true/false';
	return `a ${typeof value}`;
}

export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
	typeof value === 'object' && value !== null && !Array.isArray(value);

/** A value as it may be quoted in an error message: short, whatever its type or size (BigInt and cycles included). */
export function showValue(value: unknown, maxLength = 60): string {
	let text: string;
	if (typeof value === 'string')
		text = JSON.stringify(value.length > maxLength ? value.slice(0, maxLength) : value);
	else if (typeof value === 'bigint') text = `${value}n`;
	else if (value instanceof Date)
		text = Number.isNaN(value.getTime()) ? 'an invalid date' : value.toISOString();
	else if (typeof value === 'object' && value !== null) text = describeValueType(value);
	else text = String(value);
	return text.length > maxLength ? `${text.slice(0, maxLength)}…` : text;
}
