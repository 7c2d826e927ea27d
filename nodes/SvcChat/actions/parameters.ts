// Reads and checks node parameters; each problem is a NodeOperationError that names the field and says how to fix it.
import { NodeOperationError, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';

import { describeValueType, isPlainObject, showValue } from '../helpers/values';

export function parameterError(
	context: IExecuteFunctions,
	itemIndex: number,
	message: string,
	fix: string,
): NodeOperationError {
	return new NodeOperationError(context.getNode(), message, { itemIndex, description: fix });
}

/**
 * The value of a resource locator ({ __rl, mode, value }); a plain value, as workflows saved before the locators and
 * expressions give, is returned as it is.
 */
export function locatorValue(value: unknown): unknown {
	return isPlainObject(value) && value.__rl === true && 'value' in value ? value.value : value;
}

/** Text, trimmed, or undefined when empty; numbers from expressions count as text. */
export function readOptionalText(
	context: IExecuteFunctions,
	name: string,
	itemIndex: number,
	label: string,
): string | undefined {
	const value = locatorValue(context.getNodeParameter(name, itemIndex, ''));
	if (value === undefined || value === null || value === '') return undefined;
	if (typeof value === 'number' && Number.isFinite(value)) return String(value);
	if (typeof value !== 'string') {
		throw parameterError(
			context,
			itemIndex,
			`'${label}' must be text, but it is ${describeValueType(value)}`,
			'Check the expression of this field.',
		);
	}
	return value.trim() || undefined;
}

/** Text that must not be empty. */
export function readRequiredText(
	context: IExecuteFunctions,
	name: string,
	itemIndex: number,
	label: string,
	fix: string,
): string {
	const text = readOptionalText(context, name, itemIndex, label);
	if (text === undefined) throw parameterError(context, itemIndex, `'${label}' is empty`, fix);
	return text;
}

/** A whole number above zero; digits typed as text are accepted too. */
export function readPositiveInteger(
	context: IExecuteFunctions,
	name: string,
	itemIndex: number,
	label: string,
	fix: string,
): number {
	const value = locatorValue(context.getNodeParameter(name, itemIndex, 0));
	if (value === '' || value === undefined || value === null)
		throw parameterError(context, itemIndex, `'${label}' is empty`, fix);
	const number = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
	if (typeof number !== 'number' || !Number.isSafeInteger(number) || number < 1) {
		const shown =
			typeof value === 'string' || typeof value === 'number' ? ` (${showValue(value)})` : '';
		throw parameterError(
			context,
			itemIndex,
			`'${label}' must be a whole number above 0${shown}`,
			fix,
		);
	}
	return number;
}

/** A JSON object typed as text or given by an expression; lists, null and broken JSON are refused. */
export function readJsonObject(
	context: IExecuteFunctions,
	name: string,
	itemIndex: number,
	label: string,
	fix: string,
): IDataObject {
	let value = context.getNodeParameter(name, itemIndex, '{}') as unknown;
	if (typeof value === 'string') {
		try {
			value = JSON.parse(value.trim() || '{}');
		} catch (error) {
			throw parameterError(
				context,
				itemIndex,
				`'${label}' is not valid JSON: ${(error as Error).message}`,
				fix,
			);
		}
	}
	if (!isPlainObject(value)) {
		throw parameterError(
			context,
			itemIndex,
			`'${label}' must be a JSON object ({ … }), but it is ${describeValueType(value)}`,
			fix,
		);
	}
	return value as IDataObject;
}

/** A collection (Options, Filters…): an object, or nothing at all; a hand-edited workflow or an expression may give anything else. */
export function readCollection(
	context: IExecuteFunctions,
	name: string,
	itemIndex: number,
	label: string,
): IDataObject {
	const value = context.getNodeParameter(name, itemIndex, {}) as unknown;
	if (value === undefined || value === null) return {};
	if (!isPlainObject(value)) {
		throw parameterError(
			context,
			itemIndex,
			`'${label}' must be a set of fields, but it is ${describeValueType(value)}`,
			'Set this field in the editor again, or fix its expression.',
		);
	}
	return value as IDataObject;
}

/** The rows of a list of values (a fixedCollection with multiple values), each an object. */
export function readRows(
	context: IExecuteFunctions,
	name: string,
	itemIndex: number,
	label: string,
): IDataObject[] {
	const value = context.getNodeParameter(name, itemIndex, []) as unknown;
	if (value === undefined || value === null) return [];
	const fix = 'Set this field in the editor again, or fix its expression.';
	if (!Array.isArray(value))
		throw parameterError(
			context,
			itemIndex,
			`'${label}' must be a list, but it is ${describeValueType(value)}`,
			fix,
		);
	const bad = value.findIndex((row) => !isPlainObject(row));
	if (bad >= 0)
		throw parameterError(
			context,
			itemIndex,
			`'${label}', entry ${bad + 1} is ${describeValueType(value[bad])}`,
			fix,
		);
	return value as IDataObject[];
}
