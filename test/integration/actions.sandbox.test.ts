// Every Svc Chat operation against a started sandbox, over loopback HTTP with n8n's real request stack; effects are
// checked through the sandbox's control.
import { NodeApiError, type INodeExecutionData, type INodeParameters } from 'n8n-workflow';

import { SvcChat } from '../../nodes/SvcChat/SvcChat.node';
import { toUtcDay } from '../../nodes/SvcChat/helpers/time';
import { createExecuteContext } from '../harness/contexts';
import { useSandbox } from '../harness/sandboxSuite';

const DAY_MS = 86_400_000;
const sandbox = useSandbox({ seed: 7, chats: 250 });

interface RunOptions {
	items?: INodeExecutionData[];
	continueOnFail?: boolean;
	timezone?: string;
}

async function run(
	parameters: INodeParameters | ((itemIndex: number) => INodeParameters),
	options: RunOptions = {},
) {
	const node = new SvcChat();
	const context = createExecuteContext({
		description: node.description,
		parameters,
		credentials: sandbox.credentials(),
		items: options.items,
		continueOnFail: options.continueOnFail,
		timezone: options.timezone,
	});
	const [output] = await node.execute.call(context);
	return output;
}

const items = (count: number): INodeExecutionData[] =>
	Array.from({ length: count }, (_, index) => ({ json: { index } }));
const requestsTo = (path: string) =>
	sandbox.control.requestLog().filter((entry) => entry.path === `/api/v2/${path}`);
const statusOf = (email: string) =>
	sandbox.control.getOperators().find((operator) => operator.email === email)?.status;

describe('Operator', () => {
	test('Get Many lists the seeded operators; filters match the sandbox state', async () => {
		const all = await run({ resource: 'operator', operation: 'getMany', returnAll: true });
		expect(all.map((item) => item.json)).toEqual(sandbox.control.getOperators());
		const online = await run({
			resource: 'operator',
			operation: 'getMany',
			returnAll: true,
			filters: { status: ['online'] },
		});
		const expected = sandbox.control
			.getOperators()
			.filter((operator) => operator.status === 'online');
		expect(online.map((item) => item.json.email)).toEqual(
			expected.map((operator) => operator.email),
		);
	});

	test('Set Status really changes the status; an unmet condition changes nothing and is a skipped item', async () => {
		expect(statusOf('anna@svc.test')).toBe('online');
		const output = await run({
			resource: 'operator',
			operation: 'setStatus',
			email: 'anna@svc.test',
			status: 'dinner',
		});
		expect(output[0].json).toEqual({ result: 'ok', email: 'anna@svc.test', status: 'dinner' });
		expect(statusOf('anna@svc.test')).toBe('dinner');

		const skipped = await run({
			resource: 'operator',
			operation: 'setStatus',
			email: 'anna@svc.test',
			status: 'invisible',
			options: { initialStatuses: ['online'] },
		});
		expect(skipped[0].json).toEqual({
			result: 'skipped',
			email: 'anna@svc.test',
			status: 'invisible',
			current_status: 'dinner',
		});
		expect(statusOf('anna@svc.test')).toBe('dinner');

		await run({
			resource: 'operator',
			operation: 'setStatus',
			email: 'anna@svc.test',
			status: 'pre-dinner',
			options: { initialStatuses: ['dinner'] },
		});
		expect(statusOf('anna@svc.test')).toBe('pre-dinner');
	});

	test('an unknown e-mail with continue-on-fail is an error item; the next item still changes its operator', async () => {
		const emails = ['nobody@svc.test', 'dmitri@svc.test'];
		const output = await run(
			(i) => ({ resource: 'operator', operation: 'setStatus', email: emails[i], status: 'online' }),
			{
				items: items(2),
				continueOnFail: true,
			},
		);
		expect(output[0].json.description).toContain('(Svc code: invalid-agent-email)');
		expect(output[0].pairedItem).toEqual({ item: 0 });
		expect(output[1].json).toEqual({ result: 'ok', email: 'dmitri@svc.test', status: 'online' });
		expect(statusOf('dmitri@svc.test')).toBe('online');
	});

	test('a status the tariff does not allow is refused with the reason', async () => {
		sandbox.control.setSettings({ allowedStatuses: ['online', 'offline'] });
		const error = await run({
			resource: 'operator',
			operation: 'setStatus',
			email: 'anna@svc.test',
			status: 'invisible',
		}).catch((e: Error) => e);
		expect(error).toBeInstanceOf(NodeApiError);
		expect((error as Error).message).toContain("not available on the account's tariff");
		expect(statusOf('anna@svc.test')).toBe('online');
	});

	test('an offline operator: the error says they are offline, not the tariff', async () => {
		const error = await run({
			resource: 'operator',
			operation: 'setStatus',
			email: 'boris@svc.test',
			status: 'dinner',
		}).catch((e: Error) => e);
		expect(error).toBeInstanceOf(NodeApiError);
		expect((error as Error).message).toBe(
			'This operator is offline, and Set operator status cannot change an offline operator [item 0]',
		);
		expect(statusOf('boris@svc.test')).toBe('offline');
	});
});

