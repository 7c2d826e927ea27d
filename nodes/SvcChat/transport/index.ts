// THE HTTP helper: every request of every Svc node goes through here (base URL, auth, retries, reply decoding).
import {
	NodeApiError,
	sleep,
	type ICredentialDataDecryptedObject,
	type ICredentialsDecrypted,
	type IDataObject,
	type IExecuteFunctions,
	type IHttpRequestMethods,
	type IHttpRequestOptions,
	type ILoadOptionsFunctions,
	type IPollFunctions,
	type JsonObject,
} from 'n8n-workflow';

import type { Chat, ChatsReply, Cursor } from '../types';
import {
	ERROR_DETAIL_MEMBERS,
	describeErrorCode,
	describeHttpStatus,
	describeNetworkError,
	type SvcErrorText,
} from './errors';
import { normalizeBaseUrl } from './baseUrl';

export { normalizeBaseUrl, isLoopbackHostname } from './baseUrl';

export const CREDENTIALS_TYPE = 'svcApi';

export type SvcApiContext = IExecuteFunctions | IPollFunctions | ILoadOptionsFunctions;

/** The fields of the `svcApi` credentials. */
export interface SvcCredentials {
	host: string;
	email: string;
	password: string;
	ignoreSslIssues?: boolean;
}

export interface RetryPolicy {
	/** Extra attempts after the first one, for 429, 502, 503, 504, connection resets and timeouts. */
	maxRetries: number;
	/** First backoff pause; it doubles each attempt, with jitter. */
	baseDelayMs: number;
	/** No single pause is longer; a Retry-After above it is not waited for, the error is raised instead. */
	maxDelayMs: number;
	/** Time allowed for one attempt. */
	timeoutMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
	maxRetries: 3,
	baseDelayMs: 500,
	maxDelayMs: 30_000,
	timeoutMs: 60_000,
};

export interface SvcRequestOptions {
	qs?: IDataObject;
	body?: IDataObject;
	/** Put on the thrown NodeApiError so n8n shows which item failed. */
	itemIndex?: number;
	retry?: Partial<RetryPolicy>;
}

/** What the transport needs from a reply; n8n's `returnFullResponse` gives exactly this. */
export interface SvcHttpResponse {
	statusCode: number;
	headers: Record<string, unknown>;
	body: unknown;
}

/** Sends one HTTP request as given (Basic auth is already in it); the nodes and the tests each bring their own. */
export type SvcSend = (options: IHttpRequestOptions) => Promise<SvcHttpResponse>;

/** A failure the transport has already explained; callers turn it into a NodeApiError. */
export interface SvcFailure {
	text: SvcErrorText;
	httpCode?: number;
	/** The API's error code (spec 7), or the transport's own: invalid-host, redirect, not-json, unexpected-shape, chat-not-found. */
	code?: string;
	/** The system error code when the server could not be reached (ECONNRESET, ENOTFOUND…). */
	networkCode?: string;
	/** The error members of the reply (error, field, argument, field_name, field_value). */
	reply?: IDataObject;
}

export type SvcOutcome<T> = { ok: true; reply: T } | { ok: false; failure: SvcFailure };

// Commands that must never be sent twice: a retried broadcast could message the same people again.
const NON_IDEMPOTENT_PATHS = new Set(['rt/send_broadcast']);
const RETRIED_STATUSES = new Set([429, 502, 503, 504]);
const RETRIED_NETWORK_CODES = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ECONNABORTED', 'ESOCKETTIMEDOUT', 'EAI_AGAIN']);
// Codes that mean "the request was refused", never "the chat does not exist".
const ACCOUNT_ERROR_CODES = new Set(['no-tariff-option', 'unauthorized', 'unknown-method']);
const EXCERPT_LENGTH = 200;
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
const REPLY_SHAPES: Record<string, { expected: string; matches: (reply: unknown, qs: IDataObject) => boolean }> = {
	operators: { expected: 'a list of operators', matches: Array.isArray },
	departments: { expected: 'a list of departments', matches: Array.isArray },
	'partner/tariffs': {
		expected: 'an object with a "tariffs" list',
		matches: (reply) => isObject(reply) && Array.isArray(reply.tariffs),
	},
	chats: {
		expected: 'an object with "chats", "more_chats_available" and "last_ts"',
		matches: (reply) =>
			isObject(reply) &&
			Array.isArray(reply.chats) &&
			typeof reply.more_chats_available === 'boolean' &&
			isCursor(reply.last_ts),
	},
	chat: { expected: 'an object with a "chat"', matches: (reply) => isObject(reply) && isObject(reply.chat) },
	stats: {
		expected: 'usage figures (mode usage) or a list of operator rows (mode operators)',
		// Usage figures must hold at least one of the figures of spec 2.11; any object would let a stray reply through.
		matches: (reply, qs) =>
			qs.mode === 'operators' ? Array.isArray(reply) : isObject(reply) && USAGE_FIGURES.some((figure) => figure in reply),
	},
};
const REAL_TIME_SHAPE = { expected: 'an object with "result": "ok"', matches: (reply: unknown) => isObject(reply) && reply.result === 'ok' };

