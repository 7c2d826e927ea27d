// Retries, counted request by request: what is retried, what never is, Retry-After, bounds, resets and timeouts.
import http from 'node:http';
import nock from 'nock';
import { NodeApiError, type IDataObject, type IHttpRequestMethods } from 'n8n-workflow';

import { ENDPOINTS, type EndpointPath } from '../../../nodes/SvcChat/transport/endpoints';
import { parseRetryAfter, retryPolicy, svcRequest } from '../../../nodes/SvcChat/transport/request';
import { testCredentials } from '../../harness/contexts';
import { instantPauses } from '../../harness/fixtures';
import {
	contextSending,
	listenLocally,
	ORIGIN,
	rejectionOf,
	transportContext,
	type LocalServer,
} from './support';

type Reply = [status: number, body?: string, headers?: Record<string, string>];

const DEPARTMENTS = '[{"id":1,"name":"Sales","order":1}]';
const BROADCAST_BODY: IDataObject = {
	operator_id: 1,
	data: { kind: 'msgapp', channel_id: 'c', data: { template_id: 't', entries: [] } },
};

let sleep: ReturnType<typeof instantPauses>;

beforeEach(() => {
	sleep = instantPauses();
});
afterEach(() => jest.restoreAllMocks());

/** Serves the replies in order (the last one repeats) and counts the requests. */
function serve(method: IHttpRequestMethods, apiPath: string, replies: Reply[]) {
	const seen = { requests: 0 };
	// Every request is answered (persisted); the test fails if none comes.
	const scope = nock(ORIGIN).persist();
	const interceptor =
		method === 'GET' ? scope.get(`/api/v2/${apiPath}`) : scope.post(`/api/v2/${apiPath}`);
	interceptor.reply(() => {
		const [status, body = '', headers = {}] = replies[Math.min(seen.requests, replies.length - 1)];
		seen.requests++;
		return [status, body, headers];
	});
	return seen;
}

const request = (
	method: IHttpRequestMethods,
	apiPath: EndpointPath,
	limits?: Partial<Omit<typeof retryPolicy, 'sleep'>>,
	body?: IDataObject,
) => {
	// The method served above is the one the endpoint table sends.
	expect(ENDPOINTS[apiPath].method).toBe(method);
	if (limits) sleep = instantPauses(limits);
	return svcRequest(transportContext(), apiPath, { body });
};

describe('retried', () => {
	test('502, then 200, succeeds after exactly one retry', async () => {
		const seen = serve('GET', 'departments', [[502], [200, DEPARTMENTS]]);
		await expect(request('GET', 'departments')).resolves.toEqual([
			{ id: 1, name: 'Sales', order: 1 },
		]);
		expect(seen.requests).toBe(2);
		expect(sleep).toHaveBeenCalledTimes(1);
	});

	test.each([503, 504, 429])('%i, then 200, succeeds after one retry', async (status) => {
		const seen = serve('GET', 'departments', [[status], [200, DEPARTMENTS]]);
		await expect(request('GET', 'departments')).resolves.toHaveLength(1);
		expect(seen.requests).toBe(2);
		expect(sleep).toHaveBeenCalledTimes(1);
	});

	test('real-time commands other than send_broadcast are retried', async () => {
		const seen = serve('POST', 'rt/agent_status', [[502], [200, '{"result":"ok"}']]);
		await expect(
			request('POST', 'rt/agent_status', undefined, { email: 'op@svc.test', status: 'online' }),
		).resolves.toEqual({ result: 'ok' });
		expect(seen.requests).toBe(2);
	});

	test('retries are bounded: maxRetries + 1 requests, then the error', async () => {
		const seen = serve('GET', 'departments', [[503]]);
		const error = await rejectionOf(request('GET', 'departments', { maxRetries: 2 }));
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toBe('The server is temporarily unavailable (503)');
		expect(error.description).toBe('Try again later. The request was tried 3 times.');
		expect(seen.requests).toBe(3);
		expect(sleep).toHaveBeenCalledTimes(2);
	});

	test(`the default is ${retryPolicy.maxRetries} retries`, async () => {
		const seen = serve('GET', 'departments', [[504]]);
		await rejectionOf(request('GET', 'departments'));
		expect(seen.requests).toBe(retryPolicy.maxRetries + 1);
	});

	test('maxRetries 0 sends one request and adds no retry note', async () => {
		const seen = serve('GET', 'departments', [[502]]);
		const error = await rejectionOf(request('GET', 'departments', { maxRetries: 0 }));
		expect(error.description).toBe(
			'Try again later. If it persists, contact Svc support with the time of the request.',
		);
		expect(seen.requests).toBe(1);
		expect(sleep).not.toHaveBeenCalled();
	});

	test('pauses back off exponentially with jitter, never above maxDelayMs', async () => {
		serve('GET', 'departments', [[502]]);
		await rejectionOf(
			request('GET', 'departments', { maxRetries: 5, baseDelayMs: 100, maxDelayMs: 500 }),
		);
		const pauses = sleep.mock.calls.map(([ms]) => ms);
		const ceilings = [100, 200, 400, 500, 500];
		expect(pauses).toHaveLength(ceilings.length);
		pauses.forEach((ms, attempt) => {
			expect(ms).toBeGreaterThanOrEqual(ceilings[attempt] / 2);
			expect(ms).toBeLessThanOrEqual(ceilings[attempt]);
		});
	});
});

