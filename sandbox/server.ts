// The sandbox's HTTP(S) front: routing, authorization, fault injection and the exact bytes of every reply.
import type { IncomingMessage, ServerResponse } from 'node:http';

import { authorize } from './auth';
import { CONTROL_PREFIX, createControlHandler, type SandboxControl } from './control';
import {
	CHATS_PATH,
	FaultInjector,
	HTML_ERROR_PAGE,
	hugeReply,
	NON_JSON_BODY,
	unexpectedShape,
	type FaultSpec,
} from './faults';
import { agentStatus, provideVisitorFields, sendBroadcast, type RealTimeReply } from './realtime';
import type { RequestLogEntry, SandboxState } from './state';
import { STORED_PATHS, storedData } from './stored';

/** Request size limit: not shown in the spec; 10 MB, answered with 413 beyond. */
const MAX_BODY_BYTES = 10 * 1024 * 1024;
const API_PREFIX = '/api/v2/';

export const REAL_TIME_COMMANDS: Record<
	string,
	(state: SandboxState, body: string) => RealTimeReply
> = {
	provide_visitor_fields: provideVisitorFields,
	agent_status: agentStatus,
	send_broadcast: sendBroadcast,
};

interface ApiReply {
	status: number;
	body: unknown;
	headers?: Record<string, string>;
}

/**
 * One API request after faults. Order: unknown path 404 (not shown; our choice: `{"error":"not-found"}`), then
 * authorization (section 5), then API access (`no-tariff-option`, on the real-time commands too), then the method
 * (real-time: not POST gives `unknown`; stored data: not GET gives `unknown-method`), then the command itself.
 * Bodies not shown in the spec, our choices: 401 is `{"error":"unauthorized"}` on both groups (the real-time body of 5.4)
 * with a `WWW-Authenticate` header; 403 is `{"error":"forbidden","reason":"not-administrator"|"too-many-attempts"}`.
 */
/** Spec 4: real-time commands take a JSON body; a body not declared as JSON is not read (our reply code, see README). */
function isJsonContentType(contentType: string | undefined): boolean {
	return (contentType ?? '').split(';')[0].trim().toLowerCase() === 'application/json';
}

function answerApi(
	state: SandboxState,
	method: string,
	url: URL,
	body: string,
	authorization: string | undefined,
	contentType: string | undefined,
): ApiReply {
	const path = url.pathname.slice(API_PREFIX.length);
	const command =
		path.startsWith('rt/') && Object.hasOwn(REAL_TIME_COMMANDS, path.slice(3))
			? REAL_TIME_COMMANDS[path.slice(3)]
			: undefined;
	if (!url.pathname.startsWith(API_PREFIX) || (!command && !STORED_PATHS.has(path))) {
		return { status: 404, body: { error: 'not-found' } };
	}
	const auth = authorize(state, authorization);
	if (!auth.ok) {
		return auth.status === 401
			? {
					status: 401,
					body: { error: 'unauthorized' },
					headers: { 'WWW-Authenticate': 'Basic realm="Svc API", charset="UTF-8"' },
				}
			: { status: 403, body: { error: 'forbidden', reason: auth.reason } };
	}
	const afterLogin = state.afterNextLogin;
	state.afterNextLogin = undefined;
	afterLogin?.();
	if (!state.settings.apiAccess) return { status: 200, body: { error: 'no-tariff-option' } };
	if (command) {
		if (method !== 'POST') return { status: 200, body: { error: 'unknown' } };
		if (state.settings.requireJsonContentType && !isJsonContentType(contentType)) {
			return { status: 200, body: { error: 'request-body-is-not-valid-json' } };
		}
		return { status: 200, body: command(state, body) };
	}
	if (method !== 'GET') return { status: 200, body: { error: 'unknown-method' } };
	return { status: 200, body: storedData(state, path, url.searchParams) };
}

class BodyTooLargeError extends Error {}

function readBody(request: IncomingMessage): Promise<string> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		let size = 0;
		request.on('data', (chunk: Buffer) => {
			size += chunk.length;
			if (size > MAX_BODY_BYTES) {
				reject(new BodyTooLargeError());
				request.removeAllListeners('data');
				request.resume();
				return;
			}
			chunks.push(chunk);
		});
		request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
		request.on('error', reject);
	});
}

function send(
	response: ServerResponse,
	status: number,
	contentType: string,
	payload: string | Buffer,
	headers: Record<string, string> = {},
): void {
	if (response.destroyed || response.writableEnded) return;
	const bytes = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
	response.writeHead(status, {
		'Content-Type': contentType,
		'Content-Length': String(bytes.length),
		...headers,
	});
	response.end(bytes);
}

const JSON_TYPE = 'application/json; charset=utf-8';

export interface RequestHandlerParts {
	state: SandboxState;
	faults: FaultInjector;
	control: SandboxControl;
	/** Keeps delay timers so that stop() can cancel them. */
	timers: Set<NodeJS.Timeout>;
}

