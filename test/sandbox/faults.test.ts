// Fault injection: each fault kind does what it says, for the next N requests, a percentage of them, or one path.
import { startSandbox, type Sandbox } from '../../sandbox';
import type { ChatsReply } from '../../nodes/SvcChat/types';
import { call, get, rt } from './client';

let sandbox: Sandbox;

beforeAll(async () => {
	sandbox = await startSandbox({ seed: 2, chats: 250 });
});
afterAll(async () => await sandbox.stop());
beforeEach(() => sandbox.control.reset());

const pair = (token: string) =>
	rt(sandbox, 'provide_visitor_fields', { auth_token: token, visitor_fields: { id: 'u-1' } });

test('502: the server cannot process the request, and does not', async () => {
	sandbox.control.injectFault({ kind: '502' });
	const reply = await pair('t1');
	expect({ status: reply.status, text: reply.text }).toEqual({ status: 502, text: 'Bad Gateway' });
	expect(sandbox.control.pairings()).toEqual({});
	// Used up: the next request is normal.
	expect((await pair('t1')).json).toEqual({ result: 'ok' });
	expect(sandbox.control.requestLog().map(({ status, fault }) => ({ status, fault }))).toEqual([
		{ status: 502, fault: '502' },
		{ status: 200, fault: undefined },
	]);
});

test('503 and 429 carry Retry-After', async () => {
	sandbox.control.injectFault({ kind: '503', retryAfterSeconds: 7 });
	sandbox.control.injectFault({ kind: '429' });
	const unavailable = await get(sandbox, 'departments');
	expect(unavailable.status).toBe(503);
	expect(unavailable.headers['retry-after']).toBe('7');
	const tooMany = await get(sandbox, 'departments');
	expect(tooMany.status).toBe(429);
	expect(tooMany.headers['retry-after']).toBe('1');
	expect((await get(sandbox, 'departments')).status).toBe(200);
});

test('reset: the connection is destroyed without a reply, and the request is not processed', async () => {
	sandbox.control.injectFault({ kind: 'reset' });
	await expect(pair('t1')).rejects.toMatchObject({ code: 'ECONNRESET' });
	expect(sandbox.control.pairings()).toEqual({});
	expect(sandbox.control.requestLog()).toEqual([
		{
			method: 'POST',
			path: '/api/v2/rt/provide_visitor_fields',
			query: {},
			status: 0,
			fault: 'reset',
		},
	]);
	expect((await pair('t1')).status).toBe(200);
});

test('delay: the reply waits, then comes normally', async () => {
	sandbox.control.injectFault({ kind: 'delay', delayMs: 5000 });
	// A client that gives up first gets nothing (and the sandbox copes with the closed socket).
	await expect(get(sandbox, 'departments', {}, { timeoutMs: 100 })).rejects.toMatchObject({
		code: 'CLIENT_TIMEOUT',
	});
	const normal = await get(sandbox, 'departments');
	sandbox.control.injectFault({ kind: 'delay', delayMs: 20 });
	const delayed = await get(sandbox, 'departments');
	expect({ status: delayed.status, text: delayed.text }).toEqual({
		status: normal.status,
		text: normal.text,
	});
	expect(sandbox.control.requestLog().map((entry) => entry.fault)).toEqual([
		'delay',
		undefined,
		'delay',
	]);
});

test('truncated: the request is processed, the JSON reply is cut in the middle with consistent headers', async () => {
	sandbox.control.injectFault({ kind: 'truncated' });
	const cut = await get(sandbox, 'chats', { since: '0' });
	const whole = await get(sandbox, 'chats', { since: '0' });
	expect(cut.status).toBe(200);
	expect(cut.headers['content-type']).toBe('application/json; charset=utf-8');
	expect(Number(cut.headers['content-length'])).toBe(Buffer.byteLength(cut.text));
	expect(cut.json).toBeUndefined();
	expect(cut.text.length).toBeGreaterThan(0);
	expect(whole.text.startsWith(cut.text)).toBe(true);
	expect(cut.text.length).toBeLessThan(whole.text.length);
	sandbox.control.injectFault({ kind: 'truncated' });
	expect((await pair('t1')).json).toBeUndefined();
	expect(sandbox.control.pairings()).toEqual({ t1: { id: 'u-1' } });
});

test('non-json: 200 text/plain garbage', async () => {
	sandbox.control.injectFault({ kind: 'non-json' });
	const reply = await get(sandbox, 'operators');
	expect(reply.status).toBe(200);
	expect(reply.headers['content-type']).toMatch(/^text\/plain/);
	expect(() => JSON.parse(reply.text)).toThrow();
});

test('html: an HTML error page, status 500 by default or 200', async () => {
	sandbox.control.injectFault({ kind: 'html' });
	sandbox.control.injectFault({ kind: 'html', status: 200 });
	const error = await get(sandbox, 'operators');
	const ok = await get(sandbox, 'operators');
	for (const [reply, status] of [
		[error, 500],
		[ok, 200],
	] as const) {
		expect(reply.status).toBe(status);
		expect(reply.headers['content-type']).toMatch(/^text\/html/);
		expect(reply.text).toMatch(/^<!DOCTYPE html>/);
		expect(reply.json).toBeUndefined();
	}
});