describe('never retried', () => {
	test.each([401, 403])(
		'%i: exactly one request, since repeated bad logins lock the account',
		async (status) => {
			const seen = serve('GET', 'departments', [[status], [200, DEPARTMENTS]]);
			const error = await rejectionOf(request('GET', 'departments', { maxRetries: 5 }));
			expect(error.httpCode).toBe(String(status));
			expect(seen.requests).toBe(1);
			expect(sleep).not.toHaveBeenCalled();
		},
	);

	test('401 on a real-time command: exactly one request', async () => {
		const seen = serve('POST', 'rt/agent_status', [
			[401, '{"error":"unauthorized"}'],
			[200, '{"result":"ok"}'],
		]);
		await rejectionOf(
			request('POST', 'rt/agent_status', undefined, { email: 'op@svc.test', status: 'online' }),
		);
		expect(seen.requests).toBe(1);
	});

	test.each([502, 503, 504, 429])(
		'rt/send_broadcast on %i: exactly one request, and the user is told why',
		async (status) => {
			const seen = serve('POST', 'rt/send_broadcast', [
				[status, '', { 'Retry-After': '1' }],
				[200, '{"result":"ok"}'],
			]);
			const error = await rejectionOf(
				request('POST', 'rt/send_broadcast', { maxRetries: 5 }, BROADCAST_BODY),
			);
			expect(error.httpCode).toBe(String(status));
			expect(error.description).toMatch(
				/It was not retried, because a broadcast may already have gone out: check the broadcasts in Svc before sending it again\.$/,
			);
			expect(seen.requests).toBe(1);
			expect(sleep).not.toHaveBeenCalled();
		},
	);

	test('a 200 error reply is final, not retried', async () => {
		const seen = serve('GET', 'departments', [
			[200, '{"error":"unknown"}'],
			[200, DEPARTMENTS],
		]);
		await rejectionOf(request('GET', 'departments'));
		expect(seen.requests).toBe(1);
	});
});

