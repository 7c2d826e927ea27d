// The execute contract: the router refuses an operation it does not have; its item output decides continue-on-fail.
import { mock } from 'jest-mock-extended';
import { NodeApiError, NodeOperationError, type IExecuteFunctions, type INode } from 'n8n-workflow';

import { operations } from '../../../nodes/SvcChat/actions/resources';
import { itemOutput, router } from '../../../nodes/SvcChat/actions/router';

const node = { name: 'Svc Chat', type: 'n8n-nodes-svc.svcChat', typeVersion: 2 } as INode;

function batchContext(continueOnFail: boolean) {
	const context = mock<IExecuteFunctions>();
	context.getNode.mockReturnValue(node);
	context.continueOnFail.mockReturnValue(continueOnFail);
	return context;
}

const apiError = () =>
	new NodeApiError(
		node,
		{ message: 'boom' },
		{ message: 'The server said no', description: 'Try later.', itemIndex: 4 },
	);

test('without continue-on-fail, a note is added to a copy of the error; the caught error keeps its description', () => {
	const original = apiError();
	const output = itemOutput(batchContext(false), 6);
	let thrown: unknown;
	try {
		output.fail(original, [{ itemIndex: 4 }, { itemIndex: 5 }], 'Items 0–3 were already sent.');
	} catch (error) {
		thrown = error;
	}
	expect(thrown).toBeInstanceOf(NodeApiError);
	expect(thrown).not.toBe(original);
	expect(thrown).toMatchObject({
		message: 'The server said no [item 4]',
		description: 'Try later. Items 0–3 were already sent.',
		context: { itemIndex: 4 },
	});
	expect(original.description).toBe('Try later.');
});

test('without a note, the error is thrown as the router would throw it: itself, naming its item', () => {
	const original = apiError();
	let thrown: unknown;
	try {
		itemOutput(batchContext(false), 6).fail(original, [{ itemIndex: 4 }]);
	} catch (error) {
		thrown = error;
	}
	expect(thrown).toBe(original);
	expect(original.message).toBe('The server said no [item 4]');
});

test('with continue-on-fail, each failed item gets its error item with its fields, in input order', () => {
	const output = itemOutput(batchContext(true), 3);
	output.succeed(0, [{ result: 'ok' }]);
	output.fail(
		apiError(),
		[1, 2].map((itemIndex) => ({ itemIndex, fields: { request: 2 } })),
		'never shown',
	);
	expect(output.items()).toEqual([
		{ json: { result: 'ok' }, pairedItem: { item: 0 } },
		...[1, 2].map((item) => ({
			json: { error: 'The server said no', description: 'Try later.', request: 2 },
			pairedItem: { item },
		})),
	]);
	// No `error` beside the json: n8n would keep only { error: message } of it, and move it to an error output.
	expect(output.items()[1]).not.toHaveProperty('error');
});

test('On Error "Continue (using error output)": each error item carries its n8n error, by which n8n moves it there', () => {
	const context = batchContext(true);
	context.getNode.mockReturnValue({ ...node, onError: 'continueErrorOutput' });
	const output = itemOutput(context, 2);
	const error = apiError();
	output.fail(error, [{ itemIndex: 0 }]);
	output.fail(new Error('plain'), [{ itemIndex: 1 }]);
	const [first, second] = output.items();
	expect(first).toEqual({
		json: { error: 'The server said no', description: 'Try later.' },
		error,
		pairedItem: { item: 0 },
	});
	// One that is not an n8n error is wrapped in a NodeOperationError naming its item.
	expect(second.error).toBeInstanceOf(NodeOperationError);
	expect(second.error).toMatchObject({ message: 'plain', context: { itemIndex: 1 } });
});

test.each([
	['chat', 'constructor', 'The operation "constructor" of "chat" is not supported'],
	['__proto__', 'get', 'The operation "get" of "__proto__" is not supported'],
])(
	'the router refuses %s > %s, even a name every object has',
	async (resource, operation, message) => {
		const context = batchContext(false);
		context.getInputData.mockReturnValue([{ json: {} }]);
		context.getNodeParameter.mockImplementation(
			(name: string) => ({ resource, operation })[name as 'resource'],
		);
		await expect(router.call(context, operations)).rejects.toThrow(message);
	},
);