export function createRequestHandler(parts: RequestHandlerParts) {
	const { state, faults, control, timers } = parts;
	const handleControl = createControlHandler(control);
	const wait = (ms: number) =>
		new Promise<void>((resolve) => {
			const timer = setTimeout(() => {
				timers.delete(timer);
				resolve();
			}, ms);
			timers.add(timer);
		});

	async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
		const method = request.method ?? 'GET';
		const url = new URL(request.url ?? '/', 'http://127.0.0.1');
		let body: string;
		try {
			body = await readBody(request);
		} catch (error) {
			if (error instanceof BodyTooLargeError)
				send(response, 413, 'text/plain; charset=utf-8', 'Request body too large');
			else request.socket.destroy();
			return;
		}

		if (url.pathname.startsWith(CONTROL_PREFIX)) {
			const reply = handleControl(method, url.pathname, url.searchParams, body);
			send(response, reply.status, JSON_TYPE, JSON.stringify(reply.body));
			return;
		}

		const entry: RequestLogEntry = {
			method,
			path: url.pathname,
			query: Object.fromEntries(url.searchParams),
			status: 0,
		};
		state.requestLog.push(entry);
		const fault = faults.take(url.pathname, url.searchParams.get('since'));
		if (fault) entry.fault = fault.kind;
		const reply = (
			status: number,
			contentType: string,
			payload: string | Buffer,
			headers?: Record<string, string>,
		) => {
			entry.status = status;
			send(response, status, contentType, payload, headers);
		};

		if (fault && (await answerWithFault(fault, url, reply, request, response))) return;

		const answer = answerApi(
			state,
			method,
			url,
			body,
			request.headers.authorization,
			request.headers['content-type'],
		);
		if (state.settings.replyDelayMs) await wait(state.settings.replyDelayMs);
		let payload = answer.body;
		if (
			fault?.kind === 'missing-last-ts' &&
			answer.status === 200 &&
			typeof payload === 'object' &&
			payload !== null &&
			'last_ts' in payload
		) {
			const withoutCursor = { ...(payload as Record<string, unknown>) };
			delete withoutCursor.last_ts;
			payload = withoutCursor;
		}
		// The server's present, from its own clock (spec 4 shows no time; HTTP servers send one).
		if (state.settings.dateHeader) response.setHeader('Date', state.now().toUTCString());
		else response.sendDate = false;
		let text = JSON.stringify(payload);
		// truncated: the request was processed, but the reply is cut mid-JSON; headers stay consistent with what is sent.
		if (fault?.kind === 'truncated') text = text.slice(0, Math.max(1, Math.floor(text.length / 2)));
		reply(answer.status, JSON_TYPE, text, answer.headers);
	}

	/** Answers instead of the API when the fault replaces the reply; false when the API should still answer. */
	async function answerWithFault(
		fault: FaultSpec,
		url: URL,
		reply: (
			status: number,
			contentType: string,
			payload: string | Buffer,
			headers?: Record<string, string>,
		) => void,
		request: IncomingMessage,
		response: ServerResponse,
	): Promise<boolean> {
		const retryAfter = { 'Retry-After': String(fault.retryAfterSeconds ?? 1) };
		switch (fault.kind) {
			case '502':
				reply(502, 'text/plain; charset=utf-8', 'Bad Gateway');
				return true;
			case '503':
				reply(503, 'text/plain; charset=utf-8', 'Service Unavailable', retryAfter);
				return true;
			case '429':
				reply(429, 'text/plain; charset=utf-8', 'Too Many Requests', retryAfter);
				return true;
			case 'reset':
				request.socket.destroy();
				response.destroy();
				return true;
			case 'delay':
				await wait(fault.delayMs ?? 1000);
				return false;
			case 'non-json':
				reply(200, 'text/plain; charset=utf-8', NON_JSON_BODY);
				return true;
			case 'html':
				reply(fault.status ?? 500, 'text/html; charset=utf-8', HTML_ERROR_PAGE);
				return true;
			case 'unexpected-shape':
				reply(200, JSON_TYPE, JSON.stringify(unexpectedShape(url.pathname, url.searchParams)));
				return true;
			case 'huge':
				reply(200, JSON_TYPE, hugeReply());
				return true;
			case 'stuck-more': {
				const since = url.searchParams.get('since') ?? '0';
				const lastTs = state.settings.lastTsAsString ? since : Number(since);
				if (url.pathname !== CHATS_PATH || !/^\d+$/.test(since)) return false;
				reply(
					200,
					JSON_TYPE,
					JSON.stringify({ chats: [], more_chats_available: true, last_ts: lastTs }),
				);
				return true;
			}
			default:
				return false;
		}
	}

	return (request: IncomingMessage, response: ServerResponse) => {
		handle(request, response).catch((error: unknown) => {
			// A sandbox bug: answered as the spec's catch-all code, and shown on stderr so it is not missed.
			console.error('[sandbox] request failed:', error);
			send(response, 200, JSON_TYPE, JSON.stringify({ error: 'unknown' }));
		});
	};
}
