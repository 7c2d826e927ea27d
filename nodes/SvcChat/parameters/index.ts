// The one set of parameter readers for both nodes; it sits beside actions/ and trigger/ so neither reaches into the other.
import {
	extractFromAICalls,
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INode,
	type INodeProperties,
	type INodePropertyCollection,
	type INodePropertyOptions,
	type IPollFunctions,
} from 'n8n-workflow';

import { describeValueType, isPlainObject, showValue } from '../helpers/values';

type PropertyOption = INodeProperties | INodePropertyCollection | INodePropertyOptions;

/** `fix`: what the user should do, shown under the error message. */
type Fix = { fix: string };

const RESET_FIX = 'Set this field in the editor again, or fix its expression.';

const isEmpty = (value: unknown) => value === undefined || value === null || value === '';

/** An email as the API takes it: one "@", text on both sides, no spaces (checked here, never by an n8n regex). */
export const EMAIL_SHAPE = /^[^@\s]+@[^@\s]+$/;

/** The value of a resource locator ({ __rl, mode, value }); a plain value (older workflows, expressions) as it is. */
const locatorValue = (value: unknown) =>
	isPlainObject(value) && value.__rl === true && 'value' in value ? value.value : value;

/** The first `$fromAI` input of a stored value, parsed as n8n builds the tool's schema; none if it does not parse. */
function fromAI(stored: string) {
	try {
		return extractFromAICalls(stored).at(0);
	} catch {
		return undefined;
	}
}

/** Reads and checks parameters; each problem is a NodeOperationError that names the field and says how to fix it. */
export class ParameterReader {
	constructor(
		private readonly context: { getNode(): INode },
		private readonly properties: readonly INodeProperties[],
		/** The value as n8n gives it (expressions resolved), for checks no reader below makes. */
		readonly raw: (name: string, fallback?: unknown) => unknown,
		private readonly itemIndex?: number,
	) {}

	/**
	 * A parameter's label in errors, looked up so no call site types it again. A dotted name goes into collections; a
	 * fixedCollection's value group ("headerParameters.parameter") keeps the collection's label, as the editor shows it.
	 */
	label(name: string): string {
		let label = '';
		let options: readonly PropertyOption[] | undefined = this.properties;
		for (const key of name.split('.')) {
			const child: PropertyOption | undefined = options?.find((option) => option.name === key);
			if (child && 'values' in child) options = child.values;
			else if (child && 'type' in child) [label, options] = [child.displayName, child.options];
			else throw new Error(`The parameter "${name}" is not in the description it is read with`);
		}
		return label;
	}

	/** An error about this item's parameters, with the fix as its description. */
	fail(message: string, fix: string): NodeOperationError {
		const { itemIndex } = this;
		return new NodeOperationError(this.context.getNode(), message, { description: fix, itemIndex });
	}

	/** Text, trimmed (or as given, with keepSpaces), or undefined when empty; numbers from expressions count as text. */
	optionalText(name: string, options: Partial<Fix> & { keepSpaces?: boolean } = {}) {
		const value = locatorValue(this.raw(name, ''));
		if (isEmpty(value)) return undefined;
		if (typeof value === 'number' && Number.isFinite(value)) return String(value);
		if (typeof value !== 'string') {
			throw this.fail(
				`'${this.label(name)}' must be text, but it is ${describeValueType(value)}`,
				options.fix ?? 'Check the expression of this field.',
			);
		}
		if (options.keepSpaces) return value.trim() ? value : undefined;
		return value.trim() || undefined;
	}

	/**
	 * A filter of whose data is read (a visitor, operators): undefined, no filter, only when left empty in the editor. An
	 * expression that gave nothing (empty, spaces, null) fails the item: read as no filter, it would read everyone's.
	 */
	filterText(name: string): string | undefined {
		const text = this.optionalText(name);
		if (text === undefined) this.refuseEmptyExpression(name);
		return text;
	}

