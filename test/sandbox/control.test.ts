// The HTTP control routes under /__control/ (tests only, no auth) do what the in-process control does.
import { startSandbox, type Sandbox } from '../../sandbox';
import type { Chat } from '../../nodes/SvcChat/types';
import { call, get, manualClock, rt } from './client';

let sandbox: Sandbox;

beforeAll(async () => {
	sandbox = await startSandbox({ seed: 8, chats: 20 });
});
afterAll(async () => await sandbox.stop());
beforeEach(() => sandbox.control.reset());

const control = async (
	method: string,
	route: string,
	body?: unknown,
	query?: Record<string, string>,
) => {
	const reply = await call(sandbox, method, `/__control/${route}`, { body, query, auth: null });
	// eslint-disable-next-line @typescript-eslint/no-explicit-any -- control replies are checked by value below
	return { status: reply.status, json: reply.json as any };
};

test('chats: add, update, close, mutate, get, count, versions, cursor', async () => {
	const added = (await control('POST', 'chats/add', { n: 2 })).json as Chat[];
	expect(added).toHaveLength(2);
	expect((await control('GET', 'chats/count')).json).toEqual({ count: 22 });
	const id = added[0].id;
	const updated = (await control('POST', 'chats/update', { id })).json as Chat;
	expect(updated.messages).toHaveLength(added[0].messages!.length + 1);
	const closed = (await control('POST', 'chats/close', { id })).json as Chat;
	expect(closed.state_history!.at(-1)!.state).toBe('closed');
	expect((await control('GET', 'chat', undefined, { id: String(id) })).json).toEqual(closed);
	expect(((await control('POST', 'chats/mutate', { n: 3 })).json as Chat[]).length).toBe(3);
	const versions = (await control('GET', 'versions')).json as string[];
	expect(versions).toHaveLength(20 + 2 + 2 + 3);
	expect(versions).toContain((await control('POST', 'fingerprint', closed)).json.fingerprint);
	expect((await control('GET', 'cursor')).json).toEqual({
		last_ts: sandbox.control.latestCursor(),
	});
	expect(await control('POST', 'chats/update', { id: 'no-such-chat' })).toEqual({
		status: 404,
		json: { error: 'No chat has the id "no-such-chat"' },
	});
	expect((await control('GET', 'chat', undefined, { id: 'nope' })).status).toBe(404);
	expect((await control('POST', 'chats/add', { n: -1 })).status).toBe(400);
});

test('chats/add gives chats going on: begun 20 minutes before, in the order added, nothing later than now, not closed, listed as the newest change', async () => {
	const cursor = sandbox.control.latestCursor();
	const before = Date.now();
	// Twelve, so that every shape the seed plans (closed or not, with or without states or rates) is among them.
	const added = (await control('POST', 'chats/add', { n: 12 })).json as Chat[];
	const after = Date.now();
	expect(added).toHaveLength(12);
	const span = 20 * 60_000;
	for (const chat of added) {
		const created = Date.parse(chat.created_at);
		expect(created).toBeGreaterThanOrEqual(before - span);
		expect(created).toBeLessThanOrEqual(after - span);
		const messages = (chat.messages ?? []).map((message) => Date.parse(message.created_at));
		const states = (chat.state_history ?? []).map((entry) => Date.parse(entry.at));
		// The conversation so far: in order, from the creation to now at the latest, nothing in the future.
		for (const times of [messages, states]) {
			expect(times).toEqual([...times].sort((a, b) => a - b));
			expect(times.every((time) => time >= created && time <= created + span)).toBe(true);
		}
		expect(chat.rates).toEqual([]);
		expect((chat.state_history ?? []).map((entry) => entry.state)).not.toContain('closed');
	}
	// Most end with a message now; every one begins no earlier than the one added before it (New Chats Only's order).
	const endsNow = added.filter(
		(chat) =>
			chat.messages!.at(-1)!.created_at ===
			new Date(Date.parse(chat.created_at) + span).toISOString(),
	);
	expect(endsNow.length).toBeGreaterThan(added.length / 2);
	const createdMs = added.map((chat) => Date.parse(chat.created_at));
	expect(createdMs).toEqual([...createdMs].sort((a, b) => a - b));
	const page = (await get(sandbox, 'chats', { since: String(cursor) })).json as { chats: Chat[] };
	expect(page.chats.map((chat) => chat.id)).toEqual(added.map((chat) => chat.id));

	// A message, then the close, come later than the creation.
	const [first] = added;
	const updated = (await control('POST', 'chats/update', { id: first.id })).json as Chat;
	expect(Date.parse(updated.messages!.at(-1)!.created_at)).toBeGreaterThanOrEqual(after);
	const closed = (await control('POST', 'chats/close', { id: first.id })).json as Chat;
	expect(closed.state_history?.at(-1)?.state).toBe('closed');
});

