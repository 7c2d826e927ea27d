// HTTPS mode: a self-signed certificate generated at start, refused unless trusted; only 127.0.0.1 is bound.
import { startSandbox, type Sandbox } from '../../sandbox';
import { get } from './client';

let sandbox: Sandbox;

beforeAll(async () => {
	sandbox = await startSandbox({ https: true, chats: 3 });
});
afterAll(async () => await sandbox.stop());

test('the URL is https on 127.0.0.1, and the host to type is host:port', () => {
	expect(sandbox.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
	expect(sandbox.host).toBe(`127.0.0.1:${sandbox.port}`);
	expect(sandbox.certificate).toMatch(/^-----BEGIN CERTIFICATE-----/);
});

test('a client that checks certificates refuses it (self-signed)', async () => {
	await expect(get(sandbox, 'departments')).rejects.toMatchObject({
		code: expect.stringMatching(/SELF_SIGNED|UNABLE_TO_VERIFY/),
	});
});

test('a client that trusts this certificate gets the API', async () => {
	const reply = await get(sandbox, 'departments', {}, { ca: sandbox.certificate });
	expect(reply.status).toBe(200);
	expect(reply.json).toEqual([
		{ id: 1, name: 'Sales', order: 1 },
		{ id: 2, name: 'Support', order: 2 },
		{ id: 3, name: 'Billing', order: 3 },
	]);
});

test('plain HTTP mode gives an http:// host, because the credentials default to https', async () => {
	const plain = await startSandbox({ chats: 1 });
	try {
		expect(plain.url).toBe(`http://127.0.0.1:${plain.port}`);
		expect(plain.host).toBe(plain.url);
	} finally {
		await plain.stop();
	}
});

test('stop() closes the server: nothing answers afterwards', async () => {
	const short = await startSandbox({ chats: 1 });
	expect((await get(short, 'departments')).status).toBe(200);
	await short.stop();
	await expect(get(short, 'departments')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
	// Stopping twice is harmless.
	await short.stop();
});
