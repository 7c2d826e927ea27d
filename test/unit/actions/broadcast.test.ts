// Broadcast resource: Send Template batches recipients into entries (never one request per item), Send Over Chat History.
import { NodeApiError, NodeOperationError, type INodeParameters } from 'n8n-workflow';

import { SvcChat } from '../../../nodes/SvcChat/SvcChat.node';
import { createExecuteContext, testCredentials } from '../../harness/contexts';
import { HOST } from '../../harness/fixtures';
import { items, runNode, runNodeError, svc } from './runNode';

const PATH = '/api/v2/rt/send_broadcast';
const sender = { operatorId: 7, channelId: 'wa-main', templateId: 'welcome_v2' };
const sendTemplate = { resource: 'broadcast', operation: 'sendTemplate', ...sender };
const phone = (itemIndex: number) => `+1555${String(itemIndex).padStart(7, '0')}`;

interface SentBody {
	operator_id: number;
	data: {
		kind: string;
		channel_id: string;
		data: { template_id: string; entries: Array<Record<string, unknown>> };
	};
}

/** Captures every send_broadcast body; replies come from `reply` (ok by default). */
function captureBroadcasts(
	times: number,
	reply: (index: number) => [number, object] = () => [200, { result: 'ok' }],
) {
	const bodies: SentBody[] = [];
	svc()
		.post(PATH, (body) => {
			bodies.push(body as SentBody);
			return true;
		})
		.times(times)
		.reply(() => reply(bodies.length - 1));
	return bodies;
}

const recipient =
	(extra: INodeParameters = {}) =>
	(itemIndex: number): INodeParameters => ({
		...sendTemplate,
		phoneNumber: phone(itemIndex),
		...extra,
	});