test('chats: rate and missed, over HTTP and in process, each a change /chats delivers again with a new last_ts', async () => {
	/** The chats /chats gives after `since`, and the cursor it hands back. */
	const changesSince = async (since: number) => {
		const reply = (await get(sandbox, 'chats', { since: String(since) })).json as {
			chats: Chat[];
			last_ts: number;
		};
		return { chats: reply.chats, lastTs: reply.last_ts };
	};
	const [first] = sandbox.control.addChats(1);
	const start = sandbox.control.latestCursor();

	const rated = (await control('POST', 'chats/rate', { id: first.id, rate: 2 })).json as Chat;
	expect(rated.rates).toEqual([
		...first.rates!,
		{ rate: 2, operator_id: first.operator_id, created_at: expect.any(String) },
	]);
	const afterRating = await changesSince(start);
	expect(afterRating.chats).toEqual([rated]);
	expect(afterRating.lastTs).toBeGreaterThan(start);

	// Two equal ratings, with the operator and time given, in process: each is a change of its own.
	const twice = { rate: 5, operator_id: 4, created_at: '2025-05-01T10:00:00.000Z' };
	sandbox.control.rateChat(first.id, twice);
	const again = sandbox.control.rateChat(first.id, twice);
	expect(again.rates!.slice(-2)).toEqual([twice, twice]);
	expect((await changesSince(afterRating.lastTs)).chats).toEqual([again]);

	for (const bad of [
		{ rate: 6 },
		{ rate: 1.5 },
		{ rate: 3, operator_id: 'x' },
		{ rate: 3, created_at: 5 },
	])
		expect((await control('POST', 'chats/rate', { id: first.id, ...bad })).status).toBe(400);
	expect((await control('POST', 'chats/rate', { id: 'no-such-chat', rate: 3 })).status).toBe(404);

	// Missed chats: closed, no operator's message or file, no rating; the contact where asked.
	const before = sandbox.control.latestCursor();
	const answering = (chat: Chat) =>
		chat.messages!.filter((message) => ['operator', 'file_operator'].includes(message.kind));
	const inFields = (await control('POST', 'chats/missed', {})).json as Chat;
	const inMessage = (await control('POST', 'chats/missed', { contact: 'message' })).json as Chat;
	const nowhere = sandbox.control.addMissedChat('none');
	for (const chat of [inFields, inMessage, nowhere]) {
		expect(chat.state_history!.at(-1)!.state).toBe('closed');
		expect(answering(chat)).toEqual([]);
		expect(chat.messages!.map((message) => message.kind)).toContain('operator_busy');
		expect(chat.rates).toEqual([]);
	}
	expect(inFields.visitor!.fields).toMatchObject({
		name: expect.any(String),
		email: expect.any(String),
	});
	const contacts = (chat: Chat) => chat.messages!.filter((message) => message.kind === 'contacts');
	expect(contacts(inFields)).toEqual([]);
	expect(inMessage.visitor!.fields).toEqual({});
	expect(contacts(inMessage).map((message) => message.message)).toEqual([
		{ name: expect.any(String), phone: expect.any(String), email: expect.any(String) },
	]);
	expect([nowhere.visitor!.fields, contacts(nowhere)]).toEqual([{}, []]);
	expect((await changesSince(before)).chats).toEqual([inFields, inMessage, nowhere]);
	expect((await control('POST', 'chats/missed', { contact: 'phone' })).status).toBe(400);
	expect(sandbox.control.chatCount()).toBe(24);
});

test('operators and settings', async () => {
	const changed = await control('POST', 'operators/status', {
		email: 'boris@svc.test',
		status: 'online',
	});
	expect(changed).toEqual({
		status: 200,
		json: expect.objectContaining({ email: 'boris@svc.test', status: 'online' }),
	});
	expect((await control('GET', 'operators')).json).toEqual(sandbox.control.getOperators());
	expect(
		(await control('POST', 'operators/status', { email: 'ghost@svc.test', status: 'online' }))
			.status,
	).toBe(400);
	const settings = (
		await control('POST', 'settings', {
			apiAccess: false,
			allowedOnlineTime: { from: '08:00', to: '18:30' },
		})
	).json;
	expect(settings).toMatchObject({
		apiAccess: false,
		allowedOnlineTime: { from: '08:00', to: '18:30' },
	});
	expect((await control('GET', 'settings')).json).toEqual(settings);
	expect((await get(sandbox, 'departments')).json).toEqual({ error: 'no-tariff-option' });
	expect((await control('POST', 'settings', { apiAccess: 'no' })).status).toBe(400);
	expect(
		(await control('POST', 'settings', { allowedOnlineTime: { from: '8am', to: '18:00' } })).status,
	).toBe(400);
	expect((await control('POST', 'settings', { colour: 'blue' })).status).toBe(400);
	expect((await control('POST', 'reset')).json).toEqual({ result: 'ok' });
	expect((await get(sandbox, 'departments')).status).toBe(200);
});

