// Names the type of a value in words, for error messages a person without a programming background can read.

export function describeValueType(value: unknown): string {
	if (value === null) return 'empty (null)';
	if (value === undefined) return 'missing';
	if (Array.isArray(value)) return 'a list';
	if (typeof value === 'object') return 'an object';
	if (typeof value === 'number') return Number.isFinite(value) ? 'a number' : `the number ${String(value)}`;
	if (typeof value === 'boolean') return 'true/false';
	return `a ${typeof value}`;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}