describe('Broadcast > Send Template', () => {
	test('a few items go in one request by default, in input order, each output paired with its item', async () => {
		const bodies = captureBroadcasts(1);
		const output = await runNode(recipient(), { items: items(3) });
		expect(bodies).toEqual([
			{
				operator_id: 7,
				data: {
					kind: 'msgapp',
					channel_id: 'wa-main',
					data: {
						template_id: 'welcome_v2',
						entries: [0, 1, 2].map((i) => ({ phone_number: phone(i), language_code: 'en' })),
					},
				},
			},
		]);
		expect(output).toEqual(
			[0, 1, 2].map((i) => ({
				json: {
					result: 'accepted',
					request: 1,
					requests: 1,
					recipients_in_request: 3,
					phone_number: phone(i),
					language_code: 'en',
					template_id: 'welcome_v2',
					channel_id: 'wa-main',
					operator_id: 7,
				},
				pairedItem: { item: i },
			})),
		);
	});

	test('by default at most 1,000 recipients go in one request: 1,001 items make 1,000 + 1', async () => {
		const bodies = captureBroadcasts(2);
		const output = await runNode(recipient(), { items: items(1001) });
		expect(bodies.map((body) => body.data.data.entries.length)).toEqual([1000, 1]);
		const sentPhones = bodies.flatMap((body) =>
			body.data.data.entries.map((entry) => entry.phone_number),
		);
		expect(sentPhones).toEqual(Array.from({ length: 1001 }, (_, i) => phone(i)));
		expect(output.map((item) => item.json.request)).toEqual(
			Array.from({ length: 1001 }, (_, i) => (i < 1000 ? 1 : 2)),
		);
	});

	test('Recipients per Request 0 puts every item in one request', async () => {
		const bodies = captureBroadcasts(1);
		const output = await runNode(recipient({ options: { recipientsPerRequest: 0 } }), {
			items: items(1001),
		});
		expect(bodies.map((body) => body.data.data.entries.length)).toEqual([1001]);
		expect(output).toHaveLength(1001);
	});

	test('250 items with 100 recipients per request make exactly 3 requests, recipients in order', async () => {
		const bodies = captureBroadcasts(3);
		const output = await runNode(recipient({ options: { recipientsPerRequest: 100 } }), {
			items: items(250),
		});
		expect(bodies).toHaveLength(3);
		expect(bodies.map((body) => body.data.data.entries.length)).toEqual([100, 100, 50]);
		const sentPhones = bodies.flatMap((body) =>
			body.data.data.entries.map((entry) => entry.phone_number),
		);
		expect(sentPhones).toEqual(Array.from({ length: 250 }, (_, i) => phone(i)));
		expect(output).toHaveLength(250);
		output.forEach((item, i) => {
			expect(item.pairedItem).toEqual({ item: i });
			expect(item.json.phone_number).toBe(phone(i));
			expect(item.json.request).toBe(Math.floor(i / 100) + 1);
			expect(item.json.requests).toBe(3);
		});
	});

	test('the credentials are read once for all the requests', async () => {
		const bodies = captureBroadcasts(3);
		const node = new SvcChat();
		const context = createExecuteContext({
			description: node.description,
			parameters: recipient({ options: { recipientsPerRequest: 2 } }),
			credentials: testCredentials(HOST),
			items: items(5),
		});
		await node.execute.call(context);
		expect(bodies).toHaveLength(3);
		expect(context.getCredentials).toHaveBeenCalledTimes(1);
	});

	test('header, body and footer parameters become body parts in template order', async () => {
		const bodies = captureBroadcasts(3);
		const header = { parameter: [{ type: 'image', text: 'https://example.com/a.png' }] };
		const body = { parameter: [{ text: 'Jane' }, { text: 42 }] };
		const footer = { parameter: [{ text: 'Bye' }] };
		await runNode(recipient({ languageCode: 'pt_BR', bodyParameters: body }));
		await runNode(
			recipient({ headerParameters: header, bodyParameters: body, footerParameters: footer }),
		);
		await runNode(recipient({ footerParameters: footer }));
		expect(bodies[0].data.data.entries[0]).toEqual({
			phone_number: phone(0),
			language_code: 'pt_BR',
			body: {
				type: 'body',
				parameters: [
					{ type: 'text', text: 'Jane' },
					{ type: 'text', text: '42' },
				],
			},
		});
		expect(bodies[1].data.data.entries[0].body).toEqual([
			{ type: 'header', parameters: [{ type: 'image', text: 'https://example.com/a.png' }] },
			{
				type: 'body',
				parameters: [
					{ type: 'text', text: 'Jane' },
					{ type: 'text', text: '42' },
				],
			},
			{ type: 'footer', parameters: [{ text: 'Bye' }] },
		]);
		expect(bodies[2].data.data.entries[0].body).toEqual({
			type: 'footer',
			parameters: [{ text: 'Bye' }],
		});
	});

	test('items with a different template (from an expression) go in a request of their own', async () => {
		const bodies = captureBroadcasts(2);
		const templates = ['welcome_v2', 'promo', 'welcome_v2'];
		const output = await runNode((i) => ({ ...recipient()(i), templateId: templates[i] }), {
			items: items(3),
		});
		expect(
			bodies.map((b) => [b.data.data.template_id, b.data.data.entries.map((e) => e.phone_number)]),
		).toEqual([
			['welcome_v2', [phone(0), phone(2)]],
			['promo', [phone(1)]],
		]);
		expect(output.map((item) => [item.pairedItem, item.json.request])).toEqual([
			[{ item: 0 }, 1],
			[{ item: 1 }, 2],
			[{ item: 2 }, 1],
		]);
	});

	test('a failed request is never retried', async () => {
		captureBroadcasts(1, () => [502, {}]);
		const error = await runNodeError(recipient(), { items: items(2) });
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toContain('502');
	});

	test('with continue-on-fail a failed request marks all its items, the other requests still go', async () => {
		const bodies = captureBroadcasts(3, (index) =>
			index === 1 ? [200, { error: 'parsing-error' }] : [200, { result: 'ok' }],
		);
		const output = await runNode(recipient({ options: { recipientsPerRequest: 2 } }), {
			items: items(5),
			continueOnFail: true,
		});
		expect(bodies).toHaveLength(3);
		expect(output.map((item) => item.pairedItem)).toEqual(
			[0, 1, 2, 3, 4].map((item) => ({ item })),
		);
		expect(output.map((item) => item.json.result ?? 'failed')).toEqual([
			'accepted',
			'accepted',
			'failed',
			'failed',
			'accepted',
		]);
		expect(output[2].json).toEqual({
			error: expect.stringContaining('template parameters are malformed'),
			description: expect.any(String),
			request: 2,
			requests: 3,
			phone_number: phone(2),
		});
	});

	test('without continue-on-fail a failed later request says which items were already sent', async () => {
		captureBroadcasts(2, (index) =>
			index === 1
				? [200, { error: 'missing-argument', argument: 'phone_number' }]
				: [200, { result: 'ok' }],
		);
		const error = await runNodeError(recipient({ options: { recipientsPerRequest: 2 } }), {
			items: items(4),
		});
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toContain('argument: "phone_number"');
		expect(error.description).toContain(
			'2 recipient(s) were already sent in earlier requests (items 0–1)',
		);
		expect(error.context?.itemIndex).toBe(2);
	});

	// Issue 65: three items, the second no phone number, the third the first again.
	const ISSUE_PHONES = ['+15551230001', '555-CALL-ME', '+15551230001'];

	test('a phone number with letters fails the run before anything is sent, naming the field and the fix', async () => {
		const error = await runNodeError((i) => recipient({ phoneNumber: ISSUE_PHONES[i] })(i), {
			items: items(3),
		});
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.message).toBe(`'Phone Number' is not a phone number ("555-CALL-ME") [item 1]`);
		expect(error.description).toContain('Give its digits, e.g. +15550000001');
	});

	test.each(['', '+', '()', '+1 555 CALL', '15551230001x'])(
		'%j is no phone number: its item fails alone with Continue On Fail, the others go',
		async (bad) => {
			const bodies = captureBroadcasts(1);
			const output = await runNode((i) => recipient({ phoneNumber: i === 1 ? bad : phone(i) })(i), {
				items: items(3),
				continueOnFail: true,
			});
			expect(bodies[0].data.data.entries.map((entry) => entry.phone_number)).toEqual([
				phone(0),
				phone(2),
			]);
			expect(output[1].json.error).toMatch(/^'Phone Number' is (empty|not a phone number)/);
			expect(output.map((item) => item.json.result ?? 'failed')).toEqual([
				'accepted',
				'failed',
				'accepted',
			]);
		},
	);

	test('a repeat (same phone number, template, language and parameters) is not sent again: its item says it was merged into which', async () => {
		const bodies = captureBroadcasts(1);
		const output = await runNode((i) => recipient({ phoneNumber: ISSUE_PHONES[i] })(i), {
			items: items(3),
			continueOnFail: true,
		});
		expect(bodies[0].data.data.entries).toEqual([
			{ phone_number: '+15551230001', language_code: 'en' },
		]);
		expect(output[0].json).toMatchObject({ result: 'accepted', recipients_in_request: 1 });
		expect(output[1].json.error).toContain('is not a phone number');
		expect(output[2]).toEqual({
			json: { ...output[0].json, result: 'merged', merged_into_item: 0 },
			pairedItem: { item: 2 },
		});
	});

	test('the same number written otherwise is a repeat; another language, template or parameter is not', async () => {
		const bodies = captureBroadcasts(2);
		const variants: INodeParameters[] = [
			{ phoneNumber: '+1 555 123-0001' },
			{ phoneNumber: '+1 (555) 123.0001' },
			{ phoneNumber: '+15551230001', languageCode: 'de' },
			{ phoneNumber: '+15551230001', bodyParameters: { parameter: [{ text: 'Jane' }] } },
			{ phoneNumber: '+15551230001', templateId: 'reminder_v1' },
		];
		const output = await runNode((i) => recipient(variants[i])(i), { items: items(5) });
		expect(bodies.map((body) => body.data.data.entries.length)).toEqual([3, 1]);
		expect(output.map((item) => item.json.merged_into_item ?? null)).toEqual([
			null,
			0,
			null,
			null,
			null,
		]);
		expect(output[1].json.phone_number).toBe('+1 (555) 123.0001');
	});

	test('a failed request fails the items merged into its recipients too', async () => {
		captureBroadcasts(1, () => [200, { error: 'parsing-error' }]);
		const output = await runNode((i) => recipient({ phoneNumber: phone(i % 2) })(i), {
			items: items(3),
			continueOnFail: true,
		});
		expect(
			output.map((item) => [item.pairedItem, item.json.phone_number, item.json.error]),
		).toEqual(
			[0, 1, 2].map((item) => [
				{ item },
				phone(item % 2),
				expect.stringContaining('template parameters are malformed'),
			]),
		);
	});

	test('the notice says what a repeat is, and that nobody gets the message twice in one run', () => {
		const notice = new SvcChat().description.properties.find(
			(property) => property.name === 'batchingNotice',
		)!;
		expect(notice.displayName).toContain(
			'An item with the same phone number, template, language and parameters as an earlier one is not sent again',
		);
		expect(notice.displayName).toContain('nobody gets the message twice in one run');
	});

	test('a bad recipient fails the whole run before anything is sent', async () => {
		const error = await runNodeError(
			(i) => recipient({ phoneNumber: i === 1 ? ' ' : phone(i) })(i),
			{ items: items(3) },
		);
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.message).toBe("'Phone Number' is empty [item 1]");
		expect(error.context?.itemIndex).toBe(1);
	});

	test('with continue-on-fail a bad recipient fails alone and is not sent', async () => {
		const bodies = captureBroadcasts(1);
		const output = await runNode((i) => recipient({ phoneNumber: i === 1 ? '' : phone(i) })(i), {
			items: items(3),
			continueOnFail: true,
		});
		expect(bodies[0].data.data.entries.map((entry) => entry.phone_number)).toEqual([
			phone(0),
			phone(2),
		]);
		expect(output[1]).toEqual({
			json: {
				error: "'Phone Number' is empty",
				description: expect.stringContaining('phone number'),
			},
			pairedItem: { item: 1 },
		});
		expect(output[0].json.recipients_in_request).toBe(2);
		expect(output[2].pairedItem).toEqual({ item: 2 });
	});

	test.each([
		['an empty template ID', { templateId: '' }, "'Template ID' is empty"],
		[
			'an operator ID of 0',
			{ operatorId: 0 },
			"'Operator' must be a whole number of 1 or more (0)",
		],
		['an empty channel', { channelId: '' }, "'Channel ID' is empty"],
		['an empty language', { languageCode: '' }, "'Language Code' is empty"],
		[
			'an empty body parameter',
			{ bodyParameters: { parameter: [{ text: 'a' }, { text: '' }] } },
			"'Body Parameters, parameter 2' is empty",
		],
		[
			'an object as parameter',
			{ footerParameters: { parameter: [{ text: { a: 1 } }] } },
			"'Footer Parameters, parameter 1' must be text",
		],
		[
			'an unknown header type',
			{ headerParameters: { parameter: [{ type: 'sticker', text: 'x' }] } },
			`'Header Parameters, parameter 1' has the type "sticker"`,
		],
		[
			'a negative batch size',
			{ options: { recipientsPerRequest: -1 } },
			"'Recipients per Request' must be a whole number of 0 or more",
		],
	])('%s is a parameter error naming the field', async (_case, extra, message) => {
		const error = await runNodeError(recipient(extra as INodeParameters));
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.message).toContain(message);
	});

	test('with continue-on-fail, a bad batch size fails every item and sends nothing', async () => {
		const output = await runNode(recipient({ options: { recipientsPerRequest: 2.5 } }), {
			items: items(2),
			continueOnFail: true,
		});
		expect(output).toHaveLength(2);
		output.forEach((item, itemIndex) => {
			expect(item.pairedItem).toEqual({ item: itemIndex });
			expect(item.json.error).toContain(
				"'Recipients per Request' must be a whole number of 0 or more (2.5)",
			);
			expect(item.json.description).toBe('Use 0 to send all items in one request.');
		});
	});

	test('an operator ID given as digits (from an expression) is sent as a number', async () => {
		const bodies = captureBroadcasts(1);
		await runNode(recipient({ operatorId: '12' as never }));
		expect(bodies[0].operator_id).toBe(12);
	});
});