describe('Retry-After', () => {
	test('in seconds: the pause is the asked one, then the retry happens', async () => {
		const seen = serve('GET', 'departments', [
			[429, '', { 'Retry-After': '2' }],
			[200, DEPARTMENTS],
		]);
		await expect(request('GET', 'departments')).resolves.toHaveLength(1);
		expect(sleep.mock.calls).toEqual([[2000]]);
		expect(seen.requests).toBe(2);
	});

	test('as an HTTP date: the pause runs until that date', async () => {
		const retryAt = new Date(Date.now() + 5000);
		const seen = serve('GET', 'departments', [
			[503, '', { 'Retry-After': retryAt.toUTCString() }],
			[200, DEPARTMENTS],
		]);
		await expect(request('GET', 'departments')).resolves.toHaveLength(1);
		expect(sleep).toHaveBeenCalledTimes(1);
		const [[pause]] = sleep.mock.calls;
		// toUTCString drops the milliseconds, so the date is up to one second earlier than asked.
		expect(pause).toBeGreaterThan(3000);
		expect(pause).toBeLessThanOrEqual(5000);
		expect(seen.requests).toBe(2);
	});

	test('a date in the past means "retry now"', async () => {
		serve('GET', 'departments', [
			[503, '', { 'Retry-After': 'Thu, 01 Jan 1970 00:00:00 GMT' }],
			[200, DEPARTMENTS],
		]);
		await expect(request('GET', 'departments')).resolves.toHaveLength(1);
		expect(sleep.mock.calls).toEqual([[0]]);
	});

	test('an unreadable value falls back to the backoff', async () => {
		serve('GET', 'departments', [
			[429, '', { 'Retry-After': 'soon' }],
			[200, DEPARTMENTS],
		]);
		await expect(request('GET', 'departments', { baseDelayMs: 100 })).resolves.toHaveLength(1);
		const [[pause]] = sleep.mock.calls;
		expect(pause).toBeGreaterThanOrEqual(50);
		expect(pause).toBeLessThanOrEqual(100);
	});

	test('above maxDelayMs it is not waited for: one request, and the error says why', async () => {
		const seen = serve('GET', 'departments', [
			[429, '', { 'Retry-After': '120' }],
			[200, DEPARTMENTS],
		]);
		const error = await rejectionOf(request('GET', 'departments', { maxDelayMs: 30_000 }));
		expect(error.message).toBe('Too many requests: the server asked to slow down');
		expect(error.description).toMatch(
			/The server asked to wait 120 s before trying again, longer than the node waits \(30 s\)\.$/,
		);
		expect(seen.requests).toBe(1);
		expect(sleep).not.toHaveBeenCalled();
	});

	test('parseRetryAfter reads seconds and HTTP dates, and nothing else', () => {
		const now = Date.parse('2024-05-01T10:00:00Z');
		expect(parseRetryAfter('7', now)).toBe(7000);
		expect(parseRetryAfter(' 1.5 ', now)).toBe(1500);
		expect(parseRetryAfter(['3', '9'], now)).toBe(3000);
		expect(parseRetryAfter('Wed, 01 May 2024 10:00:30 GMT', now)).toBe(30_000);
		expect(parseRetryAfter('Wed, 01 May 2024 09:00:00 GMT', now)).toBe(0);
		expect(parseRetryAfter('-1', now)).toBeUndefined();
		expect(parseRetryAfter('later', now)).toBeUndefined();
		expect(parseRetryAfter(undefined, now)).toBeUndefined();
	});
});

test('the retry policy: 3 retries, pauses from 500 ms up to 30 s, 60 s per attempt', () => {
	expect(retryPolicy).toMatchObject({
		maxRetries: 3,
		baseDelayMs: 500,
		maxDelayMs: 30_000,
		timeoutMs: 60_000,
	});
});

describe('connection failures, against a real local server', () => {
	let server: LocalServer | undefined;
	const served: string[] = [];

	afterEach(async () => {
		await server?.close();
		server = undefined;
		served.length = 0;
	});

	/** A server that resets the connection of the first `resets` requests, then answers `body`. */
	async function resettingServer(resets: number, body: string) {
		server = await listenLocally(
			http.createServer((incoming, response) => {
				served.push(`${incoming.method} ${incoming.url}`);
				if (served.length <= resets) {
					incoming.socket.destroy();
					return;
				}
				response.setHeader('Content-Type', 'application/json');
				response.end(body);
			}),
		);
		return transportContext(testCredentials(`http://${server.hostPort}`));
	}

	test('a connection reset is retried, then the answer is used', async () => {
		const context = await resettingServer(1, DEPARTMENTS);
		await expect(svcRequest(context, 'departments')).resolves.toHaveLength(1);
		expect(served).toEqual(['GET /api/v2/departments', 'GET /api/v2/departments']);
		expect(sleep).toHaveBeenCalledTimes(1);
	});

	test('resets on every attempt end after maxRetries + 1 requests', async () => {
		const context = await resettingServer(99, DEPARTMENTS);
		instantPauses({ maxRetries: 1 });
		const error = await rejectionOf(svcRequest(context, 'departments'));
		expect(error.message).toBe(`Host "${server!.hostPort}" closed the connection`);
		expect(error.description).toBe('Try again later. The request was tried 2 times.');
		expect(error.context.networkCode).toBe('ECONNRESET');
		expect(served).toHaveLength(2);
	});

	test('rt/send_broadcast is not retried after a reset', async () => {
		const context = await resettingServer(1, '{"result":"ok"}');
		const error = await rejectionOf(
			svcRequest(context, 'rt/send_broadcast', { body: BROADCAST_BODY }),
		);
		expect(error.message).toBe(`Host "${server!.hostPort}" closed the connection`);
		expect(error.description).toMatch(
			/It was not retried, because a broadcast may already have gone out/,
		);
		expect(served).toEqual(['POST /api/v2/rt/send_broadcast']);
		expect(sleep).not.toHaveBeenCalled();
	});

	test('a server that never answers times out after timeoutMs, and is retried', async () => {
		server = await listenLocally(
			http.createServer((incoming) => {
				served.push(`${incoming.method} ${incoming.url}`);
			}),
		);
		const context = transportContext(testCredentials(`http://${server.hostPort}`));
		instantPauses({ maxRetries: 1, timeoutMs: 150 });
		const error = await rejectionOf(svcRequest(context, 'departments'));
		expect(error.message).toBe(`Host "${server.hostPort}" did not answer in time`);
		expect(error.description).toBe(
			'Check the host, then try again later. The request was tried 2 times.',
		);
		expect(served).toHaveLength(2);
	});
});

