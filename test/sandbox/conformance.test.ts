// Conformance: walks spec svc-api-v2 section by section against the sandbox over loopback, checking every reply exactly.
import { REGISTERED_PHONES, startSandbox, type Sandbox } from '../../sandbox';
import type { Chat, ChatsReply } from '../../nodes/SvcChat/types';
import { call, get, manualClock, rt, type RawReply } from './client';

const START = '2025-03-10T12:00:00.000Z';
const clock = manualClock(START);
let sandbox: Sandbox;

beforeAll(async () => {
	sandbox = await startSandbox({ seed: 3, chats: 40, now: clock.now });
});
afterAll(async () => await sandbox.stop());
beforeEach(() => {
	clock.set(START);
	sandbox.control.reset();
});

/** Status and parsed body, compared as a whole, plus the JSON content type. */
function expectReply(reply: RawReply, status: number, json: unknown): void {
	expect({ status: reply.status, json: reply.json }).toEqual({ status, json });
	expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
}

const OK = { result: 'ok' };

const stringOrNull = (value: unknown) => value === null || typeof value === 'string';

async function allChats(target: Sandbox = sandbox): Promise<Chat[]> {
	const chats: Chat[] = [];
	let since: string | number = 0;
	for (;;) {
		const page = (await get(target, 'chats', { since: String(since) })).json as ChatsReply;
		chats.push(...page.chats);
		since = page.last_ts;
		if (!page.more_chats_available) return chats;
	}
}

describe('2. Resources: the seeded data has every documented shape', () => {
	let demo: Sandbox;
	let chats: Chat[];
	beforeAll(async () => {
		demo = await startSandbox({ seed: 9, chats: 10 });
		chats = await allChats(demo);
	});
	afterAll(async () => await demo.stop());

	test('a 10-chat demo covers every message kind of 2.5', () => {
		const kinds = new Set(chats.flatMap((chat) => chat.messages!.map((message) => message.kind)));
		expect([...kinds].sort()).toEqual(
			[
				'contacts',
				'contacts_request',
				'events',
				'file_operator',
				'file_visitor',
				'for_operator',
				'info',
				'keyboard',
				'keyboard_response',
				'operator',
				'operator_busy',
				'visitor',
			].sort(),
		);
	});

	test('2.4 chat fields: integer and GUID ids, null categories, rates, state histories, visitors with and without fields', () => {
		expect(chats).toHaveLength(10);
		expect(chats.some((chat) => Number.isInteger(chat.id))).toBe(true);
		expect(
			chats.some(
				(chat) =>
					typeof chat.id === 'string' &&
					/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(chat.id),
			),
		).toBe(true);
		expect(chats.some((chat) => chat.category === null)).toBe(true);
		expect(chats.some((chat) => typeof chat.category === 'string')).toBe(true);
		expect(chats.some((chat) => chat.state_history === null)).toBe(true);
		expect(chats.some((chat) => chat.state_history?.at(-1)?.state === 'closed')).toBe(true);
		expect(
			chats.some((chat) => chat.state_history && chat.state_history.at(-1)?.state !== 'closed'),
		).toBe(true);
		expect(chats.some((chat) => Object.keys(chat.visitor!.fields!).length === 0)).toBe(true);
		expect(chats.some((chat) => Object.keys(chat.visitor!.fields!).length > 0)).toBe(true);
		expect(chats.some((chat) => chat.rates!.length > 0)).toBe(true);
		expect(chats.some((chat) => chat.rates!.length === 0)).toBe(true);
		for (const chat of chats) {
			expect(Number.isNaN(Date.parse(chat.created_at))).toBe(false);
			expect(chat.created_at.endsWith('Z')).toBe(true);
			expect(Number.isInteger(chat.operator_id)).toBe(true);
			expect(typeof chat.visitor!.id).toBe('string');
			expect(typeof chat.start_page!.url).toBe('string');
			expect(Object.keys(chat.visit_session!).sort()).toEqual(['ip', 'landing_page']);
			expect(stringOrNull(chat.visit_session!.ip)).toBe(true);
			expect(stringOrNull(chat.visit_session!.landing_page!.url)).toBe(true);
			for (const value of Object.values(chat.visitor!.fields!)) expect(typeof value).toBe('string');
			for (const key of Object.keys(chat.visitor!.fields!)) {
				expect(['email', 'id', 'icq', 'login', 'name', 'phone', 'profile_url', 'site']).toContain(
					key,
				);
			}
			for (const rate of chat.rates!) {
				expect(rate).toEqual({
					rate: expect.any(Number),
					operator_id: expect.any(Number),
					created_at: expect.any(String),
				});
				expect(rate.rate).toBeGreaterThanOrEqual(1);
				expect(rate.rate).toBeLessThanOrEqual(5);
			}
			for (const entry of chat.state_history ?? []) {
				expect(['queue', 'chatting', 'closed']).toContain(entry.state);
				expect(Object.keys(entry).sort()).toEqual(['at', 'department_id', 'operator_id', 'state']);
				expect(entry.operator_id === null || Number.isInteger(entry.operator_id)).toBe(true);
				expect([null, 1, 2, 3]).toContain(entry.department_id);
				expect(Number.isNaN(Date.parse(entry.at))).toBe(false);
			}
		}
	});

	test('2.5 message members by kind', () => {
		const messages = chats.flatMap((chat) => chat.messages!);
		expect(new Set(messages.map((message) => message.id)).size).toBe(messages.length);
		for (const message of messages) {
			expect(typeof message.id).toBe('string');
			if (
				['operator', 'file_operator', 'keyboard', 'contacts_request', 'operator_busy'].includes(
					message.kind,
				)
			) {
				expect(Number.isInteger(message.operator_id)).toBe(true);
			} else {
				expect(message.operator_id).toBeUndefined();
			}
			if (message.kind === 'contacts') {
				expect(message.message).toEqual({
					name: expect.any(String),
					phone: expect.any(String),
					email: expect.any(String),
				});
			} else {
				expect(typeof message.message).toBe('string');
			}
			if (message.kind === 'file_operator' || message.kind === 'file_visitor') {
				expect(message.data).toEqual({
					guid: expect.any(String),
					content_type: expect.any(String),
					filename: expect.any(String),
				});
			} else if (message.kind === 'keyboard' || message.kind === 'keyboard_response') {
				expect(message.data).toEqual({
					id: expect.any(String),
					buttonId: expect.any(String),
					messageId: expect.any(String),
				});
			} else {
				expect(message.data).toBeUndefined();
			}
		}
	});

	test('seeded chats lie in the 30 days before the start, and the same seed gives the same data', async () => {
		const fixed = () => new Date(START);
		const [a, b, c] = await Promise.all([
			startSandbox({ seed: 5, chats: 30, now: fixed }),
			startSandbox({ seed: 5, chats: 30, now: fixed }),
			startSandbox({ seed: 6, chats: 30, now: fixed }),
		]);
		try {
			const [chatsA, chatsB, chatsC] = await Promise.all([allChats(a), allChats(b), allChats(c)]);
			expect(chatsA).toEqual(chatsB);
			expect(chatsA).not.toEqual(chatsC);
			for (const chat of chatsA) {
				const created = Date.parse(chat.created_at);
				expect(created).toBeGreaterThanOrEqual(Date.parse(START) - 31 * 86_400_000);
				expect(created).toBeLessThan(Date.parse(START));
			}
		} finally {
			await Promise.all([a.stop(), b.stop(), c.stop()]);
		}
	});

	test('100,000 chats generate and are all reachable', async () => {
		const big = await startSandbox({ chats: 100_000 });
		try {
			expect(big.control.chatCount()).toBe(100_000);
			const firstPage = (await get(big, 'chats', { since: '0' })).json as ChatsReply;
			expect(firstPage.chats).toHaveLength(100);
			expect(firstPage.more_chats_available).toBe(true);
			expect(big.control.allVersions()).toHaveLength(100_000);
		} finally {
			await big.stop();
		}
	});
});