describe('Visitor', () => {
	test('Pair Token stores the pairing (generated token, coerced values), Remove Token removes it', async () => {
		const [paired] = await run({
			resource: 'visitor',
			operation: 'pairToken',
			visitorId: 'customer-1042',
			knownFields: { name: 'Jane Doe', email: 'jane@example.com' },
			customFields: {
				field: [
					{ name: 'orders', value: 12 },
					{ name: 'vip', value: true },
				],
			},
		});
		const token = paired.json.auth_token as string;
		expect(token).toMatch(/^[0-9a-f-]{36}$/);
		expect(paired.json.snippet).toBe(`window.svc_auth_token = "${token}";`);
		const stored = {
			id: 'customer-1042',
			name: 'Jane Doe',
			email: 'jane@example.com',
			orders: '12',
			vip: 'true',
		};
		expect(sandbox.control.pairings()).toEqual({ [token]: stored });
		expect(paired.json.visitor_fields).toEqual(stored);

		const [removed] = await run({
			resource: 'visitor',
			operation: 'removeToken',
			authToken: token,
		});
		expect(removed.json).toEqual({ auth_token: token, removed: true });
		expect(sandbox.control.pairings()).toEqual({});
	});

	test('JSON mode replaces the pairing of an existing token', async () => {
		await run({
			resource: 'visitor',
			operation: 'pairToken',
			authToken: 'tok-1',
			visitorId: 'v1',
			fieldsInputMode: 'json',
			fieldsJson: '{"name": "A"}',
		});
		await run({
			resource: 'visitor',
			operation: 'pairToken',
			authToken: 'tok-1',
			visitorId: 'v1',
			fieldsInputMode: 'json',
			fieldsJson: '{"login": "b", "site": "https://b.example"}',
		});
		expect(sandbox.control.pairings()).toEqual({
			'tok-1': { id: 'v1', login: 'b', site: 'https://b.example' },
		});
	});
});

