// Parameter blocks the operations and the trigger share (Return All / Limit, Options, Include Cursor, locators), written once.
import type {
	IDisplayOptions,
	INodeProperties,
	INodePropertyMode,
	INodePropertyOptions,
} from 'n8n-workflow';

/** "Return All" and "Limit", as in every Get Many of n8n; a `hint` says what Limit counts (lint fixes the description). */
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

/** The statuses seen in the spec (Get Many and the trigger filter by them too); the full set is not shown, so expressions may give others. */
export const OPERATOR_STATUS_OPTIONS: INodePropertyOptions[] = [
	{ name: 'Dinner', value: 'dinner', description: 'On a break (Svc calls every break "dinner")' },
	{
		name: 'Invisible',
		value: 'invisible',
		description: 'Signed in, but not shown to visitors as available',
	},
	{
		name: 'Offline',
		value: 'offline',
		description: 'Signed out. Set operator status cannot bring an operator back from offline.',
	},
	{ name: 'Online', value: 'online', description: 'Available for chats' },
	{
		name: 'Pre-Dinner',
		value: 'pre-dinner',
		description: 'About to go on a break: Svc\'s status before "dinner"',
	},
];

/** The roles of spec 2.2, for the filters by role. */
export const OPERATOR_ROLE_OPTIONS: INodePropertyOptions[] = [
	{ name: 'Admin', value: 'admin' },
	{ name: 'Operator', value: 'operator' },
	{ name: 'Supervisor', value: 'supervisor' },
];

/** The "Options" collection that holds an operation's optional settings. */
export const optionsCollection = (options: INodeProperties[]): INodeProperties => ({
	displayName: 'Options',
	name: 'options',
	type: 'collection',
	placeholder: 'Add Option',
	default: {},
	options,
});

/** "Include Cursor" (Chat > Get Many and the trigger): adds last_ts to each item; `description` says what it is for there. */
export const includeCursorOption = (description: string): INodeProperties => ({
	displayName: 'Include Cursor',
	name: 'includeCursor',
	type: 'boolean',
	default: false,
	description,
});

/** An operator's typed modes: by email (Set Status, the trigger), by ID (broadcasts, the trigger). The nodes check them. */
export const OPERATOR_BY_EMAIL = {
	displayName: 'By Email',
	name: 'email',
	placeholder: 'name@email.com',
};
export const OPERATOR_BY_ID = { displayName: 'By ID', name: 'id', placeholder: 'e.g. 12' };

type TypedMode = Pick<INodePropertyMode, 'displayName' | 'name' | 'placeholder'>;

/** A required resource locator: From List, then typed modes, without a `validation` regex (n8n runs it at every execution). */
export const listLocator = (
	field: { displayName: string; name: string; description: string; searchListMethod: string },
	...typedModes: TypedMode[]
): INodeProperties => ({
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
		...typedModes.map((typed) => ({ ...typed, type: 'string' as const })),
	],
});

/** A notice on the panel, shown where `show` says: n8n shows its displayName as the text. */
type Show = IDisplayOptions['show'];
export const notice = (name: string, show: Show, text: string): INodeProperties => ({
	...{ name, displayName: text, type: 'notice', default: '' },
	displayOptions: { show },
});
