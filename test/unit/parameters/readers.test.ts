// The parameter readers on their own: each quotes the displayName of the field it reads, gives the fix, and names the item.
import { mock } from 'jest-mock-extended';
import {
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INode,
	type INodeProperties,
	type IPollFunctions,
} from 'n8n-workflow';

import {
	itemParameters,
	pollParameters,
	type ParameterReader,
} from '../../../nodes/SvcChat/parameters';
import { showValue } from '../../../nodes/SvcChat/helpers/values';

const properties: INodeProperties[] = [
	{ displayName: 'Display Text', name: 'text', type: 'string', default: '' },
	{ displayName: 'How Many', name: 'count', type: 'number', default: 1 },
	{ displayName: 'Everything', name: 'returnAll', type: 'boolean', default: false },
	{ displayName: 'At Most', name: 'limit', type: 'number', default: 50 },
	{
		displayName: 'Flavour',
		name: 'flavour',
		type: 'options',
		options: ['sweet', 'sour'].map((value) => ({ name: value, value })),
		default: 'sweet',
	},
	{ displayName: 'Body (JSON)', name: 'body', type: 'json', default: '{}' },
	{
		displayName: 'Rows of Things',
		name: 'things',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		default: {},
		options: [
			{
				displayName: 'Thing',
				name: 'thing',
				values: [{ displayName: 'Name', name: 'name', type: 'string', default: '' }],
			},
		],
	},
	{
		displayName: 'More Options',
		name: 'options',
		type: 'collection',
		default: {},
		options: [{ displayName: 'Batch Size', name: 'batchSize', type: 'number', default: 0 }],
	},
];

const node = { name: 'Under Test' } as INode;

/** A value at a dotted path, with the fallback for what is missing, as n8n's getNodeParameter gives it. */
function lookUp(values: IDataObject, name: string, fallback: unknown): unknown {
	let value: unknown = values;
	for (const key of name.split('.')) value = (value as IDataObject | undefined)?.[key];
	return value === undefined ? fallback : value;
}

function forItem(values: IDataObject, itemIndex = 3): ParameterReader {
	const context = mock<IExecuteFunctions>();
	context.getNode.mockReturnValue(node);
	context.getNodeParameter.mockImplementation(((name: string, _item: number, fallback: unknown) =>
		lookUp(values, name, fallback)) as never);
	return itemParameters(context, itemIndex, properties);
}

function forPoll(values: IDataObject): ParameterReader {
	const context = mock<IPollFunctions>();
	context.getNode.mockReturnValue(node);
	context.getNodeParameter.mockImplementation(((name: string, fallback: unknown) =>
		lookUp(values, name, fallback)) as never);
	return pollParameters(context, properties);
}

const FIX = 'Do the right thing.';

/** [reader call, the values that make it fail, the field it reads] */
const badValues: Array<[string, (read: ParameterReader) => unknown, IDataObject, string]> = [
	['optionalText', (read) => read.optionalText('text'), { text: ['a'] }, 'text'],
	['requiredText', (read) => read.requiredText('text', { fix: FIX }), { text: '  ' }, 'text'],
	[
		'wholeNumber from 1',
		(read) => read.wholeNumber('count', { fix: FIX, min: 1 }),
		{ count: 2.5 },
		'count',
	],
	[
		'wholeNumber, empty',
		(read) => read.wholeNumber('count', { fix: FIX, min: 1 }),
		{ count: '' },
		'count',
	],
	[
		'wholeNumber in a collection',
		(read) => read.wholeNumber('options.batchSize', { fix: FIX, fallback: 0 }),
		{ options: { batchSize: -1 } },
		'options.batchSize',
	],
	['limit', (read) => read.limit(), { limit: 2.5 }, 'limit'],
	['choice', (read) => read.choice('flavour'), { flavour: 'Sweet' }, 'flavour'],
	['jsonObject, broken', (read) => read.jsonObject('body', { fix: FIX }), { body: '{' }, 'body'],
	['jsonObject, a list', (read) => read.jsonObject('body', { fix: FIX }), { body: [] }, 'body'],
	['collection', (read) => read.collection('options'), { options: 'all' }, 'options'],
	['rows, not a list', (read) => read.rows('things.thing'), { things: { thing: 'x' } }, 'things'],
	[
		'rows, a bad row',
		(read) => read.rows('things.thing'),
		{ things: { thing: [{}, 7] } },
		'things',
	],
];