describe('Broadcast', () => {
	const template = {
		resource: 'broadcast',
		operation: 'sendTemplate',
		operatorId: 1,
		channelId: 'wa-main',
		templateId: 'welcome_v2',
	};
	const phones = ['+15550000001', '+15550000002', '+19990000000', '+15550000004', '+15550000005'];

	test('Send Template records batched broadcasts with the right entries, in order', async () => {
		const output = await run(
			(i) => ({
				...template,
				phoneNumber: phones[i],
				bodyParameters: { parameter: [{ text: `Customer ${i}` }] },
				options: { recipientsPerRequest: 2 },
			}),
			{ items: items(5) },
		);
		const broadcasts = sandbox.control.broadcasts();
		expect(broadcasts).toHaveLength(3);
		expect(requestsTo('rt/send_broadcast')).toHaveLength(3);
		for (const broadcast of broadcasts) {
			expect(broadcast).toMatchObject({ operator_id: 1, kind: 'msgapp', channel_id: 'wa-main' });
			expect(broadcast.data.template_id).toBe('welcome_v2');
		}
		const entries = broadcasts.flatMap((broadcast) => broadcast.data.entries as object[]);
		expect(entries).toEqual(
			phones.map((phone, i) => ({
				phone_number: phone,
				language_code: 'en',
				body: { type: 'body', parameters: [{ type: 'text', text: `Customer ${i}` }] },
			})),
		);
		// The unregistered number is accepted but receives nothing (spec 4.3 rule 2).
		expect(broadcasts.flatMap((broadcast) => broadcast.delivered_to)).toEqual(
			phones.filter((phone) => phone !== '+19990000000'),
		);
		expect(output.map((item) => [item.pairedItem, item.json.request, item.json.result])).toEqual([
			[{ item: 0 }, 1, 'accepted'],
			[{ item: 1 }, 1, 'accepted'],
			[{ item: 2 }, 2, 'accepted'],
			[{ item: 3 }, 2, 'accepted'],
			[{ item: 4 }, 3, 'accepted'],
		]);
	});

	test('by default all items go in one broadcast', async () => {
		await run((i) => ({ ...template, phoneNumber: phones[i] }), { items: items(5) });
		const broadcasts = sandbox.control.broadcasts();
		expect(broadcasts).toHaveLength(1);
		expect(
			(broadcasts[0].data.entries as Array<{ phone_number: string }>).map(
				(entry) => entry.phone_number,
			),
		).toEqual(phones);
	});

	test('a 502 on a broadcast is not retried: one attempt, nothing recorded', async () => {
		sandbox.control.injectFault({ kind: '502', path: '/api/v2/rt/send_broadcast' });
		await expect(run({ ...template, phoneNumber: phones[0] })).rejects.toThrow('502');
		expect(requestsTo('rt/send_broadcast')).toHaveLength(1);
		expect(sandbox.control.broadcasts()).toEqual([]);
	});

	test('an inactive template with continue-on-fail marks every item of the request', async () => {
		const output = await run(
			(i) => ({ ...template, templateId: 'promo_old', phoneNumber: phones[i] }),
			{
				items: items(2),
				continueOnFail: true,
			},
		);
		expect(output.map((item) => [item.pairedItem, item.json.request])).toEqual([
			[{ item: 0 }, 1],
			[{ item: 1 }, 1],
		]);
		expect(output.every((item) => String(item.json.error).includes('template-not-active'))).toBe(
			true,
		);
		expect(sandbox.control.broadcasts()).toEqual([]);
	});

	test('Send Over Chat History records the payload as data.data', async () => {
		const payload = { text: 'We are back!', segment: 'closed-last-week' };
		const [item] = await run({
			resource: 'broadcast',
			operation: 'sendOverChatHistory',
			operatorId: 1,
			channelId: 'wa-main',
			payload: JSON.stringify(payload),
		});
		expect(item.json).toEqual({
			result: 'accepted',
			kind: 'history-chats',
			operator_id: 1,
			channel_id: 'wa-main',
		});
		expect(sandbox.control.broadcasts()).toEqual([
			expect.objectContaining({
				operator_id: 1,
				kind: 'history-chats',
				channel_id: 'wa-main',
				data: payload,
				delivered_to: [],
			}),
		]);
	});
});