describe("the end of a poll's budget (endBy)", () => {
	const OUT_OF_TIME =
		'The poll ran out of the time n8n gives it, so the next poll starts again from the same place.';

	test("each attempt's timeout is cut to the end, never below a second; without an end it is timeoutMs", async () => {
		const now = Date.now();
		jest.spyOn(Date, 'now').mockReturnValue(now);
		const timeouts: unknown[] = [];
		const context = contextSending(async (sent) => {
			timeouts.push(sent.timeout);
			return { statusCode: 200, headers: {}, body: DEPARTMENTS };
		});
		for (const endBy of [now + 5_000, now + 100, now - 1, undefined])
			await svcRequest(context, 'departments', { endBy });
		expect(timeouts).toEqual([5_000, 1_000, 1_000, 60_000]);
	});

	test('a 503 whose Retry-After ends past it is not waited for, and the error says the poll ran out of time', async () => {
		const seen = serve('GET', 'departments', [
			[503, '', { 'Retry-After': '5' }],
			[200, DEPARTMENTS],
		]);
		const endBy = Date.now() + 2_000;
		const error = await rejectionOf(svcRequest(transportContext(), 'departments', { endBy }));
		expect(error.message).toBe('The server is temporarily unavailable (503)');
		expect(error.description).toBe(`Try again later. ${OUT_OF_TIME}`);
		expect(seen.requests).toBe(1);
		expect(sleep).not.toHaveBeenCalled();
	});

	test('a retry that ends before it is still made', async () => {
		const seen = serve('GET', 'departments', [
			[503, '', { 'Retry-After': '5' }],
			[200, DEPARTMENTS],
		]);
		const endBy = Date.now() + 36_000;
		await expect(svcRequest(transportContext(), 'departments', { endBy })).resolves.toHaveLength(1);
		expect(seen.requests).toBe(2);
		expect(sleep.mock.calls).toEqual([[5_000]]);
	});

	test('a server that never answers is given up at the end, without a retry, and says why', async () => {
		const served: string[] = [];
		const server = await listenLocally(
			http.createServer((incoming) => {
				served.push(`${incoming.method} ${incoming.url}`);
			}),
		);
		try {
			const context = transportContext(testCredentials(`http://${server.hostPort}`));
			// Without the end, the attempt would wait timeoutMs (60 s) and outlive the test's own timeout.
			const endBy = Date.now() + 1_000;
			const error = await rejectionOf(svcRequest(context, 'departments', { endBy }));
			expect(error.message).toBe(`Host "${server.hostPort}" did not answer in time`);
			expect(error.description).toBe(`Check the host, then try again later. ${OUT_OF_TIME}`);
			expect(served).toEqual(['GET /api/v2/departments']);
			expect(sleep).not.toHaveBeenCalled();
		} finally {
			await server.close();
		}
	});
});
