// Visitor resource: Pair Token (token generation, field sources, coercion, rejection, snippet) and Remove Token.
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { items, runNode, runNodeError, svc } from './runNode';

const pair = { resource: 'visitor', operation: 'pairToken' };
const remove = { resource: 'visitor', operation: 'removeToken' };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const PATH = '/api/v2/rt/provide_visitor_fields';

/** Captures the JSON bodies sent to provide_visitor_fields and answers ok. */
function captureBodies(times = 1): Array<Record<string, unknown>> {
	const bodies: Array<Record<string, unknown>> = [];
	svc()
		.post(PATH, (body) => {
			bodies.push(body);
			return true;
		})
		.times(times)
		.reply(200, { result: 'ok' });
	return bodies;
}

describe('Visitor > Pair Token', () => {
	test('sends the given token with the known and custom fields, and returns token, fields and snippet', async () => {
		const visitorFields = {
			id: 'customer-1042',
			name: 'Jane',
			email: 'jane@example.com',
			plan: 'premium',
		};
		svc()
			.post(PATH, { auth_token: 'tok-123', visitor_fields: visitorFields })
			.reply(200, { result: 'ok' });
		const output = await runNode({
			...pair,
			authToken: 'tok-123',
			visitorId: ' customer-1042 ',
			knownFields: { name: 'Jane', email: 'jane@example.com' },
			customFields: { field: [{ name: 'plan', value: 'premium' }] },
		});
		expect(output).toEqual([
			{
				json: {
					auth_token: 'tok-123',
					visitor_fields: visitorFields,
					snippet: 'window.svc_auth_token = "tok-123";',
				},
				pairedItem: { item: 0 },
			},
		]);
	});

	test('an empty token is generated (a random UUID), sent and returned', async () => {
		const bodies = captureBodies(2);
		const output = await runNode({ ...pair, visitorId: 'v1' }, { items: items(2) });
		const tokens = output.map((item) => item.json.auth_token as string);
		expect(tokens[0]).toMatch(UUID);
		expect(tokens[1]).toMatch(UUID);
		expect(tokens[0]).not.toBe(tokens[1]);
		expect(bodies.map((body) => body.auth_token)).toEqual(tokens);
		expect(output[0].json.snippet).toBe(`window.svc_auth_token = "${tokens[0]}";`);
	});

	test('a whitespace-only token counts as empty; a given token is sent exactly as typed', async () => {
		const bodies = captureBodies(2);
		const tokens = ['   ', ' keep me '];
		await runNode((itemIndex) => ({ ...pair, visitorId: 'v1', authToken: tokens[itemIndex] }), {
			items: items(2),
		});
		expect(bodies[0].auth_token).toMatch(UUID);
		expect(bodies[1].auth_token).toBe(' keep me ');
	});

	test('numbers and booleans are sent as text, in every input mode', async () => {
		const bodies = captureBodies(2);
		await runNode({
			...pair,
			visitorId: 42,
			knownFields: { phone: 15550000001 },
			customFields: {
				field: [
					{ name: 'vip', value: true },
					{ name: 'age', value: 37.5 },
				],
			},
		});
		await runNode({
			...pair,
			visitorId: 'v2',
			fieldsInputMode: 'json',
			fieldsJson: '{"login": "jane", "orders": 12, "verified": false}',
		});
		expect(bodies[0].visitor_fields).toEqual({
			id: '42',
			phone: '15550000001',
			vip: 'true',
			age: '37.5',
		});
		expect(bodies[1].visitor_fields).toEqual({
			id: 'v2',
			login: 'jane',
			orders: '12',
			verified: 'false',
		});
	});

	test('a known field whose expression comes out empty is left out, the others are sent', async () => {
		const bodies = captureBodies(1);
		await runNode({
			...pair,
			visitorId: 'v4',
			knownFields: { name: 'Jane', phone: '', email: undefined } as never,
		});
		expect(bodies[0].visitor_fields).toEqual({ id: 'v4', name: 'Jane' });
	});

	test('JSON mode accepts an object from an expression', async () => {
		svc()
			.post(PATH, { auth_token: 't', visitor_fields: { id: 'v3', name: 'Ann' } })
			.reply(200, { result: 'ok' });
		await runNode({
			...pair,
			authToken: 't',
			visitorId: 'v3',
			fieldsInputMode: 'json',
			fieldsJson: { name: 'Ann' } as never,
		});
	});

	test.each([
		['an object', { address: { city: 'Oslo' } }, 'Visitor field "address" is an object'],
		['a list', { tags: ['a', 'b'] }, 'Visitor field "tags" is a list'],
		['null', { phone: null }, 'Visitor field "phone" is empty (null)'],
	])(
		'a value that is %s is refused before sending, naming the key',
		async (_kind, fields, message) => {
			const error = await runNodeError({
				...pair,
				visitorId: 'v1',
				fieldsInputMode: 'json',
				fieldsJson: JSON.stringify(fields),
			});
			expect(error).toBeInstanceOf(NodeOperationError);
			expect(error.message).toContain(message);
			expect(error.context?.itemIndex).toBe(0);
		},
	);

	test('an object given through a custom field is refused too', async () => {
		const error = await runNodeError({
			...pair,
			visitorId: 'v1',
			customFields: { field: [{ name: 'meta', value: { a: 1 } }] },
		});
		expect(error.message).toContain('Visitor field "meta" is an object');
	});

	test.each([
		['an empty visitor ID', { visitorId: '   ' }, "'Visitor ID' is empty"],
		[
			'invalid JSON',
			{ fieldsInputMode: 'json', fieldsJson: '{"name": ' },
			"'Fields (JSON)' is not valid JSON",
		],
		[
			'a JSON list',
			{ fieldsInputMode: 'json', fieldsJson: '["a"]' },
			"'Fields (JSON)' must be a JSON object",
		],
		[
			'an id among the fields',
			{ fieldsInputMode: 'json', fieldsJson: '{"id": "other"}' },
			"The visitor field 'id' is set by 'Visitor ID'",
		],
		[
			'a custom field without a name',
			{ customFields: { field: [{ name: ' ', value: 'x' }] } },
			'A visitor field has an empty name',
		],
		[
			'a field set twice',
			{ knownFields: { name: 'A' }, customFields: { field: [{ name: 'name', value: 'B' }] } },
			'The visitor field "name" is set twice',
		],
		['a token that is an object', { authToken: { t: 1 } }, "'Auth Token' must be text"],
	])('%s is a parameter error', async (_case, parameters, message) => {
		const error = await runNodeError({ ...pair, visitorId: 'v1', ...parameters } as never);
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.message).toContain(message);
	});

	test('an API error code is a NodeApiError with its detail member; continue-on-fail turns it into an item', async () => {
		svc().post(PATH).reply(200, { error: 'field-value-is-not-string', field_value: 12 });
		const error = await runNodeError({ ...pair, authToken: 't', visitorId: 'v1' });
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toContain('field_value: 12');

		svc().post(PATH).reply(200, { error: 'id-field-required' });
		const output = await runNode(
			{ ...pair, authToken: 't', visitorId: 'v1' },
			{ continueOnFail: true },
		);
		expect(output).toEqual([
			{
				json: {
					error: expect.stringContaining('without a visitor ID'),
					description: expect.any(String),
				},
				pairedItem: { item: 0 },
			},
		]);
	});
});

