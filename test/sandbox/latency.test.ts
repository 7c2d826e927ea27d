// The latency option: a relay delays every byte each way and a new connection's first byte by one more round trip.
import { once } from 'node:events';
import http from 'node:http';
import tls from 'node:tls';

import { startSandbox, type Sandbox } from '../../sandbox';
import { basic, get } from './client';

const ONE_WAY_MS = 150;
let sandbox: Sandbox;

beforeAll(async () => {
	sandbox = await startSandbox({ https: true, chats: 3, latencyMs: ONE_WAY_MS });
});
afterAll(async () => await sandbox.stop());

/**
 * Opens one TLS connection and sends GET /departments on it twice, one after the other, written by hand so that both
 * surely share the connection (an agent may open a new one). Returns how long the handshake and each request took.
 */
async function twoRequestsOnOneConnection(): Promise<{
	handshakeMs: number;
	requests: Array<{ ms: number; head: string; body: string }>;
}> {
	const startedAt = performance.now();
	const socket = tls.connect({
		host: '127.0.0.1',
		port: sandbox.port,
		ca: sandbox.certificate,
		servername: 'localhost',
	});
	try {
		await once(socket, 'secureConnect');
		const handshakeMs = performance.now() - startedAt;
		let received = Buffer.alloc(0);
		socket.on('data', (chunk: Buffer) => (received = Buffer.concat([received, chunk])));
		const requests = [];
		for (let request = 0; request < 2; request++) {
			const sentAt = performance.now();
			received = Buffer.alloc(0);
			socket.write(
				`GET /api/v2/departments HTTP/1.1\r\nHost: 127.0.0.1:${sandbox.port}\r\n` +
					`Authorization: ${basic(sandbox.admin.email, sandbox.admin.password)}\r\n\r\n`,
			);
			// Every sandbox reply has a Content-Length: read until the head and that many body bytes are in.
			for (;;) {
				const headEnd = received.indexOf('\r\n\r\n');
				const length = Number(
					/content-length: *(\d+)/i.exec(received.subarray(0, headEnd).toString())?.[1],
				);
				if (headEnd >= 0 && received.length >= headEnd + 4 + length) {
					const head = received.subarray(0, headEnd).toString();
					const body = received.subarray(headEnd + 4, headEnd + 4 + length).toString();
					requests.push({ ms: performance.now() - sentAt, head, body });
					break;
				}
				await once(socket, 'data');
			}
		}
		return { handshakeMs, requests };
	} finally {
		socket.destroy();
	}
}

test('the relay serves the API over TLS, on the port the URL gives, and reports its delay', async () => {
	expect(sandbox.url).toBe(`https://127.0.0.1:${sandbox.port}`);
	expect(sandbox.latencyMs).toBe(ONE_WAY_MS);
	const reply = await get(sandbox, 'departments', {}, { ca: sandbox.certificate });
	expect(reply.status).toBe(200);
	expect(reply.json).toEqual(expect.arrayContaining([{ id: 1, name: 'Sales', order: 1 }]));
});

test('a new connection pays the TCP and TLS round trips; a kept-alive one pays one round trip', async () => {
	const { handshakeMs, requests } = await twoRequestsOnOneConnection();
	const [first, second] = requests;
	expect([first.head, second.head]).toEqual([
		expect.stringMatching(/^HTTP\/1\.1 200/),
		expect.stringMatching(/^HTTP\/1\.1 200/),
	]);
	expect(JSON.parse(second.body)).toEqual(JSON.parse(first.body));
	// TCP's handshake, then TLS's: at least two round trips (a timer may fire 1 ms early).
	expect(handshakeMs).toBeGreaterThanOrEqual(4 * ONE_WAY_MS - 2);
	// Each request on the open connection pays its own round trip and no handshake again. Only lower bounds are timed
	// absolutely; the one comparison has a round trip of margin (300 ms), which a busy machine would have to add to the
	// second request alone to break it.
	expect(first.ms).toBeGreaterThanOrEqual(2 * ONE_WAY_MS - 2);
	expect(second.ms).toBeGreaterThanOrEqual(2 * ONE_WAY_MS - 2);
	expect(second.ms).toBeLessThan(handshakeMs);
});

test('large replies arrive whole and in order, over many new TLS connections', async () => {
	const busy = await startSandbox({ https: true, chats: 100, latencyMs: 3 });
	try {
		const page = (await get(busy, 'chats', { since: '0' }, { ca: busy.certificate })).text;
		expect(page.length).toBeGreaterThan(100_000);
		// Each reply comes in many chunks; one out of order would break TLS or the JSON.
		for (let request = 0; request < 60; request++) {
			const reply = await get(busy, 'chats', { since: '0' }, { ca: busy.certificate });
			expect(reply.status).toBe(200);
			expect(reply.text).toBe(page);
		}
	} finally {
		await busy.stop();
	}
});

test('stop() closes the relay: nothing answers on its port afterwards', async () => {
	const other = await startSandbox({ chats: 1, latencyMs: 5 });
	expect((await get(other, 'departments')).status).toBe(200);
	await other.stop();
	await expect(get(other, 'departments')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
});

test('a relay port that is taken fails the start, and the server behind the relay is closed too', async () => {
	const createServer = jest.spyOn(http, 'createServer');
	try {
		await expect(startSandbox({ latencyMs: 5, port: sandbox.port })).rejects.toMatchObject({
			code: 'EADDRINUSE',
		});
		const inner = createServer.mock.results[0].value as http.Server;
		expect(inner.listening).toBe(false);
	} finally {
		createServer.mockRestore();
	}
});

test('a negative or fractional delay is refused', async () => {
	await expect(startSandbox({ latencyMs: -1 })).rejects.toThrow(/latencyMs/);
	await expect(startSandbox({ latencyMs: 2.5 })).rejects.toThrow(/latencyMs/);
});