describe('Broadcast > Send Over Chat History', () => {
	const history = {
		resource: 'broadcast',
		operation: 'sendOverChatHistory',
		operatorId: 7,
		channelId: 'wa-main',
	};

	test('sends the payload as data.data of kind history-chats, one request per item', async () => {
		const payload = { text: 'Hello again', filter: { closed_after: '2024-05-01' } };
		svc()
			.post(PATH, {
				operator_id: 7,
				data: { kind: 'history-chats', channel_id: 'wa-main', data: payload },
			})
			.times(2)
			.reply(200, { result: 'ok' });
		const output = await runNode(
			{ ...history, payload: JSON.stringify(payload) },
			{ items: items(2) },
		);
		expect(output).toEqual(
			[0, 1].map((item) => ({
				json: { result: 'accepted', kind: 'history-chats', operator_id: 7, channel_id: 'wa-main' },
				pairedItem: { item },
			})),
		);
	});

	test.each([
		['a list', '[1, 2]', "'Payload (JSON)' must be a JSON object"],
		['null', 'null', "'Payload (JSON)' must be a JSON object"],
		['broken JSON', '{"text": ', "'Payload (JSON)' is not valid JSON"],
	])('a payload that is %s is refused before sending', async (_case, payload, message) => {
		const error = await runNodeError({ ...history, payload });
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.message).toContain(message);
	});

	test('unknown-broadcast-kind with continue-on-fail becomes an error item', async () => {
		svc().post(PATH).reply(200, { error: 'unknown-broadcast-kind' });
		const output = await runNode({ ...history, payload: '{}' }, { continueOnFail: true });
		expect(output).toEqual([
			{
				json: {
					error: expect.stringContaining('broadcast kind is not valid'),
					description: expect.any(String),
				},
				pairedItem: { item: 0 },
			},
		]);
	});
});