test('unexpected-shape: valid JSON, but a list where an object is due and an object where a list is', async () => {
	sandbox.control.injectFault({ kind: 'unexpected-shape', count: 4 });
	const operators = await get(sandbox, 'operators');
	expect(operators.status).toBe(200);
	expect(Array.isArray(operators.json)).toBe(false);
	expect(operators.json).toEqual(expect.any(Object));
	expect(Array.isArray((await get(sandbox, 'chats', { since: '0' })).json)).toBe(true);
	expect(Array.isArray((await pair('t1')).json)).toBe(true);
	expect(
		Array.isArray((await get(sandbox, 'stats', { date: '2025-01-01', mode: 'usage' })).json),
	).toBe(true);
	expect(sandbox.control.pairings()).toEqual({});
});

test('missing-last-ts: a /chats reply without last_ts; other paths are not touched', async () => {
	sandbox.control.injectFault({ kind: 'missing-last-ts' });
	expect((await get(sandbox, 'departments')).status).toBe(200);
	const reply = (await get(sandbox, 'chats', { since: '0' })).json as Partial<ChatsReply>;
	expect(Object.keys(reply).sort()).toEqual(['chats', 'more_chats_available']);
	expect(reply.chats).toHaveLength(100);
	expect(reply.more_chats_available).toBe(true);
	expect(Object.keys((await get(sandbox, 'chats', { since: '0' })).json as object)).toContain(
		'last_ts',
	);
});

test('stuck-more: more_chats_available true and last_ts equal to since, while the fault lasts', async () => {
	sandbox.control.injectFault({ kind: 'stuck-more', count: 3 });
	const since = '1000';
	for (let i = 0; i < 3; i++) {
		expect((await get(sandbox, 'chats', { since })).json).toEqual({
			chats: [],
			more_chats_available: true,
			last_ts: 1000,
		});
	}
	const normal = (await get(sandbox, 'chats', { since })).json as ChatsReply;
	expect(normal.chats).toHaveLength(100);
	expect(normal.last_ts).not.toBe(1000);
	sandbox.control.setSettings({ lastTsAsString: true });
	sandbox.control.injectFault({ kind: 'stuck-more' });
	expect((await get(sandbox, 'chats', { since })).json).toEqual({
		chats: [],
		more_chats_available: true,
		last_ts: '1000',
	});
});

test('huge: about 20 MB of valid JSON of the wrong shape', async () => {
	sandbox.control.injectFault({ kind: 'huge' });
	const reply = await get(sandbox, 'chats', { since: '0' });
	expect(reply.status).toBe(200);
	expect(reply.text.length).toBeGreaterThan(19_000_000);
	expect(reply.json).toEqual({ padding: expect.any(Array) });
});

test('count: the next N requests; path: only requests to that path', async () => {
	sandbox.control.injectFault({ kind: '502', count: 2, path: '/api/v2/chats' });
	expect((await get(sandbox, 'departments')).status).toBe(200);
	expect((await get(sandbox, 'chats', { since: '0' })).status).toBe(502);
	expect((await get(sandbox, 'operators')).status).toBe(200);
	expect((await get(sandbox, 'chats', { since: '0' })).status).toBe(502);
	expect((await get(sandbox, 'chats', { since: '0' })).status).toBe(200);
});

test('since: only the request for that cursor, as the first page of a poll that starts from it asks', async () => {
	sandbox.control.injectFault({ kind: 'unexpected-shape', path: '/api/v2/chats', since: '42' });
	expect((await get(sandbox, 'chats', { since: '0' })).status).toBe(200);
	expect((await get(sandbox, 'chats', { since: '42' })).json).toEqual([{ unexpected: 'shape' }]);
	expect((await get(sandbox, 'chats', { since: '42' })).json).toHaveProperty('last_ts');
	expect(() =>
		sandbox.control.injectFault({ kind: '502', since: 42 as unknown as string }),
	).toThrow(/since must be a string/);
});

test('percent: about that share of requests, repeatably, until cleared', async () => {
	const faultedOf = async (n: number) => {
		let faulted = 0;
		for (let i = 0; i < n; i++) if ((await get(sandbox, 'departments')).status === 503) faulted++;
		return faulted;
	};
	sandbox.control.injectFault({ kind: '503', percent: 25 });
	const first = await faultedOf(200);
	expect(first).toBeGreaterThan(20);
	expect(first).toBeLessThan(80);
	// Seeded: the same run after a reset gives the same count.
	sandbox.control.reset();
	sandbox.control.injectFault({ kind: '503', percent: 25 });
	expect(await faultedOf(200)).toBe(first);
	sandbox.control.clearFaults();
	expect(await faultedOf(20)).toBe(0);
	// percent with count: at most count requests get it.
	sandbox.control.injectFault({ kind: '503', percent: 100, count: 2 });
	expect(await faultedOf(10)).toBe(2);
});

test('a fault spec that makes no sense is refused', () => {
	expect(() => sandbox.control.injectFault({ kind: 'teapot' as never })).toThrow(
		/Unknown fault kind/,
	);
	expect(() => sandbox.control.injectFault({ kind: '502', percent: 0 })).toThrow(/percent/);
});

test('the request log counts API requests only, with their query', async () => {
	await get(sandbox, 'chats', { since: '42' });
	await call(sandbox, 'GET', '/__control/requests');
	await call(sandbox, 'POST', '/api/v2/rt/agent_status', { body: '{', auth: null });
	expect(sandbox.control.requestLog()).toEqual([
		{ method: 'GET', path: '/api/v2/chats', query: { since: '42' }, status: 200 },
		{ method: 'POST', path: '/api/v2/rt/agent_status', query: {}, status: 401 },
	]);
});