	/** A list filter (roles, statuses): as `filterText`, nothing from an expression ([], '', null) fails the item. */
	filterList(name: string): string[] {
		const list = this.list(name);
		if (!list.some((one) => one.trim())) this.refuseEmptyExpression(name);
		return list;
	}

	/** The values an options parameter offers, as its description lists them. */
	private offered = (name: string): unknown[] =>
		(this.properties.find((one) => one.name === name)?.options ?? []).map(
			(one) => 'value' in one && one.value,
		);

	/** A model's `$fromAI` choice must be offered (n8n's generateZodSchema has no enum); an editor expression need not. */
	modelChoice(name: string, value: string, plural: string) {
		const input = fromAI(String(this.context.getNode().parameters[name]));
		const values = this.offered(name).map(String);
		if (!input || values.includes(value)) return;
		const fix = `Call the tool again with \`${input.key}\` set to one of them.`;
		const known = `which Svc does not know: the ${plural} are ${values.join(', ')}`;
		throw this.fail(`'${this.label(name)}' is ${showValue(value)}, ${known}`, fix);
	}

	/** Throws when the stored value is an expression (it gave nothing); a model's `$fromAI` input is named as such. */
	private refuseEmptyExpression(name: string) {
		let stored: unknown = this.context.getNode().parameters;
		for (const key of name.split('.')) stored = isPlainObject(stored) ? stored[key] : undefined;
		stored = locatorValue(stored);
		if (typeof stored !== 'string' || !stored.startsWith('=')) return;
		const label = this.label(name);
		// $fromAI resolves only when the node runs as a tool: the model gave this input empty, and can give it again.
		const input = fromAI(stored);
		if (input) {
			const wanted = input.description ? `: ${input.description.replace(/\.$/, '')}` : '';
			throw this.fail(
				`'${label}' is empty: the tool's input \`${input.key}\` was given no value`,
				`Call the tool again with \`${input.key}\` not empty${wanted}.`,
			);
		}
		const expression = stored.slice(1).trim().replace(/\s+/g, ' ');
		const shown = expression.length > 80 ? `${expression.slice(0, 80)}…` : expression;
		const forItem = this.itemIndex === undefined ? '' : ' for this item';
		throw this.fail(
			`'${label}' is empty: the expression \`${shown}\` gave no value${forItem}`,
			`Check the data the expression reads: it has no value there. To read everyone's, leave '${label}' empty in the editor, without an expression.`,
		);
	}

	requiredText(name: string, { fix }: Fix): string {
		const text = this.optionalText(name);
		if (text === undefined) throw this.fail(`'${this.label(name)}' is empty`, fix);
		return text;
	}

	/** An email (EMAIL_SHAPE), trimmed; `fix` also ends the message of a value that is not one. */
	email(name: string, { fix }: Fix): string {
		const email = this.requiredText(name, { fix });
		if (EMAIL_SHAPE.test(email)) return email;
		throw this.fail(`'${this.label(name)}' is not an email (${showValue(email)})`, fix);
	}

	/** A whole number of `min` (default 0) or more; digits typed as text count too, 2.5, -1, "1e3" and 2 ** 64 do not. */
	wholeNumber(name: string, { fix, fallback, min = 0 }: Fix & { fallback?: number; min?: number }) {
		const value = locatorValue(this.raw(name, fallback));
		if (isEmpty(value)) throw this.fail(`'${this.label(name)}' is empty`, fix);
		const number = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
		if (typeof number !== 'number' || !Number.isSafeInteger(number) || number < min) {
			const shown =
				typeof value === 'string' || typeof value === 'number' ? ` (${showValue(value)})` : '';
			throw this.fail(
				`'${this.label(name)}' must be a whole number of ${min} or more${shown}`,
				fix,
			);
		}
		return number;
	}

