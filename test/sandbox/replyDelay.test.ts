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