describe('4.1 provide_visitor_fields', () => {
	const command = 'provide_visitor_fields';

	test('stores, replaces and removes a pairing (rules 1–3)', async () => {
		expectReply(
			await rt(sandbox, command, {
				auth_token: 'tok-1',
				visitor_fields: { id: 'u-1', name: 'Ann' },
			}),
			200,
			OK,
		);
		expect(sandbox.control.pairings()).toEqual({ 'tok-1': { id: 'u-1', name: 'Ann' } });
		expectReply(
			await rt(sandbox, command, {
				auth_token: 'tok-1',
				visitor_fields: { id: 'u-2', email: 'b@x.example' },
			}),
			200,
			OK,
		);
		expectReply(
			await rt(sandbox, command, { auth_token: 'tok-2', visitor_fields: { id: 'u-3' } }),
			200,
			OK,
		);
		expect(sandbox.control.pairings()).toEqual({
			'tok-1': { id: 'u-2', email: 'b@x.example' },
			'tok-2': { id: 'u-3' },
		});
		expectReply(await rt(sandbox, command, { auth_token: 'tok-1' }), 200, OK);
		expect(sandbox.control.pairings()).toEqual({ 'tok-2': { id: 'u-3' } });
		// Logging out a token that has no pairing is not an error.
		expectReply(await rt(sandbox, command, { auth_token: 'never-paired' }), 200, OK);
	});

	test.each<[string, unknown, Record<string, unknown>]>([
		['invalid JSON', '{"auth_token": ', { error: 'request-body-is-not-valid-json' }],
		['an empty body', '', { error: 'request-body-is-not-valid-json' }],
		['an array body', '[{"auth_token":"t"}]', { error: 'request-body-is-not-object' }],
		['a string body', '"t"', { error: 'request-body-is-not-object' }],
		['a null body', 'null', { error: 'request-body-is-not-object' }],
		[
			'no auth_token',
			{ visitor_fields: { id: 'u' } },
			{ error: 'mandatory-field-not-found', field: 'auth_token' },
		],
		[
			'a number auth_token',
			{ auth_token: 123, visitor_fields: { id: 'u' } },
			{ error: 'auth-token-is-not-string' },
		],
		['a null auth_token', { auth_token: null }, { error: 'auth-token-is-not-string' }],
		[
			'fields without id',
			{ auth_token: 't', visitor_fields: { name: 'Ann' } },
			{ error: 'id-field-required' },
		],
		[
			'an empty id',
			{ auth_token: 't', visitor_fields: { id: '' } },
			{ error: 'id-field-required' },
		],
		[
			'fields as a string',
			{ auth_token: 't', visitor_fields: 'u-1' },
			{ error: 'id-field-required' },
		],
		['fields as null', { auth_token: 't', visitor_fields: null }, { error: 'id-field-required' }],
		[
			'fields as an array (non-string keys)',
			{ auth_token: 't', visitor_fields: ['u-1', 'Ann'] },
			{ error: 'field-name-is-not-string', field_name: 0 },
		],
		[
			'a number value (the first reported)',
			{ auth_token: 't', visitor_fields: { id: 'u', age: 42, vip: true } },
			{ error: 'field-value-is-not-string', field_value: 42 },
		],
		[
			'a number id',
			{ auth_token: 't', visitor_fields: { id: 7 } },
			{ error: 'field-value-is-not-string', field_value: 7 },
		],
		[
			'an object value',
			{ auth_token: 't', visitor_fields: { id: 'u', address: { city: 'Oslo' } } },
			{ error: 'field-value-is-not-string', field_value: { city: 'Oslo' } },
		],
		[
			'a null value',
			{ auth_token: 't', visitor_fields: { id: 'u', phone: null } },
			{ error: 'field-value-is-not-string', field_value: null },
		],
	])('7.1: %s', async (_name, body, expected) => {
		expectReply(await rt(sandbox, command, body), 200, expected);
		expect(sandbox.control.pairings()).toEqual({});
	});

	test('a method other than POST gives unknown', async () => {
		expectReply(await call(sandbox, 'GET', `/api/v2/rt/${command}`), 200, { error: 'unknown' });
		expectReply(
			await call(sandbox, 'PUT', `/api/v2/rt/${command}`, {
				body: { auth_token: 't', visitor_fields: { id: 'u' } },
			}),
			200,
			{ error: 'unknown' },
		);
		expect(sandbox.control.pairings()).toEqual({});
	});
});