test('operators change over time: status by id or email, added, removed, cycled once or on a timer; reset restores the seed', async () => {
	const seeded = sandbox.control.getOperators();
	const chatsBefore = sandbox.control.allVersions();
	const statusOf = async (id: number) =>
		((await get(sandbox, 'operators')).json as Array<{ id: number; status: string }>).find(
			(operator) => operator.id === id,
		)?.status;

	expect(
		(await control('POST', 'operators/status', { id: 3, status: 'online' })).json,
	).toMatchObject({
		id: 3,
		email: 'boris@svc.test',
		status: 'online',
	});
	expect(await statusOf(3)).toBe('online');
	expect((await control('POST', 'operators/status', { id: 99, status: 'online' })).status).toBe(
		400,
	);

	const added = await control('POST', 'operators/add', {
		email: 'fiona@svc.test',
		full_name: 'Fiona Lee',
		status: 'online',
	});
	expect(added).toEqual({
		status: 200,
		json: {
			id: 7,
			email: 'fiona@svc.test',
			full_name: 'Fiona Lee',
			status: 'online',
			roles: ['operator'],
			created_at: expect.any(String),
		},
	});
	expect((await control('POST', 'operators/add', { email: 'FIONA@svc.test' })).status).toBe(400);
	expect((await control('POST', 'operators/remove', { id: 2 })).json).toMatchObject({ id: 2 });
	expect((await control('POST', 'operators/remove', { email: 'anna@svc.test' })).status).toBe(400);
	const ids = ((await get(sandbox, 'operators')).json as Array<{ id: number }>).map((o) => o.id);
	expect(ids).toEqual([1, 3, 4, 5, 6, 7]);
	// Chats keep the operators they were built with.
	expect(sandbox.control.allVersions()).toEqual(chatsBefore);

	// Once now: each listed operator moves to the status after its own (the first when its own is not listed).
	const cycled = await control('POST', 'operators/cycle', {
		statuses: ['online', 'offline'],
		operators: [1, 'carla@svc.test'],
	});
	expect(
		(cycled.json as Array<{ id: number; status: string }>).map((o) => [o.id, o.status]),
	).toEqual([
		[1, 'offline'],
		[3, 'online'],
		[4, 'online'],
		[5, 'invisible'],
		[6, 'pre-dinner'],
		[7, 'online'],
	]);
	expect((await control('POST', 'operators/cycle', { statuses: [] })).status).toBe(400);
	expect(
		(await control('POST', 'operators/cycle', { statuses: ['online'], everyMs: -1 })).status,
	).toBe(400);

	// On a timer: every operator flips between offline and online every 20 ms, until stopped.
	await control('POST', 'operators/cycle', { statuses: ['offline', 'online'], everyMs: 20 });
	const seen = new Set<string | undefined>();
	for (let wait = 0; wait < 100 && seen.size < 2; wait++) {
		seen.add(await statusOf(7));
		await new Promise((resolve) => setTimeout(resolve, 5));
	}
	expect(seen).toEqual(new Set(['offline', 'online']));
	await control('POST', 'operators/cycle', { statuses: ['dinner'], everyMs: 0 });
	await new Promise((resolve) => setTimeout(resolve, 50));
	expect(await statusOf(7)).toBe('dinner');

	// A reset restores the seeded operators and stops any cycle.
	await control('POST', 'operators/cycle', { statuses: ['offline', 'online'], everyMs: 10 });
	expect((await control('POST', 'reset')).json).toEqual({ result: 'ok' });
	await new Promise((resolve) => setTimeout(resolve, 50));
	expect(sandbox.control.getOperators()).toEqual(seeded);
});