describe('the page snippet', () => {
	/** The snippet Pair Token returns for this token. */
	async function authTokenSnippet(authToken: string): Promise<string> {
		svc()
			.post(PATH, { auth_token: authToken, visitor_fields: { id: 'v1' } })
			.reply(200, { result: 'ok' });
		const [output] = await runNode({ ...pair, authToken, visitorId: 'v1' });
		return output.json.snippet as string;
	}

	test('escapes quotes, backslashes, script tags and line separators', async () => {
		expect(await authTokenSnippet('a"b\\c')).toBe('window.svc_auth_token = "a\\"b\\\\c";');
		expect(await authTokenSnippet('</script><script>alert(1)</script>')).toBe(
			'window.svc_auth_token = "\\u003c/script\\u003e\\u003cscript\\u003ealert(1)\\u003c/script\\u003e";',
		);
		expect(await authTokenSnippet('x\u2028y\ny')).toBe('window.svc_auth_token = "x\\u2028y\\ny";');
		// What the page reads back is the token itself.
		const token = 'q"\\</script>\u2029';
		const snippet = await authTokenSnippet(token);
		const literal = snippet.slice('window.svc_auth_token = '.length, -1);
		expect(JSON.parse(literal)).toBe(token);
	});
});

describe('Visitor > Remove Token', () => {
	test('sends only the token (no visitor_fields) and reports the removal as n8n does: { deleted: true }', async () => {
		svc().post(PATH, { auth_token: 'tok-123' }).reply(200, { result: 'ok' });
		const output = await runNode({ ...remove, authToken: 'tok-123' }, { typeVersion: 2 });
		expect(output).toEqual([
			{ json: { deleted: true, auth_token: 'tok-123' }, pairedItem: { item: 0 } },
		]);
	});

	test('version 1 of the node keeps its { removed: true }, so saved workflows read the same field', async () => {
		svc().post(PATH, { auth_token: 'tok-123' }).reply(200, { result: 'ok' });
		const output = await runNode({ ...remove, authToken: 'tok-123' });
		expect(output).toEqual([
			{ json: { auth_token: 'tok-123', removed: true }, pairedItem: { item: 0 } },
		]);
	});

	test('an empty token is a parameter error, never a generated one', async () => {
		const error = await runNodeError({ ...remove, authToken: '' });
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.message).toBe("'Auth Token' is empty [item 0]");
	});

	test('a server refusal with continue-on-fail becomes an error item', async () => {
		svc().post(PATH, { auth_token: 'tok-1' }).reply(200, { error: 'auth-token-is-not-string' });
		const output = await runNode({ ...remove, authToken: 'tok-1' }, { continueOnFail: true });
		expect(output[0].json.error).toContain('The auth token must be a string');
		expect(output[0].pairedItem).toEqual({ item: 0 });
	});
});
