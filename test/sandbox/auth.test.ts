// Spec section 5, the auth matrix: wrong password, unknown user, non-admin, lockout, the real-time 401 body, API access.
import { OPERATOR_PASSWORD, startSandbox, type Sandbox } from '../../sandbox';
import { basic, call, get, manualClock, rt, type RawReply } from './client';

const clock = manualClock('2025-03-10T12:00:00.000Z');
let sandbox: Sandbox;

beforeAll(async () => {
	sandbox = await startSandbox({
		chats: 5,
		now: clock.now,
		lockoutThreshold: 3,
		lockoutWindowMs: 60_000,
	});
});
afterAll(async () => await sandbox.stop());
beforeEach(() => {
	clock.set('2025-03-10T12:00:00.000Z');
	sandbox.control.reset();
});

const wrong = { email: 'admin@svc.test', password: 'not-the-password' };
const UNAUTHORIZED = { error: 'unauthorized' };

function expectReply(reply: RawReply, status: number, json: unknown): void {
	expect({ status: reply.status, json: reply.json }).toEqual({ status, json });
}

test('the admin is let in on both groups', async () => {
	expect((await get(sandbox, 'departments')).status).toBe(200);
	expectReply(
		await rt(sandbox, 'provide_visitor_fields', { auth_token: 't', visitor_fields: { id: 'u' } }),
		200,
		{ result: 'ok' },
	);
});

describe.each([
	['a wrong password', { auth: wrong }],
	['an unknown user', { auth: { email: 'ghost@svc.test', password: 'sandbox-password' } }],
	['no Authorization header', { auth: null }],
	['a header that is not Basic', { auth: 'Bearer abc' }],
	['Basic without a colon', { auth: `Basic ${Buffer.from('admin@svc.test').toString('base64')}` }],
])('%s gives 401', (_name, options) => {
	test('on stored data: 401 with our body and a Basic challenge', async () => {
		const reply = await get(sandbox, 'operators', {}, options);
		expectReply(reply, 401, UNAUTHORIZED);
		expect(reply.headers['www-authenticate']).toMatch(/^Basic realm=/);
	});

	test('on real-time commands: 401 {"error":"unauthorized"} (5.4), and nothing happens', async () => {
		expectReply(
			await rt(sandbox, 'agent_status', { email: 'anna@svc.test', status: 'dinner' }, options),
			401,
			UNAUTHORIZED,
		);
		expectReply(
			await rt(
				sandbox,
				'provide_visitor_fields',
				{ auth_token: 't', visitor_fields: { id: 'u' } },
				options,
			),
			401,
			UNAUTHORIZED,
		);
		expectReply(await rt(sandbox, 'send_broadcast', {}, options), 401, UNAUTHORIZED);
		expect(sandbox.control.pairings()).toEqual({});
		expect(
			sandbox.control.getOperators().find((operator) => operator.email === 'anna@svc.test')?.status,
		).toBe('online');
	});
});

test('a non-administrator gets 403 on both groups', async () => {
	const anna = { auth: { email: 'anna@svc.test', password: OPERATOR_PASSWORD } };
	expectReply(await get(sandbox, 'chats', { since: '0' }, anna), 403, {
		error: 'forbidden',
		reason: 'not-administrator',
	});
	expectReply(
		await rt(sandbox, 'agent_status', { email: 'anna@svc.test', status: 'dinner' }, anna),
		403,
		{ error: 'forbidden', reason: 'not-administrator' },
	);
	// A supervisor is not an administrator either.
	const carla = { auth: { email: 'carla@svc.test', password: OPERATOR_PASSWORD } };
	expect((await get(sandbox, 'operators', {}, carla)).status).toBe(403);
	// A non-admin with a wrong password is simply unauthorized.
	expect(
		(await get(sandbox, 'operators', {}, { auth: { email: 'anna@svc.test', password: 'nope' } }))
			.status,
	).toBe(401);
});