describe('4.2 agent_status and the operator rules of section 3', () => {
	const command = 'agent_status';
	const statusOf = (email: string) =>
		sandbox.control.getOperators().find((operator) => operator.email === email)?.status;

	test('sets the status; GET /operators shows it', async () => {
		expectReply(await rt(sandbox, command, { email: 'anna@svc.test', status: 'dinner' }), 200, OK);
		const operators = (await get(sandbox, 'operators')).json as Array<{
			email: string;
			status: string;
		}>;
		expect(operators.find((operator) => operator.email === 'anna@svc.test')?.status).toBe('dinner');
		// E-mails are matched without regard to case.
		expectReply(await rt(sandbox, command, { email: 'ANNA@SVC.test', status: 'online' }), 200, OK);
		expect(statusOf('anna@svc.test')).toBe('online');
	});

	test.each<[string, unknown, Record<string, unknown>]>([
		['invalid JSON', '{email', { error: 'request-body-is-not-valid-json' }],
		['an array body', '[]', { error: 'request-body-is-not-object' }],
		['no e-mail', { status: 'online' }, { error: 'missing-argument', argument: 'email' }],
		['no e-mail nor status (e-mail first)', {}, { error: 'missing-argument', argument: 'email' }],
		[
			'a null e-mail',
			{ email: null, status: 'online' },
			{ error: 'missing-argument', argument: 'email' },
		],
		['no status', { email: 'anna@svc.test' }, { error: 'missing-argument', argument: 'status' }],
		[
			'a malformed e-mail',
			{ email: 'anna-at-svc', status: 'dinner' },
			{ error: 'invalid-agent-email' },
		],
		[
			'an unknown e-mail',
			{ email: 'nobody@svc.test', status: 'dinner' },
			{ error: 'invalid-agent-email' },
		],
		['a number e-mail', { email: 42, status: 'dinner' }, { error: 'invalid-agent-email' }],
		[
			'a number status',
			{ email: 'anna@svc.test', status: 3 },
			{ error: 'agent-status-not-allowed' },
		],
		[
			'a status the tariff does not know',
			{ email: 'anna@svc.test', status: 'busy' },
			{ error: 'agent-status-not-allowed' },
		],
		[
			'a condition that is not an object',
			{ email: 'anna@svc.test', status: 'dinner', condition: 'online' },
			{ error: 'unknown' },
		],
		[
			'initial_statuses not a list',
			{ email: 'anna@svc.test', status: 'dinner', condition: { initial_statuses: 'online' } },
			{ error: 'unknown' },
		],
		[
			'a condition not met',
			{
				email: 'anna@svc.test',
				status: 'dinner',
				condition: { initial_statuses: ['invisible', 'pre-dinner'] },
			},
			{ error: 'condition-not-satisfied' },
		],
		[
			'a condition not met, even with force',
			{
				email: 'anna@svc.test',
				status: 'dinner',
				force: true,
				condition: { initial_statuses: ['offline'] },
			},
			{ error: 'condition-not-satisfied' },
		],
	])('7.2: %s', async (_name, body, expected) => {
		expectReply(await rt(sandbox, command, body), 200, expected);
		expect(statusOf('anna@svc.test')).toBe('online');
	});

	test('condition.initial_statuses is honoured when it holds the current status', async () => {
		expectReply(
			await rt(sandbox, command, {
				email: 'carla@svc.test',
				status: 'online',
				condition: { initial_statuses: ['dinner', 'pre-dinner'] },
			}),
			200,
			OK,
		);
		expect(statusOf('carla@svc.test')).toBe('online');
		// A condition without initial_statuses constrains nothing.
		expectReply(
			await rt(sandbox, command, { email: 'carla@svc.test', status: 'invisible', condition: {} }),
			200,
			OK,
		);
		expect(statusOf('carla@svc.test')).toBe('invisible');
	});

	test('offline cannot be left, not even with force; offline to offline is allowed', async () => {
		expect(statusOf('boris@svc.test')).toBe('offline');
		expectReply(await rt(sandbox, command, { email: 'boris@svc.test', status: 'online' }), 200, {
			error: 'agent-status-not-allowed',
		});
		expectReply(
			await rt(sandbox, command, { email: 'boris@svc.test', status: 'online', force: true }),
			200,
			{ error: 'agent-status-not-allowed' },
		);
		expectReply(
			await rt(sandbox, command, { email: 'boris@svc.test', status: 'offline' }),
			200,
			OK,
		);
		expect(statusOf('boris@svc.test')).toBe('offline');
		// Going offline is possible, and then it sticks.
		expectReply(
			await rt(sandbox, command, { email: 'dmitri@svc.test', status: 'offline' }),
			200,
			OK,
		);
		expectReply(
			await rt(sandbox, command, { email: 'dmitri@svc.test', status: 'invisible' }),
			200,
			{ error: 'agent-status-not-allowed' },
		);
	});

	test('statuses are allowed per tariff; force ignores the tariff', async () => {
		sandbox.control.setSettings({ allowedStatuses: ['online', 'offline'] });
		expectReply(await rt(sandbox, command, { email: 'anna@svc.test', status: 'dinner' }), 200, {
			error: 'agent-status-not-allowed',
		});
		expect(statusOf('anna@svc.test')).toBe('online');
		expectReply(
			await rt(sandbox, command, { email: 'anna@svc.test', status: 'dinner', force: true }),
			200,
			OK,
		);
		expect(statusOf('anna@svc.test')).toBe('dinner');
		// Any string is a status when forced (the full set is not shown in the spec).
		expectReply(
			await rt(sandbox, command, { email: 'anna@svc.test', status: 'busy', force: true }),
			200,
			OK,
		);
		expect(statusOf('anna@svc.test')).toBe('busy');
	});

	test('the allowed online time window (UTC) is honoured for going online; force ignores it', async () => {
		sandbox.control.setSettings({ allowedOnlineTime: { from: '09:00', to: '17:00' } });
		clock.set('2025-03-10T20:30:00.000Z');
		expectReply(await rt(sandbox, command, { email: 'carla@svc.test', status: 'online' }), 200, {
			error: 'not-in-allowed-online-time',
		});
		// Other statuses are not online time.
		expectReply(
			await rt(sandbox, command, { email: 'carla@svc.test', status: 'pre-dinner' }),
			200,
			OK,
		);
		clock.set('2025-03-10T09:00:00.000Z');
		expectReply(await rt(sandbox, command, { email: 'carla@svc.test', status: 'online' }), 200, OK);
		expect(statusOf('carla@svc.test')).toBe('online');
		clock.set('2025-03-10T17:00:00.000Z');
		expectReply(await rt(sandbox, command, { email: 'elena@svc.test', status: 'online' }), 200, {
			error: 'not-in-allowed-online-time',
		});
		expectReply(
			await rt(sandbox, command, { email: 'elena@svc.test', status: 'online', force: true }),
			200,
			OK,
		);
		// A window across midnight.
		sandbox.control.setSettings({ allowedOnlineTime: { from: '22:00', to: '06:00' } });
		clock.set('2025-03-10T23:15:00.000Z');
		expectReply(
			await rt(sandbox, command, { email: 'dmitri@svc.test', status: 'online' }),
			200,
			OK,
		);
		clock.set('2025-03-11T12:00:00.000Z');
		expectReply(
			await rt(sandbox, command, {
				email: 'carla@svc.test',
				status: 'online',
				condition: { initial_statuses: ['online'] },
			}),
			200,
			{ error: 'not-in-allowed-online-time' },
		);
	});

	test('a method other than POST gives unknown', async () => {
		expectReply(
			await call(sandbox, 'GET', `/api/v2/rt/${command}`, {
				query: { email: 'anna@svc.test', status: 'dinner' },
			}),
			200,
			{ error: 'unknown' },
		);
		expectReply(await call(sandbox, 'DELETE', `/api/v2/rt/${command}`), 200, { error: 'unknown' });
		expect(statusOf('anna@svc.test')).toBe('online');
	});
});