	/** "Return All" / "Limit": undefined means everything, else a whole number of 1 or more. */
	limit(): number | undefined {
		// Truthy, as n8n's own nodes read Return All.
		if (this.raw('returnAll', false)) return undefined;
		// An expression can give anything; a negative, fractional or non-numeric limit would silently return nothing.
		return this.wholeNumber('limit', {
			min: 1,
			fallback: 50,
			fix: `Set a positive limit, or turn on '${this.label('returnAll')}'.`,
		});
	}

	/** On only when exactly true; text such as "false" from an expression does not switch anything on. */
	flag(name: string): boolean {
		return this.raw(name, false) === true;
	}

	/** One of an options parameter's values, as its description lists them; anything else must not be read as some default. */
	choice<T extends string>(name: string, options: Partial<Fix> & { fallback?: T } = {}): T {
		const value = this.raw(name, options.fallback);
		if (typeof value === 'string' && this.offered(name).includes(value)) return value as T;
		const label = this.label(name);
		throw this.fail(
			`'${label}' has the unknown value ${showValue(value)}`,
			options.fix ?? `Choose '${label}' in the editor again.`,
		);
	}

	/** A multi-choice field: a list of texts (a single text counts as a list of one); nothing means an empty list. */
	list(name: string): string[] {
		const value = this.raw(name, []);
		if (value === undefined || value === null) return [];
		if (typeof value === 'string') return [value];
		if (Array.isArray(value) && value.every((choice) => typeof choice === 'string')) return value;
		throw this.fail(
			`The '${this.label(name)}' filter must be a list of texts, but it is ${describeValueType(value)}`,
			'Choose the values in the editor, or give a list such as ["online"].',
		);
	}

	/** A JSON object typed as text or given by an expression; lists, null and broken JSON are refused. */
	jsonObject(name: string, { fix }: Fix): IDataObject {
		let value = this.raw(name, '{}');
		if (typeof value === 'string') {
			try {
				value = JSON.parse(value.trim() || '{}');
			} catch (error) {
				throw this.fail(
					`'${this.label(name)}' is not valid JSON: ${(error as Error).message}`,
					fix,
				);
			}
		}
		if (isPlainObject(value)) return value as IDataObject;
		throw this.fail(
			`'${this.label(name)}' must be a JSON object ({ … }), but it is ${describeValueType(value)}`,
			fix,
		);
	}

	/** A collection (Options, Filters…): an object, or nothing; a hand-edited workflow or an expression may give anything. */
	collection(name: string, { fix = RESET_FIX }: Partial<Fix> = {}): IDataObject {
		const value = this.raw(name, {}) ?? {};
		if (isPlainObject(value)) return value as IDataObject;
		throw this.fail(
			`'${this.label(name)}' must be a set of fields, but it is ${describeValueType(value)}`,
			fix,
		);
	}

	/** The rows of a list of values (a fixedCollection with multiple values, e.g. "customFields.field"), each an object. */
	rows(name: string): IDataObject[] {
		const value = this.raw(name, []) ?? [];
		if (!Array.isArray(value))
			throw this.fail(
				`'${this.label(name)}' must be a list, but it is ${describeValueType(value)}`,
				RESET_FIX,
			);
		const bad = value.findIndex((row) => !isPlainObject(row));
		if (bad >= 0)
			throw this.fail(
				`'${this.label(name)}', entry ${bad + 1} is ${describeValueType(value[bad])}`,
				RESET_FIX,
			);
		return value as IDataObject[];
	}
}

/** The readers for one input item of the action node, labelled from the operation's own properties. */
export const itemParameters = (
	context: IExecuteFunctions,
	itemIndex: number,
	properties: readonly INodeProperties[],
) =>
	new ParameterReader(
		context,
		properties,
		(name, fallback) => context.getNodeParameter(name, itemIndex, fallback),
		itemIndex,
	);

/** The readers for the trigger, whose parameters have no item. */
export const pollParameters = (context: IPollFunctions, properties: readonly INodeProperties[]) =>
	new ParameterReader(context, properties, (name, fallback) =>
		context.getNodeParameter(name, fallback),
	);
