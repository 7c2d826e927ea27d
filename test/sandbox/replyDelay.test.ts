// The sandbox's reply delay (a slow server without TLS): the login is checked when the request arrives, the reply
// comes later, so a password changed meanwhile does not change that reply.
import { startSandbox, type Sandbox } from '../../sandbox';
import { call, get } from './client';

let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox({ chats: 2, replyDelayMs: 400 });
});
afterAll(async () => await sandbox.stop());

test('a request read before a password change is answered 200 after it; the next one is refused', async () => {
	const events: string[] = [];
	const slow = get(sandbox, 'departments').then((reply) => events.push(`reply ${reply.status}`));
	while (!sandbox.control.requestLog().some((entry) => entry.path.endsWith('/departments')))
		await new Promise((resolve) => setImmediate(resolve));
	// Over HTTP, as a test's control call: its round trip ends before the slow reply comes.
	const body = { email: sandbox.admin.email, password: 'changed-while-slow' };
	const changed = await call(sandbox, 'POST', '/__control/operators/password', { body });
	events.push(`password changed ${changed.status}`);
	await slow;
	expect(events).toEqual(['password changed 200', 'reply 200']);
	expect((await get(sandbox, 'departments')).status).toBe(401);
});

test('the reply delay set at run time, and a password changed right after the next accepted login: a burst', async () => {
	const quick = await startSandbox({ chats: 2 });
	try {
		quick.control.setSettings({ replyDelayMs: 300 });
		const body = { email: quick.admin.email, password: 'changed-mid-burst', afterNextLogin: true };
		expect((await call(quick, 'POST', '/__control/operators/password', { body })).status).toBe(200);
		// Not yet changed: the next request's login is accepted, and the change lands before its slow reply.
		const first = get(quick, 'departments');
		while (!quick.control.requestLog().length)
			await new Promise((resolve) => setImmediate(resolve));
		const others = await Promise.all([get(quick, 'departments'), get(quick, 'partner/tariffs')]);
		expect((await first).status).toBe(200);
		expect(others.map(({ status }) => status)).toEqual([401, 401]);
		expect(quick.control.failedLogins(quick.admin.email).failures).toBe(2);
		quick.control.reset();
		expect(quick.control.getSettings().replyDelayMs).toBe(0);
		expect((await get(quick, 'departments')).status).toBe(200);
	} finally {
		await quick.stop();
	}
});
