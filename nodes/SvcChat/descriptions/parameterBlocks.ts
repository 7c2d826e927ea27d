// Parameter blocks the operations and the trigger share (Return All / Limit, Options, Include Cursor, locators), written once.
import type { INodeProperties } from 'n8n-workflow';

/**
 * "Return All" and "Limit", the pair n8n users know from every Get Many operation; a `hint` under Limit says what it
 * counts (n8n's lint fixes the description's wording).
 */
export const returnAllOrLimit = (hint?: string): INodeProperties[] => [
	{
		displayName: 'Return All',
		name: 'returnAll',
		type: 'boolean',
		default: false,
		description: 'Whether to return all results or only up to a given limit',
	},
	{
		displayName: 'Limit',
		name: 'limit',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 50,
		description: 'Max number of results to return',
		displayOptions: { show: { returnAll: [false] } },
		...(hint ? { hint } : {}),
	},
];

/** The "Options" collection that holds an operation's optional settings. */
export function optionsCollection(options: INodeProperties[]): INodeProperties {
	return {
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options,
	};
}

/** "Include Cursor" (Chat > Get Many and the trigger): adds last_ts to each item; `description` says what it is for there. */
export function includeCursorOption(description: string): INodeProperties {
	return {
		displayName: 'Include Cursor',
		name: 'includeCursor',
		type: 'boolean',
		default: false,
		description,
	};
}

/**
 * A required resource locator: From List (one of the node's searchable list methods), then one typed mode, which a
 * `regex` checks in the editor as it is typed (otherwise a typed value is only checked when the node runs).
 */
export function listLocator(
	field: { displayName: string; name: string; description: string; searchListMethod: string },
	typed: {
		displayName: string;
		name: string;
		placeholder: string;
		regex?: string;
		errorMessage?: string;
	},
): INodeProperties {
	const { regex, errorMessage = '' } = typed;
	return {
		displayName: field.displayName,
		name: field.name,
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		required: true,
		description: field.description,
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				typeOptions: { searchListMethod: field.searchListMethod, searchable: true },
			},
			{
				displayName: typed.displayName,
				name: typed.name,
				type: 'string',
				placeholder: typed.placeholder,
				...(regex === undefined
					? {}
					: { validation: [{ type: 'regex', properties: { regex, errorMessage } }] }),
			},
		],
	};
}