describe('Chat', () => {
	const getMany = { resource: 'chat', operation: 'getMany', since: 'cursor', sinceCursor: '0' };

	test('Get Many with Return All pages over all 250 chats, each once, and gives the final cursor', async () => {
		const output = await run({
			...getMany,
			returnAll: true,
			output: 'raw',
			options: { includeCursor: true },
		});
		expect(output).toHaveLength(sandbox.control.chatCount());
		expect(new Set(output.map((item) => String(item.json.id))).size).toBe(250);
		expect(requestsTo('chats').length).toBeGreaterThanOrEqual(3);
		expect(new Set(output.map((item) => item.json.last_ts))).toEqual(
			new Set([String(sandbox.control.latestCursor())]),
		);
	});

	test('a limit reads one page only', async () => {
		const output = await run({ ...getMany, limit: 5 });
		expect(output).toHaveLength(5);
		expect(requestsTo('chats')).toHaveLength(1);
	});

	test('from a saved cursor only the changed chat comes, in its new version', async () => {
		const first = await run({ ...getMany, returnAll: true, options: { includeCursor: true } });
		const cursor = first[0].json.last_ts as string;
		const someId = first[17].json.id as string | number;
		const changed = sandbox.control.updateChat(someId);
		const next = await run({ ...getMany, sinceCursor: cursor, returnAll: true });
		expect(next.map((item) => [item.json.id, item.json.message_count])).toEqual([
			[someId, changed.messages!.length],
		]);
	});

	test('since a date gives only the chats changed after it', async () => {
		// A second back, so the new change cannot share the cursor's microsecond; nothing else changed since the reset.
		const before = new Date(Date.now() - 1000).toISOString();
		const [added] = sandbox.control.addChats(1);
		const output = await run({
			resource: 'chat',
			operation: 'getMany',
			sinceDate: before,
			returnAll: true,
			output: 'raw',
		});
		expect(output.map((item) => item.json)).toEqual([added]);
	});

	test('Get returns the chat the sandbox holds, for a number and a GUID id, in every output mode', async () => {
		const chats = await run({ ...getMany, returnAll: true, output: 'raw' });
		const guidId = chats.map((item) => item.json.id).find((id) => typeof id === 'string') as string;
		const numberId = chats
			.map((item) => item.json.id)
			.find((id) => typeof id === 'number') as number;
		expect(guidId).toBeDefined();
		expect(numberId).toBeDefined();
		for (const id of [guidId, numberId]) {
			const [raw] = await run({
				resource: 'chat',
				operation: 'get',
				chatId: String(id),
				output: 'raw',
			});
			expect(raw.json).toEqual(sandbox.control.getChat(id));
		}
		const chat = sandbox.control.getChat(guidId)!;
		const [simple] = await run({ resource: 'chat', operation: 'get', chatId: guidId });
		expect(simple.json).toMatchObject({
			id: guidId,
			message_count: chat.messages!.length,
			visitor_id: chat.visitor!.id,
		});
		// Issue 65: Simplified gives a numeric id as text too, and names the chat's operator.
		const [numbered] = await run({ resource: 'chat', operation: 'get', chatId: String(numberId) });
		const operatorId = sandbox.control.getChat(numberId)!.operator_id;
		const operator = sandbox.control.getOperators().find((one) => one.id === operatorId);
		expect(numbered.json).toMatchObject({
			id: String(numberId),
			operator_id: operatorId,
			operator_name: operator?.full_name ?? null,
		});
		const rows = await run({
			resource: 'chat',
			operation: 'get',
			chatId: guidId,
			output: 'messages',
		});
		expect(rows.map((row) => row.json.message_id)).toEqual(
			chat.messages!.map((message) => message.id),
		);
	});

	test('Get Many with Transcript: every chat as text, operators by name, one GET /operators', async () => {
		const output = await run(
			{ ...getMany, returnAll: true, output: 'transcript' },
			{ timezone: 'Asia/Tokyo' },
		);
		expect(output).toHaveLength(250);
		expect(requestsTo('operators')).toHaveLength(1);
		const names = sandbox.control.getOperators().map((operator) => operator.full_name);
		const tokyo = new Intl.DateTimeFormat('sv-SE', {
			timeZone: 'Asia/Tokyo',
			dateStyle: 'short',
			timeStyle: 'medium',
		});
		const tags = new Set<string>();
		for (const { json } of output) {
			const chat = sandbox.control.getChat(json.id as string | number)!;
			const [header, ...lines] = (json.transcript as string).split('\n');
			expect(header).toBe(`Chat ${String(chat.id)}, times in Asia/Tokyo`);
			expect(lines).toHaveLength(chat.messages!.length);
			for (const [index, line] of lines.entries()) {
				const message = chat.messages![index];
				expect(line.startsWith(`[${tokyo.format(new Date(message.created_at))}] `)).toBe(true);
				const tag = /^\[[^\]]+\] [^:]+: \[([^\]]+)\]/.exec(line)?.[1];
				if (tag) tags.add(tag);
				if (['operator', 'file_operator'].includes(message.kind))
					expect(names.some((name) => line.includes(`] ${name} (operator): `))).toBe(true);
			}
			expect(json.transcript).not.toMatch(/\[object Object\]|Operator \d+:/);
		}
		// The sandbox's chats hold every kind of spec 2.5 (sandbox/data.ts).
		expect([...tags].sort()).toEqual([
			'button chosen',
			'buttons offered',
			'contacts',
			'contacts request',
			'event',
			'file',
			'info',
			'note for the operator',
			'operator busy',
		]);
	});

	test('Get with an unknown id says "chat not found"', async () => {
		await expect(
			run({ resource: 'chat', operation: 'get', chatId: 'no-such-chat' }),
		).rejects.toThrow('Chat "no-such-chat" not found');
	});
});