test('records: broadcasts, pairings and the request log', async () => {
	await rt(sandbox, 'provide_visitor_fields', {
		auth_token: 'tok',
		visitor_fields: { id: 'u', name: 'N' },
	});
	await rt(sandbox, 'send_broadcast', {
		operator_id: 1,
		data: { kind: 'history-chats', channel_id: 'wa-main', data: { x: 1 } },
	});
	expect((await control('GET', 'pairings')).json).toEqual({ tok: { id: 'u', name: 'N' } });
	expect((await control('GET', 'broadcasts')).json).toEqual([
		{
			at: expect.any(String),
			operator_id: 1,
			kind: 'history-chats',
			channel_id: 'wa-main',
			data: { x: 1 },
			delivered_to: [],
		},
	]);
	expect(((await control('GET', 'requests')).json as unknown[]).length).toBe(2);
});

test('faults over HTTP', async () => {
	expect((await control('POST', 'faults', { kind: '502', count: 2 })).json).toEqual({
		result: 'ok',
	});
	expect((await get(sandbox, 'departments')).status).toBe(502);
	expect((await control('DELETE', 'faults')).json).toEqual({ result: 'ok' });
	expect((await get(sandbox, 'departments')).status).toBe(200);
	expect((await control('POST', 'faults', { kind: 'teapot' })).status).toBe(400);
});

test('an unknown route or a body that is not JSON', async () => {
	const unknown = await control('GET', 'everything');
	expect(unknown.status).toBe(404);
	expect(unknown.json).toMatchObject({
		routes: expect.arrayContaining(['POST reset', 'POST faults']),
	});
	expect(
		(await call(sandbox, 'POST', '/__control/settings', { body: '{', auth: null })).status,
	).toBe(400);
});

test('a visitor waiting: a new chat in the queue with one unanswered visitor message; answered; writing again', async () => {
	const waiting = (await control('POST', 'chats/wait', {})).json as Chat;
	expect(waiting.state_history!.map(({ state }) => state)).toEqual(['queue']);
	expect(waiting.messages!.map(({ kind }) => kind)).toEqual(['visitor']);
	expect(sandbox.control.chatCount()).toBe(21);
	const answered = (await control('POST', 'chats/answer', { id: waiting.id })).json as Chat;
	expect(answered.messages!.at(-1)).toMatchObject({
		kind: 'operator',
		operator_id: answered.operator_id,
	});
	expect(answered.state_history!.at(-1)).toMatchObject({
		state: 'chatting',
		operator_id: answered.operator_id,
	});
	const again = sandbox.control.visitorWaits(waiting.id);
	expect(again.messages!.map(({ kind }) => kind)).toEqual(['visitor', 'operator', 'visitor']);
	expect(sandbox.control.getChat(waiting.id)).toEqual(again);
	expect((await control('POST', 'chats/answer', { id: 'nope' })).status).toBe(404);
});

test("API replies carry a Date header from the sandbox's clock, or none with dateHeader false", async () => {
	const clock = manualClock('2031-02-03T04:05:06.789Z');
	const shifted = await startSandbox({ seed: 8, chats: 2, now: clock.now });
	try {
		const reply = await get(shifted, 'chats', { since: '0' });
		expect(reply.headers.date).toBe('Mon, 03 Feb 2031 04:05:06 GMT');
		shifted.control.setSettings({ dateHeader: false });
		expect((await get(shifted, 'chats', { since: '0' })).headers.date).toBeUndefined();
	} finally {
		await shifted.stop();
	}
});

test('chats/recent lists the chats changed last, the latest first; operators/restore puts the seeded statuses back', async () => {
	const [first, second] = (await control('POST', 'chats/add', { n: 2 })).json as Chat[];
	sandbox.control.closeChat(first.id);
	const recent = (await control('GET', 'chats/recent')).json as Array<Record<string, unknown>>;
	expect(recent).toHaveLength(10);
	expect(recent.slice(0, 2)).toEqual([
		{ id: first.id, created_at: first.created_at, state: 'closed' },
		{ id: second.id, created_at: second.created_at, state: second.state_history?.at(-1)?.state },
	]);
	expect(new Set(recent.map(({ id }) => id)).size).toBe(10);
	expect((await control('GET', 'chats/recent', undefined, { n: '1' })).json).toEqual([recent[0]]);
	expect((await control('GET', 'chats/recent', undefined, { n: '-1' })).status).toBe(400);

	const seeded = sandbox.control.getOperators();
	sandbox.control.cycleOperators({ statuses: ['offline'], everyMs: 60_000 });
	sandbox.control.setOperatorStatus(seeded[1].id, 'dinner');
	const added = sandbox.control.addOperator({ email: 'new@svc.test', status: 'online' });
	const restored = (await control('POST', 'operators/restore', {})).json as unknown[];
	expect(restored).toEqual([...seeded, added]);
	expect(sandbox.control.getOperators()).toEqual(restored);
});