test('after N failed attempts within the window every attempt gets 403, the right password too, until the window passes', async () => {
	for (let i = 0; i < 3; i++)
		expectReply(await get(sandbox, 'departments', {}, { auth: wrong }), 401, UNAUTHORIZED);
	expectReply(await get(sandbox, 'departments'), 403, {
		error: 'forbidden',
		reason: 'too-many-attempts',
	});
	expectReply(
		await rt(sandbox, 'agent_status', { email: 'anna@svc.test', status: 'dinner' }),
		403,
		{ error: 'forbidden', reason: 'too-many-attempts' },
	);
	expectReply(await get(sandbox, 'departments', {}, { auth: wrong }), 403, {
		error: 'forbidden',
		reason: 'too-many-attempts',
	});
	// The lockout is per e-mail: others still get in (or fail for their own reasons).
	expect(
		(
			await get(
				sandbox,
				'departments',
				{},
				{ auth: { email: 'anna@svc.test', password: OPERATOR_PASSWORD } },
			)
		).status,
	).toBe(403);
	expect(
		(await get(sandbox, 'departments', {}, { auth: basic('ghost@svc.test', 'x') })).status,
	).toBe(401);
	clock.advance(60_001);
	expect((await get(sandbox, 'departments')).status).toBe(200);
});

test('failures older than the window do not count', async () => {
	const failed = async () =>
		await call(sandbox, 'GET', '/__control/logins/failed', {
			query: { email: 'ADMIN@svc.test' },
			auth: null,
		}).then((reply) => reply.json);
	expect(await failed()).toEqual({ email: 'ADMIN@svc.test', failures: 0, locked: false });
	for (let i = 0; i < 2; i++) await get(sandbox, 'departments', {}, { auth: wrong });
	clock.advance(45_000);
	await get(sandbox, 'departments', {}, { auth: wrong });
	expect(await failed()).toMatchObject({ failures: 3, locked: true });
	clock.advance(20_000);
	// What the control route counts is what the lockout counts.
	expect(sandbox.control.failedLogins('admin@svc.test')).toMatchObject({
		failures: 1,
		locked: false,
	});
	// Two of the three failures are now older than 60 s.
	expect((await get(sandbox, 'departments')).status).toBe(200);
});

test('an unknown user is locked out too, and the threshold is configurable at run time', async () => {
	sandbox.control.setSettings({ lockoutThreshold: 1 });
	const ghost = { auth: { email: 'ghost@svc.test', password: 'x' } };
	expectReply(await get(sandbox, 'departments', {}, ghost), 401, UNAUTHORIZED);
	expectReply(await get(sandbox, 'departments', {}, ghost), 403, {
		error: 'forbidden',
		reason: 'too-many-attempts',
	});
	// Lockouts are cleared by reset().
	sandbox.control.reset();
	expectReply(await get(sandbox, 'departments', {}, ghost), 401, UNAUTHORIZED);
});

test('an account without API access: no-tariff-option after a successful login, 401 still first', async () => {
	sandbox.control.setSettings({ apiAccess: false });
	expectReply(await get(sandbox, 'departments'), 200, { error: 'no-tariff-option' });
	expectReply(
		await rt(sandbox, 'agent_status', { email: 'anna@svc.test', status: 'dinner' }),
		200,
		{ error: 'no-tariff-option' },
	);
	expectReply(await get(sandbox, 'departments', {}, { auth: wrong }), 401, UNAUTHORIZED);
});

test('a custom admin from the options', async () => {
	const custom = await startSandbox({
		chats: 1,
		admin: { email: 'boss@corp.example', password: 'p@ss:word' },
	});
	try {
		expect(custom.admin).toEqual({ email: 'boss@corp.example', password: 'p@ss:word' });
		expect((await get(custom, 'departments')).status).toBe(200);
		expect(
			(
				await call(custom, 'GET', '/api/v2/departments', {
					auth: { email: 'admin@svc.test', password: 'sandbox-password' },
				})
			).status,
		).toBe(401);
	} finally {
		await custom.stop();
	}
});