describe('Department and Tariff', () => {
	test('Get Many lists the seeded departments and tariffs', async () => {
		const departments = await run({
			resource: 'department',
			operation: 'getMany',
			returnAll: true,
		});
		expect(departments.map((item) => item.json.name)).toEqual(['Sales', 'Support', 'Billing']);
		const tariffs = await run({ resource: 'tariff', operation: 'getMany', returnAll: true });
		expect(tariffs.map((item) => item.json.key)).toEqual(['basic', 'business', 'enterprise']);
		expect(tariffs[0].json.discounts).toBeNull();
		const limited = await run({ resource: 'tariff', operation: 'getMany', limit: 2 });
		expect(limited).toHaveLength(2);
	});
});

describe('Statistics', () => {
	test('a usage range makes one request per day, and its contacts add up to every seeded chat', async () => {
		const today = toUtcDay(Date.now())!;
		const from = toUtcDay(Date.now() - 32 * DAY_MS)!;
		const output = await run({
			resource: 'statistics',
			operation: 'getUsage',
			dateMode: 'range',
			dateFrom: from,
			dateTo: today,
		});
		expect(output).toHaveLength(33);
		expect(output[0].json.date).toBe(from);
		expect(output[32].json.date).toBe(today);
		expect(requestsTo('stats').map((entry) => entry.query)).toEqual(
			output.map((item) => ({ date: item.json.date, mode: 'usage' })),
		);
		const contacts = output.reduce((sum, item) => sum + (item.json.contacts as number), 0);
		expect(contacts).toBe(sandbox.control.chatCount());
	});

	test('operator stats give one item per operator, tagged with the date', async () => {
		const day = toUtcDay(Date.now() - DAY_MS)!;
		const output = await run({ resource: 'statistics', operation: 'getOperatorStats', date: day });
		expect(output.map((item) => item.json.operator_id)).toEqual(
			sandbox.control.getOperators().map((operator) => operator.id),
		);
		expect(
			output.every((item) => item.json.date === day && typeof item.json.online_time === 'number'),
		).toBe(true);
		expect(requestsTo('stats')).toEqual([
			expect.objectContaining({ query: { date: day, mode: 'operators' }, status: 200 }),
		]);
	});
});