function shapeFor(path: string) {
	return path.startsWith('rt/') ? REAL_TIME_SHAPE : REPLY_SHAPES[path];
}

/**
 * The forms in which the password could come back from a hostile or careless server: as typed, JSON-escaped,
 * URL-encoded, or inside the Basic `Authorization` value. Longest first, so no form is left half-replaced.
 */
function secretForms(credentials: SvcCredentials): string[] {
	const password = typeof credentials.password === 'string' ? credentials.password : '';
	if (!password) return [];
	const basic = Buffer.from(`${credentials.email ?? ''}:${password}`).toString('base64');
	const forms = [password, JSON.stringify(password).slice(1, -1), encodeURIComponent(password), basic];
	return [...new Set(forms)].sort((a, b) => b.length - a.length);
}

function redact(text: string, secrets: string[]): string {
	let clean = text;
	for (const secret of secrets) clean = clean.split(secret).join('***');
	return clean;
}

/** Redacts every string inside a value taken from a reply, keeping its shape. */
function redactValue(value: unknown, secrets: string[]): unknown {
	if (typeof value === 'string') return redact(value, secrets);
	if (Array.isArray(value)) return value.map((entry) => redactValue(entry, secrets));
	if (isObject(value)) {
		return Object.fromEntries(Object.entries(value).map(([key, entry]) => [redact(key, secrets), redactValue(entry, secrets)]));
	}
	return value;
}

/** Cuts a reply down to a short, secret-free excerpt for an error message (redacted before it is cut). */
function excerpt(text: string, secrets: string[]): string {
	const clean = redact(text, secrets).replace(/\s+/g, ' ').trim();
	return clean.length > EXCERPT_LENGTH ? `${clean.slice(0, EXCERPT_LENGTH)}…` : clean;
}

function bodyText(body: unknown): string {
	if (typeof body === 'string') return body;
	if (Buffer.isBuffer(body)) return body.toString('utf8');
	if (body === undefined || body === null) return '';
	return JSON.stringify(body);
}

/** Finds a system error code (ECONNRESET, ETIMEDOUT…) on an error or the errors it wraps. */
function findNetworkCode(error: unknown): string | undefined {
	let current: unknown = error;
	for (let depth = 0; depth < 4 && isObjectLike(current); depth++) {
		const code = (current as { code?: unknown }).code;
		if (typeof code === 'string' && /^[A-Z][A-Z0-9_]{2,}$/.test(code)) return code;
		current = (current as { cause?: unknown }).cause;
	}
	return undefined;
}

function isObjectLike(value: unknown): value is object {
	return typeof value === 'object' && value !== null;
}