/** The displayName, found by hand: the test must not use the lookup it checks. */
const LABELS: Record<string, string> = {
	text: 'Display Text',
	count: 'How Many',
	'options.batchSize': 'Batch Size',
	limit: 'At Most',
	flavour: 'Flavour',
	body: 'Body (JSON)',
	options: 'More Options',
	things: 'Rows of Things',
};

describe.each(badValues)('%s', (_case, readIt, values, field) => {
	test('for an item: quotes the displayName, gives a fix and names the item', () => {
		const error = (() => {
			try {
				readIt(forItem(values));
			} catch (caught) {
				return caught as NodeOperationError;
			}
			throw new Error('the reader accepted a bad value');
		})();
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.message.startsWith(`'${LABELS[field]}'`)).toBe(true);
		expect(error.description).toEqual(expect.any(String));
		expect(error.context.itemIndex).toBe(3);
	});

	test('for the trigger: the same message, and no item', () => {
		let itemMessage = '';
		try {
			readIt(forItem(values));
		} catch (caught) {
			itemMessage = (caught as Error).message;
		}
		expect(() => readIt(forPoll(values))).toThrow(itemMessage);
		try {
			readIt(forPoll(values));
		} catch (caught) {
			expect((caught as NodeOperationError).context.itemIndex).toBeUndefined();
		}
	});
});

test('the fix given at the call site is the description', () => {
	expect(() => forItem({ count: 0 }).wholeNumber('count', { fix: FIX, min: 1 })).toThrow(
		expect.objectContaining({
			message: "'How Many' must be a whole number of 1 or more (0)",
			description: FIX,
		}),
	);
	expect(() => forItem({ limit: 0 }).limit()).toThrow(
		expect.objectContaining({
			message: "'At Most' must be a whole number of 1 or more (0)",
			description: "Set a positive limit, or turn on 'Everything'.",
		}),
	);
});

test('good values pass, digits typed as text count as numbers, a resource locator gives its value', () => {
	const read = forItem({
		text: { __rl: true, mode: 'id', value: ' 42 ' },
		count: ' 7 ',
		limit: '3',
		flavour: 'sour',
		body: ' {"a": 1} ',
		options: { batchSize: '0' },
		things: { thing: [{ name: 'x' }] },
	});
	expect(read.requiredText('text', { fix: FIX })).toBe('42');
	expect(read.wholeNumber('count', { fix: FIX, min: 1 })).toBe(7);
	expect(read.limit()).toBe(3);
	expect(read.choice('flavour')).toBe('sour');
	expect(read.jsonObject('body', { fix: FIX })).toEqual({ a: 1 });
	expect(read.wholeNumber('options.batchSize', { fix: FIX, fallback: 5 })).toBe(0);
	expect(read.rows('things.thing')).toEqual([{ name: 'x' }]);
	expect(forItem({ returnAll: true, limit: 'nonsense' }).limit()).toBeUndefined();
	expect(forItem({}).collection('options')).toEqual({});
	expect(forItem({}).wholeNumber('options.batchSize', { fix: FIX, fallback: 5 })).toBe(5);
});

test('text keeps its spaces only when asked, and a whitespace-only value is empty either way', () => {
	expect(forItem({ text: ' a b ' }).optionalText('text')).toBe('a b');
	expect(forItem({ text: ' a b ' }).optionalText('text', { keepSpaces: true })).toBe(' a b ');
	expect(forItem({ text: '  ' }).optionalText('text', { keepSpaces: true })).toBeUndefined();
	expect(forItem({ text: 12 }).optionalText('text')).toBe('12');
});

test('a flag is on only when exactly true', () => {
	expect(forItem({ options: { on: true } }).flag('options.on')).toBe(true);
	for (const value of ['true', 1, {}, undefined]) {
		expect(forItem({ options: { on: value } }).flag('options.on')).toBe(false);
	}
});

describe('a value quoted in an error message', () => {
	test('is short whatever it is: text cut at 60 characters, a BigInt, a date, an invalid date, an object', () => {
		expect(showValue('x'.repeat(80))).toBe(`"${'x'.repeat(59)}…`);
		expect(showValue(12n)).toBe('12n');
		expect(showValue(new Date(Date.UTC(2024, 4, 1)))).toBe('2024-05-01T00:00:00.000Z');
		// {{ new Date($json.day) }} of a day that is not one.
		expect(showValue(new Date('not a day'))).toBe('an invalid date');
		expect(showValue({ day: 1 })).toBe('an object');
	});
});

