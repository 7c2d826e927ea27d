// Issue 64: a filter of whose data is read, given by an expression that gives nothing, fails its item and reads nothing.
import { NodeOperationError, type INodeParameters } from 'n8n-workflow';

import { items, runNode, runNodeError, svc } from './runNode';

const chats = { resource: 'chat', operation: 'getMany', since: 'cursor', sinceCursor: '0' };
const operators = { resource: 'operator', operation: 'getMany', returnAll: true };
const chat = (id: number, email: string) => ({
	id,
	created_at: '2024-05-01T00:00:00Z',
	visitor: { id: `v${id}`, fields: { email } },
});
const EVERYONES = [chat(1, 'a@x.io'), chat(2, 'b@x.io')];
const OPERATORS = [
	{ id: 1, email: 'ada@svc.test', status: 'online', roles: ['admin'] },
	{ id: 2, email: 'bo@svc.test', status: 'dinner', roles: ['operator'] },
];
const everyonesChats = () =>
	svc()
		.get('/api/v2/chats')
		.query({ since: '0' })
		.reply(200, { chats: EVERYONES, more_chats_available: false, last_ts: 9 });

/**
 * Each filter: the label its errors quote, its parameters with a value (a function of what the expression gave), the
 * expression the workflow stores, and the values that are "nothing". Undefined and null reach the node as n8n's default here
 * (the harness fills parameters in as n8n does); readers.test.ts gives them to the reader as they are.
 */
const FILTERS: Array<{
	field: string;
	label: string;
	base: INodeParameters;
	given: (value: unknown) => INodeParameters;
	/** The expression stored in the workflow (without its "="). */
	expression: string;
	nothing: unknown[];
	/** A value that picks the first of EVERYONES or OPERATORS. */
	first: unknown;
}> = [
	{
		field: 'visitor',
		label: 'Visitor',
		base: { ...chats, output: 'raw' },
		given: (visitor) => ({ visitor }) as INodeParameters,
		expression: '{{ $json.body.email }}',
		nothing: ['', '   ', undefined, null],
		first: 'A@x.io',
	},
	{
		field: 'filters.email',
		label: 'Email',
		base: operators,
		given: (email) => ({ filters: { email } }) as INodeParameters,
		expression: '{{ $json.body.email }}',
		nothing: ['', '   ', undefined, null],
		first: 'ADA@svc.test',
	},
	{
		field: 'filters.role',
		label: 'Role',
		base: operators,
		given: (role) => ({ filters: { role } }) as INodeParameters,
		expression: '{{ $json.body.roles }}',
		nothing: [[], '', '   ', [' '], null],
		first: ['admin'],
	},
	{
		field: 'filters.status',
		label: 'Status',
		base: operators,
		given: (status) => ({ filters: { status } }) as INodeParameters,
		expression: '{{ $json.body.statuses }}',
		nothing: [[], '', '   ', [' '], null],
		first: ['online'],
	},
];
const gaveNothing = (label: string, expression: string) =>
	`'${label}' is empty: the expression \`${expression}\` gave no value for this item`;

describe.each(FILTERS)('$field', ({ label, base, given, expression, nothing, first }) => {
	// As n8n stores it: the parameter's value is the expression, with its "=".
	const stored = given(`=${expression}`);
	test.each(nothing.map((value) => [JSON.stringify(value) ?? 'undefined', value]))(
		'an expression that gave %s fails the item, naming the field and the expression; nothing is requested',
		async (_shown, value) => {
			// No mock: a request would fail with nock's refusal instead of this error.
			const error = await runNodeError({ ...base, ...given(value) }, { stored });
			expect(error).toBeInstanceOf(NodeOperationError);
			expect(error.message).toBe(`${gaveNothing(label, expression)} [item 0]`);
			expect(error.description).toBe(
				`Check the data the expression reads: it has no value there. To read everyone's, leave '${label}' empty in the editor, without an expression.`,
			);
			expect(error.context?.itemIndex).toBe(0);
		},
	);

	test('with Continue On Fail, that item becomes its error item, paired, and the next item is read', async () => {
		if (base.resource === 'chat') everyonesChats();
		else svc().get('/api/v2/operators').reply(200, OPERATORS);
		const output = await runNode(
			(itemIndex) => ({ ...base, ...given(itemIndex ? first : nothing[0]) }),
			{ items: items(2), continueOnFail: true, stored },
		);
		expect(output).toEqual([
			{
				json: { error: gaveNothing(label, expression), description: expect.any(String) },
				pairedItem: { item: 0 },
			},
			{ json: expect.objectContaining({ id: 1 }), pairedItem: { item: 1 } },
		]);
	});

	test("left empty in the editor (no expression), it keeps its meaning: everyone's", async () => {
		if (base.resource === 'chat') everyonesChats();
		else svc().get('/api/v2/operators').reply(200, OPERATORS);
		const output = await runNode({ ...base, ...given(nothing[0]) });
		expect(output.map((item) => item.json.id)).toEqual([1, 2]);
	});
});

describe('as a tool (Svc Chat Tool, the value from $fromAI)', () => {
	const contact =
		"={{ $fromAI('contact', 'The email address or phone number of the visitor, as they gave it', 'string') }}";

	test.each([[''], ['   ']])(
		'contact %j: the model reads which input to give again, and how; nothing is requested',
		async (visitor) => {
			const error = await runNodeError(
				{ ...chats, order: 'newestFirst', visitor },
				{ asTool: true, stored: { visitor: contact } },
			);
			expect(error).toBeInstanceOf(NodeOperationError);
			expect(error.message).toBe(
				"'Visitor' is empty: the tool's input `contact` was given no value",
			);
			expect(error.description).toBe(
				'Call the tool again with `contact` not empty: The email address or phone number of the visitor, as they gave it.',
			);
		},
	);

	test('an input without a description is still named', async () => {
		const error = await runNodeError(
			{ ...operators, filters: { email: '' } },
			{ asTool: true, stored: { filters: { email: "={{ $fromAI('email') }}" } } },
		);
		expect(error.message).toBe("'Email' is empty: the tool's input `email` was given no value");
		expect(error.description).toBe('Call the tool again with `email` not empty.');
	});
});
