// A parameter's label in errors is its displayName in the description, looked up by name, so no call site types it again.
import type { INodeProperties, INodePropertyCollection, INodePropertyOptions } from 'n8n-workflow';

type PropertyOption = INodeProperties | INodePropertyCollection | INodePropertyOptions;

const isProperty = (option: PropertyOption): option is INodeProperties => 'type' in option;
const isValueGroup = (option: PropertyOption): option is INodePropertyCollection =>
	'values' in option;

/**
 * The displayName of `name` among `properties`; a dotted name goes into collections ("options.recipientsPerRequest"
 * is "Recipients per Request"). A fixedCollection's value group ("headerParameters.parameter") keeps the collection's
 * label, since the editor lists its rows under that name. A name the description lacks is a programming error.
 */
export function parameterLabel(properties: readonly INodeProperties[], name: string): string {
	const [head, ...path] = name.split('.');
	const top = properties.find((property) => property.name === head);
	if (!top) throw new Error(`The parameter "${name}" is not in the description it is read with`);
	let label = top.displayName;
	let options: readonly PropertyOption[] | undefined = top.options;
	for (const key of path) {
		const child = options?.find((option) => option.name === key);
		if (child && isValueGroup(child)) {
			options = child.values;
		} else if (child && isProperty(child)) {
			label = child.displayName;
			options = child.options;
		} else {
			throw new Error(`The parameter "${name}" is not in the description it is read with`);
		}
	}
	return label;
}

/** The values an options parameter offers, from its description. */
export function parameterChoices(properties: readonly INodeProperties[], name: string): string[] {
	const property = properties.find((candidate) => candidate.name === name);
	return ((property?.options ?? []) as PropertyOption[]).flatMap((option) =>
		'value' in option && typeof option.value === 'string' ? [option.value] : [],
	);
}
