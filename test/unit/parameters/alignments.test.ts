// The behaviours issue 18 aligns: a fractional Limit is refused, a bad Max Chats per Poll is an error, digits count as numbers everywhere.
import { NodeOperationError, type INodeParameters } from 'n8n-workflow';

import { SvcChatTrigger } from '../../../nodes/SvcChat/SvcChatTrigger.node';
import { readTriggerSettings } from '../../../nodes/SvcChat/trigger/description';
import { createPollContext, testCredentials } from '../../harness/contexts';
import { runNode, runNodeError, svc } from '../actions/runNode';
import { HOST, triggerHarness } from '../trigger/fixtures';

describe('Limit 2.5 is refused, as positive whole numbers are everywhere (it used to become 2)', () => {
	const departments = [1, 2, 3].map((id) => ({ id, name: `D${id}`, order: id }));

	test.each([2.5, 0.5, 1e21, -2, '2.5'])(
		'Department > Get Many with Limit %p fails naming Limit and the fix',
		async (limit) => {
			svc().get('/api/v2/departments').reply(200, departments);
			const error = await runNodeError({
				resource: 'department',
				operation: 'getMany',
				limit: limit as number,
			});
			expect(error).toBeInstanceOf(NodeOperationError);
			expect(error.message).toMatch(/^'Limit' must be a whole number of 1 or more \(/);
			expect(error.description).toBe("Set a positive limit, or turn on 'Return All'.");
			expect(error.context?.itemIndex).toBe(0);
		},
	);

	test('Chat > Get Many with Limit 2.5 fails before any request', async () => {
		// No request is mocked: one sent would fail as a NodeApiError instead.
		const error = await runNodeError({
			resource: 'chat',
			operation: 'getMany',
			sinceDate: '2024-05-01T00:00:00Z',
			limit: 2.5,
		});
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.message).toBe("'Limit' must be a whole number of 1 or more (2.5) [item 0]");
	});

	test('a whole Limit, also typed as digits, still limits', async () => {
		svc().get('/api/v2/departments').times(2).reply(200, departments);
		const parameters = { resource: 'department', operation: 'getMany' };
		expect(await runNode({ ...parameters, limit: 2 })).toHaveLength(2);
		expect(await runNode({ ...parameters, limit: ' 1 ' as never })).toHaveLength(1);
	});
});

describe('a bad Max Chats per Poll is an error naming the field (it used to fall back to 1,000 silently)', () => {
	const withMax = (maxChatsPerPoll: unknown): INodeParameters => ({
		startFrom: 'beginning',
		options: { maxChatsPerPoll } as INodeParameters,
	});

	test.each([
		[2.5, "'Max Chats per Poll' must be a whole number of 1 or more (2.5)"],
		[0, "'Max Chats per Poll' must be a whole number of 1 or more (0)"],
		[-3, "'Max Chats per Poll' must be a whole number of 1 or more (-3)"],
		['many', `'Max Chats per Poll' must be a whole number of 1 or more ("many")`],
		[{ a: 1 }, "'Max Chats per Poll' must be a whole number of 1 or more"],
		['', "'Max Chats per Poll' is empty"],
	])('%p: the poll fails before any request and the cursor stays', async (value, message) => {
		const staticData = {};
		const error = await triggerHarness(withMax(value), staticData)
			.poll()
			.then(
				() => undefined,
				(caught: unknown) => caught as NodeOperationError,
			);
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error?.message).toBe(message);
		expect(error?.description).toBe(
			'Set a whole number of 1 or more, or remove the option to read up to 1,000 chats per poll.',
		);
		expect(staticData).toEqual({});
	});

	test.each([
		[{}, 1000],
		[{ maxChatsPerPoll: 150 }, 150],
		[{ maxChatsPerPoll: ' 150 ' }, 150],
	])('options %p read as %p chats per poll', (options, expected) => {
		const context = createPollContext({
			description: new SvcChatTrigger().description,
			parameters: { startFrom: 'beginning', options: options as INodeParameters },
			credentials: testCredentials(HOST),
			staticData: {},
		});
		expect(readTriggerSettings(context).maxChatsPerPoll).toBe(expected);
	});
});

test('Recipients per Request given as digits by an expression counts, as other whole-number fields do', async () => {
	let requests = 0;
	svc()
		.post('/api/v2/rt/send_broadcast', () => ++requests > 0)
		.times(2)
		.reply(200, { result: 'ok' });
	const output = await runNode(
		(itemIndex) => ({
			resource: 'broadcast',
			operation: 'sendTemplate',
			operatorId: 7,
			channelId: 'wa-main',
			templateId: 'welcome_v2',
			phoneNumber: `+1555000000${itemIndex}`,
			options: { recipientsPerRequest: '2' as never },
		}),
		{ items: [{ json: {} }, { json: {} }, { json: {} }] },
	);
	expect(requests).toBe(2);
	expect(output.map((item) => item.json.recipients_in_request)).toEqual([2, 2, 1]);
});
