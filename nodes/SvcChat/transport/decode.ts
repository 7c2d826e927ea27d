// Reply decoding: HTTP status, JSON, the API's `error` member and each endpoint's documented reply shape.
import type { IDataObject } from 'n8n-workflow';

import type { Cursor } from '../types';
import { ERROR_DETAIL_MEMBERS, describeErrorCode, describeHttpStatus } from './errors';
import { excerpt, redact, redactValue } from './redaction';
import type { SvcFailure, SvcHttpResponse, SvcOutcome } from './types';

// GET /chat's reply to an unknown id is not shown in the spec; only a code that says "not found" means it. Every
// other code (unknown, argument-missing, no-tariff-option…) keeps its own message: `unknown` may be temporary.
const NOT_FOUND_CODE = /not[-_ ]?found|no[-_ ]such/i;
// Statuses whose meaning is fully known: an excerpt of their body would add nothing.
const SVC_HTTP_ERRORS_WITHOUT_EXCERPT = new Set([401, 403, 429, 502, 503, 504]);

const isObject = (value: unknown): value is IDataObject =>
	typeof value === 'object' && value !== null && !Array.isArray(value);

/** An integer-valued microsecond cursor, as a number or a string of digits (spec 4.6). */
export const isCursor = (value: unknown): value is Cursor =>
	(typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) ||
	(typeof value === 'string' && /^\d{1,20}$/.test(value));

const USAGE_FIGURES = ['contacts', 'missed', 'chats', 'offlines', 'avg_waiting_time'];

/** The documented reply shape of each endpoint; anything else is reported, never passed on half-read. */
const REPLY_SHAPES: Record<
	string,
	{ expected: string; matches: (reply: unknown, qs: IDataObject) => boolean }
> = {
	operators: { expected: 'a list of operators', matches: Array.isArray },
	departments: { expected: 'a list of departments', matches: Array.isArray },
	'partner/tariffs': {
		expected: 'an object with a "tariffs" list',
		matches: (reply) => isObject(reply) && Array.isArray(reply.tariffs),
	},
	chats: {
		expected: 'an object with "chats", "more_chats_available" and "last_ts"',
		// A missing or null last_ts is judged with the page (transport/cursor.ts): harmless on an empty one.
		matches: (reply) =>
			isObject(reply) &&
			Array.isArray(reply.chats) &&
			reply.chats.every(isObject) &&
			typeof reply.more_chats_available === 'boolean' &&
			(reply.last_ts === undefined || reply.last_ts === null || isCursor(reply.last_ts)),
	},
	chat: {
		expected: 'an object with a "chat"',
		matches: (reply) => isObject(reply) && isObject(reply.chat),
	},
	stats: {
		expected: 'usage figures (mode usage) or a list of operator rows (mode operators)',
		// Usage figures must hold at least one of the figures of spec 2.11; any object would let a stray reply through.
		matches: (reply, qs) =>
			qs.mode === 'operators'
				? Array.isArray(reply)
				: isObject(reply) && USAGE_FIGURES.some((figure) => figure in reply),
	},
};
const REAL_TIME_SHAPE = {
	expected: 'an object with "result": "ok"',
	matches: (reply: unknown) => isObject(reply) && reply.result === 'ok',
};

function shapeFor(path: string) {
	return path.startsWith('rt/') ? REAL_TIME_SHAPE : REPLY_SHAPES[path];
}

export function bodyText(body: unknown): string {
	if (typeof body === 'string') return body;
	if (Buffer.isBuffer(body)) return body.toString('utf8');
	if (body === undefined || body === null) return '';
	return JSON.stringify(body);
}

/** Decodes one reply: HTTP status, JSON, the `error` member and the documented shape. */
export function decodeReply(
	path: string,
	qs: IDataObject,
	response: SvcHttpResponse,
	secrets: string[],
): SvcOutcome<unknown> {
	const fail = (failure: SvcFailure): SvcOutcome<unknown> => ({ ok: false, failure });
	const body = response.body;
	const text = bodyText(body);
	let reply: unknown = body;
	let isJson = true;
	// Raw text (or nothing at all) is parsed here; an empty body is not JSON either.
	if (typeof body === 'string' || Buffer.isBuffer(body) || body === undefined || body === null) {
		try {
			reply = JSON.parse(text);
		} catch {
			isJson = false;
		}
	}
	const status = response.statusCode;
	const rawCode =
		isJson && isObject(reply) && typeof reply.error === 'string' ? reply.error : undefined;
	// Everything taken from the reply into an error is redacted first: a server may echo what it was sent.
	const errorCode = rawCode === undefined ? undefined : redact(rawCode, secrets);
	const errorMembers =
		rawCode === undefined
			? undefined
			: (redactValue(pickErrorMembers(reply as IDataObject), secrets) as IDataObject);

	const chatMissing =
		status === 200 &&
		isJson &&
		(rawCode === undefined
			? !(isObject(reply) && isObject(reply.chat))
			: NOT_FOUND_CODE.test(rawCode));
	if (path === 'chat' && (status === 404 || chatMissing)) {
		return fail({
			text: {
				message: `Chat ${JSON.stringify(qs.id)} not found`,
				fix: 'Check the chat ID. Chat > Get Many lists the IDs of recent chats.',
			},
			httpCode: status,
			code: errorCode ?? 'chat-not-found',
			reply: errorMembers,
		});
	}
	if (
		errorCode !== undefined &&
		errorMembers !== undefined &&
		(status === 200 || status === 401 || status === 403)
	) {
		const described =
			status === 200 ? describeErrorCode(errorCode, errorMembers) : describeHttpStatus(status);
		return fail({ text: described, httpCode: status, code: errorCode, reply: errorMembers });
	}
	if (status >= 300 && status < 400) {
		const location =
			typeof response.headers.location === 'string'
				? excerpt(response.headers.location, secrets)
				: 'another address';
		return fail({
			text: {
				message: `The server redirects the request to ${location} (HTTP ${status})`,
				fix: 'The node does not follow redirects, so the password is only ever sent to the host in the credentials. If the new address is your chat server, enter its host there.',
			},
			httpCode: status,
			code: 'redirect',
		});
	}
	if (status !== 200) {
		const described = describeHttpStatus(status);
		const shown =
			text && !SVC_HTTP_ERRORS_WITHOUT_EXCERPT.has(status)
				? ` Reply: ${excerpt(text, secrets)}`
				: '';
		return fail({
			text: { message: described.message, fix: `${described.fix}${shown}` },
			httpCode: status,
			code: errorCode,
			reply: errorMembers,
		});
	}
	if (!isJson) {
		return fail({
			text: {
				message: 'The server did not answer with JSON',
				fix: `Check that the host in the credentials is the Svc chat server, not a web page or proxy. Reply began: ${excerpt(text, secrets) || '(empty)'}`,
			},
			httpCode: status,
			code: 'not-json',
		});
	}
	const shape = shapeFor(path);
	if (shape && !shape.matches(reply, qs)) {
		return fail({
			text: {
				message: `The server's reply has an unexpected shape: expected ${shape.expected}`,
				fix: `Check that the host is a Svc chat server with API v2. Reply began: ${excerpt(text, secrets)}`,
			},
			httpCode: status,
			code: 'unexpected-shape',
		});
	}
	return { ok: true, reply };
}

function pickErrorMembers(reply: IDataObject): IDataObject {
	const members: IDataObject = { error: reply.error };
	for (const member of ERROR_DETAIL_MEMBERS)
		if (reply[member] !== undefined) members[member] = reply[member];
	return members;
}