describe('a filter (issue 64): nothing from an expression fails, an empty field is no filter', () => {
	const filters: INodeProperties[] = [
		{ displayName: 'Visitor', name: 'visitor', type: 'string', default: '' },
		{
			displayName: 'Filters',
			name: 'filters',
			type: 'collection',
			default: {},
			options: [
				{ displayName: 'Role', name: 'role', type: 'multiOptions', default: [], options: [] },
			],
		},
	];
	/** A reader whose node stores `stored` (expressions as n8n keeps them) and whose reads give `values`. */
	function reader(stored: IDataObject, values: IDataObject) {
		const context = mock<IExecuteFunctions>();
		context.getNode.mockReturnValue({ ...node, parameters: stored } as INode);
		context.getNodeParameter.mockImplementation(((name: string, _item: number, fallback: unknown) =>
			lookUp(values, name, fallback)) as never);
		return itemParameters(context, 0, filters);
	}
	// The value an expression gave, for both filters (undefined reads as the reader's fallback, as in n8n).
	const gave = (value: unknown) => ({ visitor: value, filters: { role: value } }) as IDataObject;

	test.each([[''], ['   '], [undefined], [null]])(
		'an expression that gave %p: the item fails, naming the field and the expression',
		(value) => {
			const read = reader({ visitor: '={{ $json.email }}' }, { visitor: value });
			expect(() => read.filterText('visitor')).toThrow(
				expect.objectContaining({
					message:
						"'Visitor' is empty: the expression `{{ $json.email }}` gave no value for this item",
				}),
			);
		},
	);

	test.each([[[]], [''], [[' ']], [null], [undefined]])(
		'a list filter whose expression gave %p fails the same way',
		(value) => {
			const read = reader({ filters: { role: '={{ $json.roles }}' } }, gave(value));
			expect(() => read.filterList('filters.role')).toThrow(
				"'Role' is empty: the expression `{{ $json.roles }}` gave no value for this item",
			);
		},
	);

	test('left empty in the editor, or given a value, a filter reads as before', () => {
		expect(reader({ visitor: '' }, { visitor: '' }).filterText('visitor')).toBeUndefined();
		expect(reader({}, {}).filterText('visitor')).toBeUndefined();
		expect(reader({ filters: {} }, gave([])).filterList('filters.role')).toEqual([]);
		const fromExpression = reader({ visitor: '={{ $json.email }}' }, { visitor: ' a@x.io ' });
		expect(fromExpression.filterText('visitor')).toBe('a@x.io');
		const roles = reader({ filters: { role: '={{ $json.roles }}' } }, gave(['admin']));
		expect(roles.filterList('filters.role')).toEqual(['admin']);
	});

	test('a long expression is shown cut, on one line; one in a resource locator counts too', () => {
		const long = `={{ $json.contact\n  ?? ${'x'.repeat(100)} }}`;
		expect(() => reader({ visitor: long }, { visitor: '' }).filterText('visitor')).toThrow(
			`the expression \`{{ $json.contact ?? ${'x'.repeat(60)}…\` gave no value`,
		);
		const locator = { __rl: true, mode: 'id', value: '={{ $json.id }}' };
		expect(() => reader({ visitor: locator }, { visitor: '' }).filterText('visitor')).toThrow(
			"'Visitor' is empty: the expression `{{ $json.id }}`",
		);
	});

	test("a $fromAI input is named for the model, with its description; one n8n cannot parse is an expression's", () => {
		const ai = "={{ $fromAI('contact', 'The visitor\\'s email.', 'string') }}";
		expect(() => reader({ visitor: ai }, { visitor: '' }).filterText('visitor')).toThrow(
			expect.objectContaining({
				message: "'Visitor' is empty: the tool's input `contact` was given no value",
				description: "Call the tool again with `contact` not empty: The visitor's email.",
			}),
		);
		const broken = "={{ $fromAI('contact', 'x', 'date') }}";
		expect(() => reader({ visitor: broken }, { visitor: '' }).filterText('visitor')).toThrow(
			"'Visitor' is empty: the expression `{{ $fromAI('contact', 'x', 'date') }}` gave no value",
		);
	});
});