/** Seconds or an HTTP date, as milliseconds; undefined when absent or unreadable. */
export function parseRetryAfter(value: unknown, now = Date.now()): number | undefined {
	const raw = Array.isArray(value) ? value[0] : value;
	if (typeof raw !== 'string' && typeof raw !== 'number') return undefined;
	const text = String(raw).trim();
	if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
	// An HTTP date always names its day and month; without letters it is garbage such as "-1", not a date.
	if (!/[a-z]/i.test(text)) return undefined;
	const date = Date.parse(text);
	return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function backoffDelay(policy: RetryPolicy, attempt: number): number {
	const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
	// "Equal jitter": at least half the ceiling, so clients spread out without retrying at once.
	return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
}

/** Decodes one reply: HTTP status, JSON, the `error` member and the documented shape. */
function decodeReply(path: string, qs: IDataObject, response: SvcHttpResponse, secrets: string[]): SvcOutcome<unknown> {
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
	const rawCode = isJson && isObject(reply) && typeof reply.error === 'string' ? reply.error : undefined;
	// Everything taken from the reply into an error is redacted first: a server may echo what it was sent.
	const errorCode = rawCode === undefined ? undefined : redact(rawCode, secrets);
	const errorMembers = rawCode === undefined ? undefined : (redactValue(pickErrorMembers(reply as IDataObject), secrets) as IDataObject);

	const refused = rawCode !== undefined && ACCOUNT_ERROR_CODES.has(rawCode);
	const chatMissing = status === 200 && isJson && !refused && !(isObject(reply) && isObject(reply.chat));
	if (path === 'chat' && (status === 404 || chatMissing)) {
		// The reply to an unknown id is not shown in the spec: whatever its shape, say what happened.
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
	if (errorCode !== undefined && errorMembers !== undefined && (status === 200 || status === 401 || status === 403)) {
		const described = status === 200 ? describeErrorCode(errorCode, errorMembers) : describeHttpStatus(status);
		return fail({ text: described, httpCode: status, code: errorCode, reply: errorMembers });
	}
	if (status >= 300 && status < 400) {
		const location = typeof response.headers.location === 'string' ? excerpt(response.headers.location, secrets) : 'another address';
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
		const shown = text && !SVC_HTTP_ERRORS_WITHOUT_EXCERPT.has(status) ? ` Reply: ${excerpt(text, secrets)}` : '';
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
	for (const member of ERROR_DETAIL_MEMBERS) if (reply[member] !== undefined) members[member] = reply[member];
	return members;
}

/** Merges retry limits over the defaults, ignoring values that would loop or never wait (they may come from node options). */
export function resolveRetryPolicy(overrides: Partial<RetryPolicy> = {}): RetryPolicy {
	const policy = { ...DEFAULT_RETRY_POLICY };
	for (const key of Object.keys(policy) as Array<keyof RetryPolicy>) {
		const value = overrides[key];
		if (typeof value === 'number' && Number.isFinite(value) && value >= 0) policy[key] = Math.floor(value);
	}
	if (policy.timeoutMs === 0) policy.timeoutMs = DEFAULT_RETRY_POLICY.timeoutMs;
	return policy;
}

/** What the user should know about retries of a failure that retrying could have cured. */
function retryNote(retryable: boolean, attempts: number): string {
	if (!retryable) {
		return 'It was not retried, because a broadcast may already have gone out: check the broadcasts in Svc before sending it again.';
	}
	return attempts > 1 ? `The request was tried ${attempts} times.` : '';
}

/** The request reached the server, but whether it was carried out cannot be told from the reply. */
function outcomeUnknown(failure: SvcFailure): boolean {
	return (failure.httpCode ?? 0) >= 500 || failure.code === 'not-json' || failure.code === 'unexpected-shape';
}

function withNote(failure: SvcFailure, note: string): SvcFailure {
	return note ? { ...failure, text: { ...failure.text, fix: `${failure.text.fix} ${note}` } } : failure;
}

/**
 * Sends one Svc API request through `send`, with bounded retries, and decodes the reply.
 * Used by every request of the nodes (through n8n's request helper).
 */
export async function sendSvcRequest(
	send: SvcSend,
	credentials: SvcCredentials,
	method: IHttpRequestMethods,
	path: string,
	options: SvcRequestOptions = {},
): Promise<SvcOutcome<unknown>> {
	const secrets = secretForms(credentials);
	const { baseUrl, problem } = normalizeBaseUrl(credentials.host);
	if (problem !== undefined) {
		// The problem quotes the host as typed, and a password pasted into the wrong field must not come back.
		const text = { message: redact(problem, secrets), fix: 'Correct the host in the Svc API credentials.' };
		return { ok: false, failure: { text, code: 'invalid-host' } };
	}
	const policy = resolveRetryPolicy(options.retry);
	const retryable = !NON_IDEMPOTENT_PATHS.has(path);
	const request: IHttpRequestOptions = {
		method,
		url: `${baseUrl}/api/v2/${path}`,
		qs: options.qs,
		body: options.body,
		headers: options.body ? { 'Content-Type': 'application/json' } : undefined,
		// Basic auth is applied here, not by an `authenticate` block on the credential: n8n would then let any HTTP
		// Request node send the password anywhere (see credentials/SvcApi.credentials.ts).
		auth: { username: credentials.email, password: credentials.password },
		json: true,
		// Raw text, parsed once here: a non-JSON reply becomes a clear error instead of a half-parsed value.
		encoding: 'text',
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		timeout: policy.timeoutMs,
		skipSslCertificateValidation: credentials.ignoreSslIssues === true,
		// Basic credentials go only to the host typed in the credentials: n8n would resend them to wherever a redirect
		// points, even another origin. A redirect is reported instead (and not following it is also a little faster).
		disableFollowRedirect: true,
	};

	for (let attempt = 0; ; attempt++) {
		const canRetry = retryable && attempt < policy.maxRetries;
		let response: SvcHttpResponse;
		try {
			response = await send({ ...request });
		} catch (error) {
			const networkCode = findNetworkCode(error);
			const transient = networkCode !== undefined && RETRIED_NETWORK_CODES.has(networkCode);
			if (canRetry && transient) {
				await sleep(backoffDelay(policy, attempt));
				continue;
			}
			const failure: SvcFailure = { text: describeNetworkError(networkCode, new URL(baseUrl).host), networkCode };
			return { ok: false, failure: transient ? withNote(failure, retryNote(retryable, attempt + 1)) : failure };
		}
		if (!RETRIED_STATUSES.has(response.statusCode)) {
			const outcome = decodeReply(path, options.qs ?? {}, response, secrets);
			// A broadcast answered by a server error or an unreadable reply may still have gone out: say so.
			if (outcome.ok || retryable || !outcomeUnknown(outcome.failure)) return outcome;
			return { ok: false, failure: withNote(outcome.failure, retryNote(retryable, attempt + 1)) };
		}

		const retryAfter = parseRetryAfter(response.headers['retry-after']);
		const waitTooLong = retryAfter !== undefined && retryAfter > policy.maxDelayMs;
		if (canRetry && !waitTooLong) {
			await sleep(retryAfter ?? backoffDelay(policy, attempt));
			continue;
		}
		const outcome = decodeReply(path, options.qs ?? {}, response, secrets);
		if (outcome.ok) return outcome;
		const note =
			waitTooLong && retryable
				? `The server asked to wait ${Math.ceil(retryAfter / 1000)} s before trying again, longer than the node waits (${Math.round(policy.maxDelayMs / 1000)} s).`
				: retryNote(retryable, attempt + 1);
		return { ok: false, failure: withNote(outcome.failure, note) };
	}
}

/** Turns a transport failure into the error n8n shows, keeping the code and detail members for expressions. */
export function toNodeApiError(context: SvcApiContext, failure: SvcFailure, itemIndex?: number): NodeApiError {
	const { text, httpCode, code, networkCode, reply } = failure;
	const errorResponse: JsonObject = {
		message: text.message,
		...(code ? { svcError: code } : {}),
		...(networkCode ? { networkCode } : {}),
		...(reply ?? {}),
	};
	const error = new NodeApiError(context.getNode(), errorResponse, {
		message: text.message,
		description: text.fix,
		httpCode: httpCode !== undefined ? String(httpCode) : undefined,
		itemIndex,
	});
	// NodeApiError swaps a message that mentions a system code (ECONNRESET…) for n8n's generic text; ours says more.
	error.message = text.message;
	error.description = text.fix;
	// The context is serialised with the error, so the code and detail members survive into n8n's error output.
	if (code) error.context.svcError = code;
	if (networkCode) error.context.networkCode = networkCode;
	for (const member of ERROR_DETAIL_MEMBERS) if (reply?.[member] !== undefined) error.context[member] = reply[member];
	return error;
}

/** A request through n8n's authenticated request helper, which honours n8n's proxy, SSL and logging settings. */
export async function svcApiRequest(
	this: SvcApiContext,
	method: IHttpRequestMethods,
	path: string,
	options: SvcRequestOptions = {},
): Promise<unknown> {
	const credentials = (await this.getCredentials(CREDENTIALS_TYPE)) as unknown as SvcCredentials;
	return await requestWithCredentials.call(this, credentials, method, path, options);
}

/**
 * svcApiRequest with the credentials already read. n8n reads credentials from its database and decrypts them on each
 * getCredentials, and its request helper would do so again for every request unless it is handed them: a walk over
 * many pages reads them once.
 */
async function requestWithCredentials(
	this: SvcApiContext,
	credentials: SvcCredentials,
	method: IHttpRequestMethods,
	path: string,
	options: SvcRequestOptions,
): Promise<unknown> {
	const reference = this.getNode().credentials?.[CREDENTIALS_TYPE];
	const credentialsDecrypted: ICredentialsDecrypted = {
		id: reference?.id ?? '',
		name: reference?.name ?? '',
		type: CREDENTIALS_TYPE,
		data: credentials as unknown as ICredentialDataDecryptedObject,
	};
	const send: SvcSend = async (request) =>
		(await this.helpers.httpRequestWithAuthentication.call(this, CREDENTIALS_TYPE, request, { credentialsDecrypted })) as SvcHttpResponse;
	const outcome = await sendSvcRequest(send, credentials, method, path, options);
	if (!outcome.ok) throw toNodeApiError(this, outcome.failure, options.itemIndex);
	return outcome.reply;
}

export interface ChatPage {
	/** Cursor this page was requested with. */
	since: Cursor;
	chats: Chat[];
	/** Cursor to pass next time, exactly as the server sent it. */
	lastTs: Cursor;
	moreChatsAvailable: boolean;
}

// A server that keeps saying "more" while handing back nothing is stopped after this many empty pages in a row.
const MAX_EMPTY_PAGES_IN_A_ROW = 3;

/**
 * Walks `GET /chats` from `since`, one page at a time, following `last_ts` while `more_chats_available` is true
 * (spec 4.6). The caller decides when to stop; a failed page throws after the earlier pages were yielded.
 */
export async function* svcChatPages(
	this: SvcApiContext,
	since: Cursor,
	options: Omit<SvcRequestOptions, 'qs' | 'body'> = {},
): AsyncGenerator<ChatPage> {
	const credentials = (await this.getCredentials(CREDENTIALS_TYPE)) as unknown as SvcCredentials;
	let cursor = since;
	let emptyPagesInARow = 0;
	for (;;) {
		const reply = (await requestWithCredentials.call(this, credentials, 'GET', 'chats', { ...options, qs: { since: cursor } })) as ChatsReply;
		const page: ChatPage = { since: cursor, chats: reply.chats, lastTs: reply.last_ts, moreChatsAvailable: reply.more_chats_available };
		yield page;
		if (!page.moreChatsAvailable) return;
		emptyPagesInARow = page.chats.length === 0 ? emptyPagesInARow + 1 : 0;
		const stalled = String(page.lastTs) === String(cursor);
		if (stalled || emptyPagesInARow >= MAX_EMPTY_PAGES_IN_A_ROW) {
			const text = {
				message: stalled
					? `The server keeps reporting more chats, but its cursor stopped moving (last_ts ${String(page.lastTs)})`
					: `The server keeps reporting more chats, but sent none in ${MAX_EMPTY_PAGES_IN_A_ROW} pages in a row (last_ts ${String(page.lastTs)})`,
				fix: 'Stopped to avoid an endless loop. Try again later; if it persists, contact Svc support.',
			};
			throw toNodeApiError(this, { text, code: 'cursor-stalled' }, options.itemIndex);
		}
		cursor = page.lastTs;
	}
}

/** Keeps one version of each chat, the latest delivered, in the order of latest delivery (spec rule 4.6.4). */
export function addLatestVersions(byId: Map<string, Chat>, chats: Chat[]): void {
	for (const chat of chats) {
		const key = String(chat.id);
		byId.delete(key);
		byId.set(key, chat);
	}
}

export interface CollectedChats {
	chats: Chat[];
	/**
	 * A cursor that loses nothing: the last page's `last_ts` when every page was taken whole,
	 * else the cursor of the page the limit cut, so its remaining chats come again next time.
	 */
	lastTs: Cursor;
}

/** Reads changed chats since a cursor, up to `limit` distinct chats, fetching no page beyond it. */
export async function svcGetChats(
	this: SvcApiContext,
	since: Cursor,
	{ limit, ...options }: Omit<SvcRequestOptions, 'qs' | 'body'> & { limit?: number } = {},
): Promise<CollectedChats> {
	const byId = new Map<string, Chat>();
	let lastTs = since;
	if (limit !== undefined && limit <= 0) return { chats: [], lastTs };
	for await (const page of svcChatPages.call(this, since, options)) {
		addLatestVersions(byId, page.chats);
		if (limit !== undefined && byId.size >= limit) {
			const cutInsidePage = byId.size > limit;
			lastTs = cutInsidePage ? page.since : page.lastTs;
			return { chats: [...byId.values()].slice(0, limit), lastTs };
		}
		lastTs = page.lastTs;
	}
	return { chats: [...byId.values()], lastTs };
}