describe('4.3 send_broadcast', () => {
	const command = 'send_broadcast';
	const registered = [...REGISTERED_PHONES];
	const msgapp = (data: Record<string, unknown> = {}, top: Record<string, unknown> = {}) => ({
		operator_id: 1,
		data: {
			kind: 'msgapp',
			channel_id: 'wa-main',
			data: {
				template_id: 'welcome_v2',
				entries: [{ phone_number: registered[0], language_code: 'en' }],
				...data,
			},
		},
		...top,
	});

	test('a msgapp broadcast is recorded exactly; unregistered numbers receive nothing (rules 1–4)', async () => {
		const entries = [
			{
				phone_number: registered[0],
				language_code: 'en',
				body: [
					{ type: 'header', parameters: [{ type: 'text', text: 'Spring sale' }] },
					{
						type: 'body',
						parameters: [
							{ type: 'text', text: 'Ann' },
							{ type: 'text', text: '20%' },
						],
					},
					{ type: 'footer', parameters: [{ text: 'Reply STOP to opt out' }] },
				],
			},
			{
				phone_number: '+4930999999',
				language_code: 'de',
				body: { type: 'body', parameters: [{ type: 'text', text: 'Jörg' }] },
			},
			{ phone_number: registered[7], language_code: 'es' },
			{
				phone_number: registered[8],
				language_code: 'en',
				body: {
					type: 'header',
					parameters: [{ type: 'image', text: 'https://cdn.example/a.png' }],
				},
			},
		];
		clock.set('2025-03-10T13:14:15.000Z');
		expectReply(await rt(sandbox, command, msgapp({ entries })), 200, OK);
		expect(sandbox.control.broadcasts()).toEqual([
			{
				at: '2025-03-10T13:14:15.000Z',
				operator_id: 1,
				kind: 'msgapp',
				channel_id: 'wa-main',
				data: { template_id: 'welcome_v2', entries },
				delivered_to: [registered[0], registered[7], registered[8]],
			},
		]);
	});

	test('a history-chats broadcast accepts any object as data.data and records it', async () => {
		const payload = {
			text: 'We are closed on Monday',
			filter: { since: '2025-01-01' },
			chat_ids: [1, 'a-b'],
		};
		expectReply(
			await rt(sandbox, command, {
				operator_id: 2,
				data: { kind: 'history-chats', channel_id: 'wa-main', data: payload },
			}),
			200,
			OK,
		);
		expect(sandbox.control.broadcasts()).toEqual([
			{
				at: START,
				operator_id: 2,
				kind: 'history-chats',
				channel_id: 'wa-main',
				data: payload,
				delivered_to: [],
			},
		]);
	});

	const base = msgapp();
	const withData = (data: Record<string, unknown>) => ({
		...base,
		data: { ...base.data, ...data },
	});
	const withPayload = (payload: Record<string, unknown>) =>
		withData({ data: { ...base.data.data, ...payload } });
	const withEntry = (entry: Record<string, unknown>) =>
		withPayload({ entries: [{ phone_number: registered[0], language_code: 'en', ...entry }] });
	const withBody = (body: unknown) => withEntry({ body });

	test.each<[string, unknown, Record<string, unknown>]>([
		['invalid JSON', '{"operator_id": 1,', { error: 'request-body-is-not-valid-json' }],
		['a number body', '17', { error: 'request-body-is-not-object' }],
		['no operator_id', { data: base.data }, { error: 'missing-argument', argument: 'operator_id' }],
		['no data', { operator_id: 1 }, { error: 'missing-argument', argument: 'data' }],
		[
			'no data.kind',
			{ operator_id: 1, data: {} },
			{ error: 'missing-argument', argument: 'data.kind' },
		],
		[
			'no data.channel_id',
			{ operator_id: 1, data: { kind: 'msgapp' } },
			{ error: 'missing-argument', argument: 'data.channel_id' },
		],
		[
			'no data.data',
			{ operator_id: 1, data: { kind: 'msgapp', channel_id: 'wa-main' } },
			{ error: 'missing-argument', argument: 'data.data' },
		],
		[
			'no template_id',
			withData({ data: { entries: [] } }),
			{ error: 'missing-argument', argument: 'data.data.template_id' },
		],
		[
			'no entries',
			withData({ data: { template_id: 'welcome_v2' } }),
			{ error: 'missing-argument', argument: 'data.data.entries' },
		],
		[
			'empty entries',
			withPayload({ entries: [] }),
			{ error: 'missing-argument', argument: 'data.data.entries' },
		],
		[
			'no phone_number',
			withPayload({ entries: [{ language_code: 'en' }] }),
			{ error: 'missing-argument', argument: 'data.data.entries[0].phone_number' },
		],
		[
			'no language_code',
			withPayload({ entries: [{ phone_number: registered[0] }] }),
			{ error: 'missing-argument', argument: 'data.data.entries[0].language_code' },
		],
		[
			'the second entry without phone_number',
			withPayload({
				entries: [{ phone_number: registered[0], language_code: 'en' }, { language_code: 'en' }],
			}),
			{ error: 'missing-argument', argument: 'data.data.entries[1].phone_number' },
		],
		['operator_id as a string', { ...base, operator_id: '1' }, { error: 'parsing-error' }],
		['operator_id not an integer', { ...base, operator_id: 1.5 }, { error: 'parsing-error' }],
		['data not an object', { operator_id: 1, data: 'msgapp' }, { error: 'parsing-error' }],
		['kind not a string', withData({ kind: 1 }), { error: 'parsing-error' }],
		['channel_id not a string', withData({ channel_id: 5 }), { error: 'parsing-error' }],
		['data.data a list', withData({ data: [] }), { error: 'parsing-error' }],
		['template_id not a string', withPayload({ template_id: 5 }), { error: 'parsing-error' }],
		[
			'entries not a list',
			withPayload({ entries: { phone_number: registered[0] } }),
			{ error: 'parsing-error' },
		],
		[
			'an entry not an object',
			withPayload({ entries: ['+15550000001'] }),
			{ error: 'parsing-error' },
		],
		[
			'phone_number not a string',
			withEntry({ phone_number: 15550000001 }),
			{ error: 'parsing-error' },
		],
		['body a string', withBody('Hello'), { error: 'parsing-error' }],
		['body null', withBody(null), { error: 'parsing-error' }],
		[
			'an unknown part type',
			withBody({ type: 'middle', parameters: [] }),
			{ error: 'parsing-error' },
		],
		[
			'parameters not a list',
			withBody({ type: 'body', parameters: 'Ann' }),
			{ error: 'parsing-error' },
		],
		[
			'an unknown header parameter type',
			withBody({ type: 'header', parameters: [{ type: 'gif', text: 'x' }] }),
			{ error: 'parsing-error' },
		],
		[
			'a body parameter of type image',
			withBody({ type: 'body', parameters: [{ type: 'image', text: 'x' }] }),
			{ error: 'parsing-error' },
		],
		[
			'a footer parameter with a type',
			withBody({ type: 'footer', parameters: [{ type: 'text', text: 'x' }] }),
			{ error: 'parsing-error' },
		],
		[
			'a parameter text that is a number',
			withBody({ type: 'body', parameters: [{ type: 'text', text: 5 }] }),
			{ error: 'parsing-error' },
		],
		[
			'a parameter that is a string',
			withBody({ type: 'body', parameters: ['Ann'] }),
			{ error: 'parsing-error' },
		],
		[
			'an extra member in a part',
			withBody({ type: 'body', parameters: [], values: [] }),
			{ error: 'parsing-error' },
		],
		[
			'two parts of the same type',
			withBody([
				{ type: 'body', parameters: [] },
				{ type: 'body', parameters: [] },
			]),
			{ error: 'parsing-error' },
		],
		[
			'a list with a non-object part',
			withBody([{ type: 'body', parameters: [] }, 'footer']),
			{ error: 'parsing-error' },
		],
		['an unknown kind', withData({ kind: 'sms' }), { error: 'unknown-broadcast-kind' }],
		[
			'a template that is not registered',
			withPayload({ template_id: 'no_such_template' }),
			{ error: 'template-not-found' },
		],
		[
			'a template that is not active',
			withPayload({ template_id: 'promo_old' }),
			{ error: 'template-not-active' },
		],
		['an operator that does not exist', { ...base, operator_id: 999 }, { error: 'unknown' }],
		['a channel that does not exist', withData({ channel_id: 'tg-other' }), { error: 'unknown' }],
	])('7.3: %s', async (_name, body, expected) => {
		expectReply(await rt(sandbox, command, body), 200, expected);
		expect(sandbox.control.broadcasts()).toEqual([]);
	});

	test('a method other than POST gives unknown', async () => {
		expectReply(await call(sandbox, 'GET', `/api/v2/rt/${command}`), 200, { error: 'unknown' });
		expect(sandbox.control.broadcasts()).toEqual([]);
	});
});

