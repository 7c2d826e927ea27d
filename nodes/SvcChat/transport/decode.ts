// Reply decoding: HTTP status, JSON, the API's `error` member and each endpoint's documented reply shape.
import type { IDataObject } from 'n8n-workflow';

import { isObject, type Endpoint } from './endpoints';
import { ERROR_DETAIL_MEMBERS, describeErrorCode, describeHttpStatus } from './errors';
import { excerpt, redact, redactValue } from './redaction';
import type { SvcFailure, SvcHttpResponse, SvcOutcome } from './types';

// Statuses whose meaning is fully known: an excerpt of their body would add nothing.
const SVC_HTTP_ERRORS_WITHOUT_EXCERPT = new Set([401, 403, 429, 502, 503, 504]);

export function bodyText(body: unknown): string {
	if (typeof body === 'string') return body;
	if (Buffer.isBuffer(body)) return body.toString('utf8');
	if (body === undefined || body === null) return '';
	return JSON.stringify(body);
}

/** Decodes one reply: HTTP status, JSON, the `error` member, the endpoint's own error rule and its documented shape. */
export function decodeReply<Reply>(
	endpoint: Endpoint<Reply>,
	qs: IDataObject,
	response: SvcHttpResponse,
	secrets: string[],
): SvcOutcome<Reply> {
	const fail = (failure: SvcFailure): SvcOutcome<Reply> => ({ ok: false, failure });
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

	const own = endpoint.readError?.({ status, isJson, reply, errorCode: rawCode, qs });
	if (own !== undefined) {
		return fail({
			text: own.text,
			httpCode: status,
			code: errorCode ?? own.code,
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
	const { shape } = endpoint;
	if (!shape.matches(reply, qs)) {
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
