// Visitor > Pair Token: POST rt/provide_visitor_fields with visitor_fields (spec 4.1); generates the token if empty.
import { randomUUID } from 'node:crypto';
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { svcRequest } from '../../transport/request';
import { describeValueType, showValue } from '../../helpers/values';
import { itemParameters, type ParameterReader } from '../../parameters';

/** A text field of the visitor data: name, display name, placeholder and (for the usual fields) description. */
const textField = ([name, displayName, placeholder, description]: string[]): INodeProperties => ({
	displayName,
	name,
	type: 'string',
	default: '',
	placeholder,
	...(description === undefined ? {} : { description }),
});

export const properties: INodeProperties[] = [
	{
		displayName: 'Auth Token',
		name: 'authToken',
		type: 'string',
		typeOptions: { password: true },
		default: '',
		placeholder: 'e.g. 9f1c2b7e-4d3a-4c8e-a1f0-3b5d7e9c2a64',
		description:
			'A unique, hard-to-guess token that your website puts in window.svc_auth_token for this visitor. Leave empty to let the node generate a random one; it is returned in the output, with a ready-made snippet for the page.',
	},
	{
		displayName: 'Visitor ID',
		name: 'visitorId',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. customer-1042',
		description: "The visitor's ID in your own system (not the chat server's visitor ID)",
	},
	{
		displayName: 'Fields Input Mode',
		name: 'fieldsInputMode',
		type: 'options',
		options: [
			{ name: 'Fields', value: 'fields', description: 'Pick the usual fields and add your own' },
			{ name: 'JSON', value: 'json', description: 'Give all fields as one JSON object' },
		],
		default: 'fields',
		description:
			'How to give the visitor data shown to operators. Numbers and true/false are sent as text.',
	},
	{
		displayName: 'Visitor Fields',
		name: 'knownFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		displayOptions: { show: { fieldsInputMode: ['fields'] } },
		description:
			'The usual visitor data, shown to operators in the chat. Empty fields are not sent.',
		// The visitor keys seen in the spec (2.8) besides `id`: name, display name, placeholder, description.
		options: [
			['email', 'Email', 'name@email.com', "The visitor's email, shown to operators"],
			['icq', 'ICQ', 'e.g. 123456789', "The visitor's ICQ number"],
			['login', 'Login', 'e.g. jsmith', "The visitor's login name on your website"],
			['name', 'Name', 'e.g. Jane Smith', 'The name operators see for this visitor'],
			['phone', 'Phone', 'e.g. +15550000001', "The visitor's phone number"],
			[
				'profile_url',
				'Profile URL',
				'e.g. https://example.com/users/42',
				"Link to the visitor's profile in your system, so operators can open it",
			],
			['site', 'Site', 'e.g. https://example.com', 'The website the visitor is logged in to'],
		].map(textField),
	},
	{
		displayName: 'Custom Fields',
		name: 'customFields',
		type: 'fixedCollection',
		placeholder: 'Add Custom Field',
		typeOptions: { multipleValues: true },
		default: {},
		displayOptions: { show: { fieldsInputMode: ['fields'] } },
		description: 'Any other visitor data, as name and value',
		options: [
			{
				displayName: 'Field',
				name: 'field',
				values: [
					['name', 'Name', 'e.g. plan'],
					['value', 'Value', 'e.g. premium'],
				].map(textField),
			},
		],
	},
	{
		displayName: 'Fields (JSON)',
		name: 'fieldsJson',
		type: 'json',
		default: '{\n  "name": "",\n  "email": ""\n}',
		displayOptions: { show: { fieldsInputMode: ['json'] } },
		description:
			'Visitor data as one JSON object of names and values; values must be text, numbers or true/false',
	},
];

/** The extra fields, in the order given, from the chosen input mode. */
function readExtraFields(read: ParameterReader): Array<[string, unknown]> {
	if ((read.raw('fieldsInputMode', 'fields') as string) === 'json') {
		const fix = 'Write the fields as a JSON object, e.g. {"name": "Jane", "plan": "premium"}.';
		return Object.entries(read.jsonObject('fieldsJson', { fix }));
	}
	return [
		// A known field whose expression comes out empty (a login payload without a phone) is left out, not sent as "".
		...Object.entries(read.collection('knownFields')).filter(
			([, v]) => v !== undefined && v !== '',
		),
		...read.rows('customFields.field').map(({ name, value }, position): [string, unknown] => {
			if (name === undefined || name === null) return ['', value];
			if (typeof name === 'string' || (typeof name === 'number' && Number.isFinite(name)))
				return [String(name), value];
			throw read.fail(
				`'${read.label('customFields.field')}', field ${position + 1}: the name is ${describeValueType(name)}`,
				'Give every custom field a text name.',
			);
		}),
	];
}

const VISITOR_FIELD_FIX =
	'Visitor field values must be text; numbers and true/false are converted, objects and lists are not.';

/** `visitor_fields` (spec 2.1, 4.1): `id` first, only from Visitor ID so no second id slips in; then the rest as text. */
function visitorFields(read: ParameterReader, visitorId: string): Record<string, string> {
	const refuse = (problem: string) => read.fail(problem, VISITOR_FIELD_FIX);
	// A Map, not an object: names such as "constructor" or "__proto__" are fields like any other.
	const fields = new Map<string, string>([['id', visitorId]]);
	for (const [rawKey, value] of readExtraFields(read)) {
		const key = rawKey.trim();
		if (!key)
			throw refuse('A visitor field has an empty name. Give every field a name, or remove it.');
		if (key === 'id')
			throw refuse(
				"The visitor field 'id' is set by 'Visitor ID'. Remove 'id' from the other fields.",
			);
		if (fields.has(key))
			throw refuse(`The visitor field ${showValue(key)} is set twice. Keep only one of them.`);
		// Text as the API wants it: numbers and true/false become text; objects, lists, null and NaN are refused.
		const isTextLike =
			['string', 'boolean', 'bigint'].includes(typeof value) ||
			(typeof value === 'number' && Number.isFinite(value));
		if (!isTextLike) {
			throw refuse(
				`Visitor field ${showValue(key)} is ${describeValueType(value)}, but the API accepts only text. Give it text, a number or true/false.`,
			);
		}
		fields.set(key, String(value));
	}
	return Object.fromEntries(fields);
}

/** The line for the website's pages (spec 4.1 rule 5a); the token's string literal is safe inside an inline <script> too. */
function authTokenSnippet(token: string): string {
	const literal = JSON.stringify(token).replace(
		/[<>\u2028\u2029]/g,
		(character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`,
	);
	return `window.svc_auth_token = ${literal};`;
}

/** The token exactly as given (whitespace-only counts as empty), numbers as text; undefined when empty. */
export const readAuthToken = (read: ParameterReader) =>
	read.optionalText('authToken', {
		keepSpaces: true,
		fix: 'Give the token as text, e.g. the value your website stores in window.svc_auth_token.',
	});

export async function execute(this: IExecuteFunctions, itemIndex: number) {
	const read = itemParameters(this, itemIndex, properties);
	const visitorId = read.requiredText('visitorId', {
		fix: "Enter the visitor's ID in your own system, e.g. their customer number.",
	});
	const fields = visitorFields(read, visitorId);
	const authToken = readAuthToken(read) ?? randomUUID();
	const body = { auth_token: authToken, visitor_fields: fields };
	await svcRequest(this, 'rt/provide_visitor_fields', { body, itemIndex });
	return [{ auth_token: authToken, visitor_fields: fields, snippet: authTokenSnippet(authToken) }];
}