describe('4.4–4.9 stored data', () => {
	test('4.4 GET /operators: every operator, shape of 2.2, no passwords', async () => {
		const reply = await get(sandbox, 'operators');
		expectReply(reply, 200, sandbox.control.getOperators());
		const operators = reply.json as Array<Record<string, unknown>>;
		expect(operators.length).toBeGreaterThanOrEqual(5);
		for (const operator of operators) {
			expect(Object.keys(operator).sort()).toEqual([
				'created_at',
				'email',
				'full_name',
				'id',
				'roles',
				'status',
			]);
		}
		expect(new Set(operators.map((operator) => operator.status))).toEqual(
			new Set(['online', 'offline', 'invisible', 'dinner', 'pre-dinner']),
		);
		expect(operators[0]).toMatchObject({ email: 'admin@svc.test', roles: ['admin', 'operator'] });
		expect(
			operators.filter((operator) => (operator.roles as string[]).includes('admin')),
		).toHaveLength(1);
	});

	test('4.5 GET /departments', async () => {
		expectReply(await get(sandbox, 'departments'), 200, [
			{ id: 1, name: 'Sales', order: 1 },
			{ id: 2, name: 'Support', order: 2 },
			{ id: 3, name: 'Billing', order: 3 },
		]);
	});

	test('4.6 GET /chats from 0 gives every chat, and errors for a missing or malformed since', async () => {
		const reply = await get(sandbox, 'chats', { since: '0' });
		const page = reply.json as ChatsReply;
		expect(reply.status).toBe(200);
		expect(page.chats).toHaveLength(40);
		expect(page.more_chats_available).toBe(false);
		expect(page.last_ts).toBe(sandbox.control.latestCursor());
		expect(page.chats.map((chat) => chat.id)).toEqual(
			page.chats.map((chat) => sandbox.control.getChat(chat.id)!.id),
		);
		expectReply(await get(sandbox, 'chats'), 200, { error: 'argument-missing' });
		expectReply(await get(sandbox, 'chats', { since: 'yesterday' }), 200, {
			error: 'argument-missing',
		});
		expectReply(await get(sandbox, 'chats', { since: '-5' }), 200, { error: 'argument-missing' });
	});

	test('4.7 GET /chat by integer or GUID id; an unknown id is chat-not-found; no id is argument-missing', async () => {
		const chats = (await allChats()).slice(0, 5);
		const guid = chats.find((chat) => typeof chat.id === 'string')!;
		const integer = chats.find((chat) => typeof chat.id === 'number')!;
		expectReply(await get(sandbox, 'chat', { id: String(integer.id) }), 200, {
			chat: sandbox.control.getChat(integer.id),
		});
		expectReply(await get(sandbox, 'chat', { id: guid.id as string }), 200, {
			chat: sandbox.control.getChat(guid.id),
		});
		expectReply(await get(sandbox, 'chat', { id: '999999999' }), 200, { error: 'chat-not-found' });
		expectReply(await get(sandbox, 'chat'), 200, { error: 'argument-missing' });
		expectReply(await get(sandbox, 'chat', { id: '' }), 200, { error: 'argument-missing' });
	});

	test('4.8 GET /partner/tariffs: shape of 2.10, one tariff without discounts', async () => {
		const reply = await get(sandbox, 'partner/tariffs');
		expect(reply.status).toBe(200);
		const { tariffs } = reply.json as { tariffs: Array<Record<string, unknown>> };
		expect(tariffs.length).toBeGreaterThanOrEqual(2);
		expect(tariffs.some((tariff) => tariff.discounts === null)).toBe(true);
		for (const tariff of tariffs) {
			expect(tariff).toEqual({
				key: expect.any(String),
				name: expect.any(String),
				description: expect.any(String),
				discounts: tariff.discounts === null ? null : expect.any(Object),
				partner_prices: { per_operator_price: expect.any(Number), base_price: expect.any(Number) },
				public_prices: { per_operator_price: expect.any(Number), base_price: expect.any(Number) },
			});
			for (const [months, percent] of Object.entries(
				(tariff.discounts ?? {}) as Record<string, unknown>,
			)) {
				expect(months).toMatch(/^\d+$/);
				expect(typeof percent).toBe('number');
			}
		}
		expect(new Set(tariffs.map((tariff) => tariff.key)).size).toBe(tariffs.length);
	});

	test('4.9 GET /stats mode usage: figures of 2.11; contacts are the chats created that day', async () => {
		const chats = await allChats();
		const day = chats[20].created_at.slice(0, 10);
		const reply = await get(sandbox, 'stats', { date: day, mode: 'usage' });
		expect(reply.status).toBe(200);
		const usage = reply.json as Record<string, number>;
		expect(Object.keys(usage).sort()).toEqual([
			'avg_waiting_time',
			'chats',
			'contacts',
			'missed',
			'offlines',
		]);
		for (const value of Object.values(usage)) expect(Number.isInteger(value)).toBe(true);
		expect(usage.contacts).toBe(chats.filter((chat) => chat.created_at.startsWith(day)).length);
		expect(usage.contacts).toBeGreaterThan(0);
		expect(usage.missed + usage.chats + usage.offlines).toBe(usage.contacts);
		// The same question gives the same answer.
		expectReply(await get(sandbox, 'stats', { date: day, mode: 'usage' }), 200, usage);
		expectReply(await get(sandbox, 'stats', { date: '2030-01-01', mode: 'usage' }), 200, {
			contacts: 0,
			missed: 0,
			chats: 0,
			offlines: 0,
			avg_waiting_time: 0,
		});
	});

	test('4.9 GET /stats mode operators: one row of 2.12 per operator', async () => {
		const reply = await get(sandbox, 'stats', { date: '2025-03-01', mode: 'operators' });
		expect(reply.status).toBe(200);
		const rows = reply.json as Array<Record<string, number>>;
		expect(rows.map((row) => row.operator_id)).toEqual(
			sandbox.control.getOperators().map((operator) => operator.id),
		);
		for (const row of rows) {
			expect(Object.keys(row).sort()).toEqual([
				'avg_chating_time',
				'busy_messages',
				'chating_time',
				'chats',
				'online_time',
				'operator_id',
			]);
			for (const value of Object.values(row)) expect(Number.isInteger(value)).toBe(true);
			expect(row.chating_time).toBeLessThanOrEqual(row.online_time);
		}
	});

	test.each<[string, Record<string, string>, Record<string, string>]>([
		['no arguments', {}, { error: 'argument-missing' }],
		['no mode', { date: '2025-03-01' }, { error: 'argument-missing' }],
		['no date', { mode: 'usage' }, { error: 'argument-missing' }],
		['an unknown mode', { date: '2025-03-01', mode: 'daily' }, { error: 'unknown-mode' }],
		[
			'an unknown mode and a bad date (mode first)',
			{ date: 'March', mode: 'daily' },
			{ error: 'unknown-mode' },
		],
		[
			'a date in another format',
			{ date: '01.03.2025', mode: 'usage' },
			{ error: 'argument-missing' },
		],
		[
			'a date that does not exist',
			{ date: '2025-02-30', mode: 'operators' },
			{ error: 'argument-missing' },
		],
	])('4.9 / 7.4: %s', async (_name, query, expected) => {
		expectReply(await get(sandbox, 'stats', query), 200, expected);
	});

	test('7.4 a method other than GET gives unknown-method', async () => {
		for (const path of ['operators', 'departments', 'chats', 'chat', 'partner/tariffs', 'stats']) {
			expectReply(await call(sandbox, 'POST', `/api/v2/${path}`, { body: {} }), 200, {
				error: 'unknown-method',
			});
		}
		expectReply(await call(sandbox, 'DELETE', '/api/v2/chats', { query: { since: '0' } }), 200, {
			error: 'unknown-method',
		});
	});
});

describe('5.2 / 7.4 API access and unknown paths', () => {
	test('an account without API access gets no-tariff-option everywhere', async () => {
		sandbox.control.setSettings({ apiAccess: false });
		expectReply(await get(sandbox, 'departments'), 200, { error: 'no-tariff-option' });
		expectReply(await get(sandbox, 'chats', { since: '0' }), 200, { error: 'no-tariff-option' });
		expectReply(
			await rt(sandbox, 'agent_status', { email: 'anna@svc.test', status: 'dinner' }),
			200,
			{ error: 'no-tariff-option' },
		);
		expectReply(
			await rt(sandbox, 'provide_visitor_fields', { auth_token: 't', visitor_fields: { id: 'u' } }),
			200,
			{ error: 'no-tariff-option' },
		);
		expectReply(await rt(sandbox, 'send_broadcast', {}), 200, { error: 'no-tariff-option' });
		expect(sandbox.control.pairings()).toEqual({});
		sandbox.control.reset();
		expectReply(await get(sandbox, 'departments'), 200, expect.any(Array));
	});

	test('a path the API does not have is 404, before authorization', async () => {
		expectReply(await get(sandbox, 'visitors', {}, { auth: null }), 404, { error: 'not-found' });
		expectReply(await rt(sandbox, 'send_sms', {}), 404, { error: 'not-found' });
		expectReply(await call(sandbox, 'GET', '/api/v1/chats'), 404, { error: 'not-found' });
	});
});
