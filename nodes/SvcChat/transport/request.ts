// THE request function: every request of every Svc node goes through svcRequest (base URL, auth, retries, reply decoding).
import {
	NodeApiError,
	sleep,
	type IDataObject,
	type ICredentialDataDecryptedObject,
	type ICredentialsDecrypted,
	type ICredentialTestFunctions,
	type INodeCredentialTestResult,
	type IExecuteFunctions,
	type IHttpRequestOptions,
	type ILoadOptionsFunctions,
	type IN8nHttpFullResponse,
	type IPollFunctions,
	type JsonObject,
} from 'n8n-workflow';

import { isPlainObject } from '../helpers/values';
import { HOST_FIX, normalizeBaseUrl } from './baseUrl';
import { underLoginGuard } from './loginGuard';
import {
	ENDPOINTS,
	NOT_RETRIED_NOTE,
	type Endpoint,
	type EndpointPath,
	type ReplyTo,
} from './endpoints';
import {
	ERROR_DETAIL_MEMBERS,
	describeErrorCode,
	describeHttpStatus,
	describeNetworkError,
	excerpt,
	isNothingSentCode,
	redact,
	redactValue,
	secretForms,
	SVC_ERROR_CODES,
	type SvcErrorText,
	type SvcFailure,
} from './errors';

const CREDENTIALS_TYPE = 'svcApi';

export type SvcApiContext = IExecuteFunctions | IPollFunctions | ILoadOptionsFunctions;

export interface SvcCredentials {
	host: string;
	email: string;
	password: string;
	ignoreSslIssues?: boolean;
}

export interface SvcRequestOptions<Query extends IDataObject = IDataObject> {
	qs?: Query;
	body?: IDataObject;
	/** Put on the thrown NodeApiError so n8n shows which item failed. */
	itemIndex?: number;
	/** Why this request is never sent again once it may have reached the server; added to the error's fix. */
	notRetried?: string;
	/** The credentials, when the caller has read them already (see readCredentials). */
	credentials?: SvcCredentials;
	/** Date.now() by which it must end, retries included: n8n silently abandons a poll that outlives its budget. */
	endBy?: number;
	/** Told the `Date` header of the accepted reply (ms; NaN when absent or unreadable): the server's present. */
	onServerDate?: (dateMs: number) => void;
}

/** The one retry setting of the transport; tests replace its members (pauses that take no time) for one test. */
export const retryPolicy = {
	/** Extra attempts after the first one, for 429, 502, 503, 504, connection resets and timeouts. */
	maxRetries: 3,
	/** First backoff pause; it doubles each attempt, with jitter. */
	baseDelayMs: 500,
	/** No single pause is longer; a Retry-After above it is not waited for, the error is raised instead. */
	maxDelayMs: 30_000,
	timeoutMs: 60_000, // per attempt
	/** n8n's `sleep`, or a recorder in tests, which then need not stub a module. */
	sleep: sleep as (ms: number) => Promise<void>,
};

const RETRIED_STATUSES = new Set([429, 502, 503, 504]);
const RETRIED_NETWORK_CODES = new Set([
	'ECONNRESET',
	'EPIPE',
	'ETIMEDOUT',
	'ECONNABORTED',
	'ESOCKETTIMEDOUT',
	'EAI_AGAIN',
]);

/**
 * The system code (ECONNRESET, ENOTFOUND…) of an error thrown by n8n's request helper. n8n keeps it in `httpCode` of
 * its NodeApiError; n8n 2.x also keeps the original error as `cause`, n8n 1.x drops it. So both are read, on every level.
 */
function findNetworkCode(error: unknown): string | undefined {
	let current: unknown = error;
	for (let depth = 0; depth < 4 && isPlainObject(current); depth++) {
		const { code, httpCode } = current as { code?: unknown; httpCode?: unknown };
		for (const candidate of [code, httpCode])
			if (typeof candidate === 'string' && /^[A-Z][A-Z0-9_]{2,}$/.test(candidate)) return candidate;
		current = (current as { cause?: unknown }).cause;
	}
	return undefined;
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

// Statuses whose meaning is fully known: an excerpt of their body would add nothing.
const SVC_HTTP_ERRORS_WITHOUT_EXCERPT = new Set([401, 403, 429, 502, 503, 504]);

/** Decodes one reply: HTTP status, JSON, the `error` member, the endpoint's own error rule and its documented shape. */
function decodeReply(
	endpoint: Endpoint<unknown>,
	qs: IDataObject,
	response: IN8nHttpFullResponse,
	secrets: string[],
): { reply: unknown; failure?: SvcFailure } {
	const { body, statusCode: status } = response;
	// Raw text (or nothing at all) is parsed here; an empty body is not JSON either.
	const raw =
		typeof body === 'string' || Buffer.isBuffer(body) || body === undefined || body === null;
	const text = raw ? String(body ?? '') : JSON.stringify(body);
	let reply: unknown = body;
	let isJson = true;
	try {
		if (raw) reply = JSON.parse(text);
	} catch {
		isJson = false;
	}
	const rawCode =
		isJson && isPlainObject(reply) && typeof reply.error === 'string' ? reply.error : undefined;
	// Everything taken from the reply into an error is redacted first: a server may echo what it was sent.
	const errorCode = rawCode === undefined ? undefined : redact(rawCode, secrets);
	const details =
		rawCode === undefined
			? undefined
			: (redactValue(pickErrorDetails(reply as IDataObject), secrets) as IDataObject);
	const fail = (text: SvcErrorText, code?: string, withDetails?: IDataObject) => ({
		reply,
		failure: { text, httpCode: status, code, details: withDetails },
	});

	const own = endpoint.readError?.({ status, isJson, reply, errorCode, qs });
	if (own !== undefined) return fail(own.text, errorCode ?? own.code, details);
	if (errorCode !== undefined && status === 200)
		return fail(describeErrorCode(errorCode, details), errorCode, details);
	if (status >= 300 && status < 400) {
		const location =
			typeof response.headers.location === 'string'
				? excerpt(response.headers.location, secrets)
				: 'another address';
		const fix =
			'The node does not follow redirects, so the password is only ever sent to the host in the credentials. If the new address is your chat server, enter its host there.';
		const message = `The server redirects the request to ${location} (HTTP ${status})`;
		return fail({ message, fix }, 'redirect');
	}
	if (status !== 200) {
		const { message, fix } = describeHttpStatus(status);
		const shown =
			text && !SVC_HTTP_ERRORS_WITHOUT_EXCERPT.has(status)
				? ` Reply: ${excerpt(text, secrets)}`
				: '';
		return fail({ message, fix: `${fix}${shown}` }, errorCode, details);
	}
	if (!isJson) {
		const message = 'The server did not answer with JSON';
		const fix = `Check that the host in the credentials is the Svc chat server, not a web page or proxy. Reply began: ${excerpt(text, secrets) || '(empty)'}`;
		return fail({ message, fix }, 'not-json');
	}
	if (!endpoint.shape.matches(reply, qs)) {
		const message = `The server's reply has an unexpected shape: expected ${endpoint.shape.expected}`;
		const fix = `Check that the host is a Svc chat server with API v2. Reply began: ${excerpt(text, secrets)}`;
		return fail({ message, fix }, 'unexpected-shape');
	}
	return { reply };
}

/** The reply's members that explain its error code (spec 7.1 to 7.3). */
const pickErrorDetails = (reply: IDataObject): IDataObject =>
	Object.fromEntries(
		ERROR_DETAIL_MEMBERS.flatMap((key) => (reply[key] === undefined ? [] : [[key, reply[key]]])),
	);

/** Turns a transport failure into the error n8n shows, keeping the code and detail members for expressions. */
export function toNodeApiError(context: SvcApiContext, failure: SvcFailure, itemIndex?: number) {
	const { text, httpCode, code, networkCode, details } = failure;
	// The context is serialised with the error, so the code and detail members survive into n8n's error output.
	const members: JsonObject = {
		...(code ? { svcError: code } : {}),
		...(networkCode ? { networkCode } : {}),
	};
	const errorResponse = {
		message: text.message,
		...members,
		...(details && { error: code, ...details }),
	};
	const error = new NodeApiError(context.getNode(), errorResponse, {
		message: text.message,
		description: text.fix,
		// n8n's editor shows this as "Error code": a refusal inside a 200 reply shows its Svc code (the one that has
		// details), else nothing; never "200".
		httpCode: httpCode === 200 ? details && code : httpCode?.toString(),
		itemIndex,
	});
	// NodeApiError swaps a message that mentions a system code (ECONNRESET…) for n8n's generic text; ours says more.
	error.message = text.message;
	error.description = text.fix;
	Object.assign(error.context, members, details);
	return error;
}

/**
 * THE request, through n8n's authenticated helper (its proxy, SSL, logging and cancel signal), with bounded retries. It
 * resolves to the endpoint's checked reply type; a failure throws the NodeApiError n8n shows.
 */
export async function svcRequest<
	Path extends EndpointPath,
	Query extends IDataObject = IDataObject,
>(
	context: SvcApiContext,
	path: Path,
	options: SvcRequestOptions<Query> = {},
): Promise<ReplyTo<Path, Query>> {
	const credentials = options.credentials ?? (await readCredentials(context));
	const endpoint: Endpoint<unknown> = ENDPOINTS[path];
	const secrets = secretForms(credentials);
	const { baseUrl, problem } = normalizeBaseUrl(credentials.host);
	if (problem !== undefined) {
		// The problem quotes the host as typed, and a password pasted into the wrong field must not come back.
		const text = { message: redact(problem, secrets), fix: HOST_FIX };
		throw toNodeApiError(context, { text, code: 'invalid-host' }, options.itemIndex);
	}
	// Why a request that may have been carried out is not sent again; undefined when it may be (see Endpoint.retried).
	const notRetried =
		options.notRetried ??
		(endpoint.method === 'GET' || endpoint.retried
			? undefined
			: (endpoint.notRetried ?? NOT_RETRIED_NOTE));
	const retryable = notRetried === undefined;
	const request: IHttpRequestOptions = {
		method: endpoint.method,
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
		skipSslCertificateValidation: credentials.ignoreSslIssues === true,
		// Basic credentials go only to the host typed in the credentials: n8n would resend them to wherever a redirect
		// points, even another origin. A redirect is reported instead (and not following it is also a little faster).
		disableFollowRedirect: true,
	};
	// Handed to n8n's helper so that it does not read and decrypt the credentials again for every request.
	const { id, name } = context.getNode().credentials?.[CREDENTIALS_TYPE] ?? { id: '', name: '' };
	const data = credentials as unknown as ICredentialDataDecryptedObject;
	const credentialsDecrypted = { id: id ?? '', name, type: CREDENTIALS_TYPE, data };

	const endBy = options.endBy ?? Infinity;
	return await underLoginGuard(context, credentials, options.itemIndex, async (answered, aside) => {
		for (let attempt = 0; ; attempt++) {
			// At least a second, so no attempt is cut to nothing; n8n's margin past the budget is longer.
			const timeout = Math.min(retryPolicy.timeoutMs, Math.max(1_000, endBy - Date.now()));
			let response: IN8nHttpFullResponse | undefined;
			let networkCode: string | undefined;
			try {
				response = (await context.helpers.httpRequestWithAuthentication.call(
					context,
					CREDENTIALS_TYPE,
					{ ...request, timeout },
					{ credentialsDecrypted },
				)) as IN8nHttpFullResponse;
			} catch (error) {
				networkCode = findNetworkCode(error);
			}
			const transient = response
				? RETRIED_STATUSES.has(response.statusCode)
				: networkCode !== undefined && RETRIED_NETWORK_CODES.has(networkCode);
			const retryAfter = transient ? parseRetryAfter(response?.headers['retry-after']) : undefined;
			const waitTooLong = retryAfter !== undefined && retryAfter > retryPolicy.maxDelayMs;
			const ceiling = Math.min(retryPolicy.maxDelayMs, retryPolicy.baseDelayMs * 2 ** attempt);
			// "Equal jitter": at least half the ceiling, so clients spread out without retrying at once.
			const pause = retryAfter ?? Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
			// Past this point with `retried` set, only the poll's end stopped the retry.
			const retried = transient && retryable && attempt < retryPolicy.maxRetries && !waitTooLong;
			if (retried && Date.now() + pause < endBy) {
				await aside(async () => await retryPolicy.sleep(pause));
				continue;
			}
			const decoded = response && decodeReply(endpoint, options.qs ?? {}, response, secrets);
			const refusal = response ? answered(response.statusCode) : '';
			if (decoded && !decoded.failure) {
				options.onServerDate?.(Date.parse(String(response?.headers.date)));
				return decoded.reply as ReplyTo<Path, Query>;
			}
			const failure = decoded?.failure ?? {
				text: describeNetworkError(networkCode, new URL(baseUrl).host),
				networkCode,
			};
			const { httpCode = 0, code = '' } = failure;
			// How often it was tried, or why not, once the server may have carried the request out: a failure after it had
			// the request, a 5xx or an unreadable reply cannot tell whether it did.
			const tellTries = response
				? transient ||
					(!retryable && (httpCode >= 500 || ['not-json', 'unexpected-shape'].includes(code)))
				: !isNothingSentCode(networkCode);
			const outOfTime = retried
				? 'The poll ran out of the time n8n gives it, so the next poll starts again from the same place.'
				: '';
			const tried =
				notRetried ?? (attempt > 0 ? `The request was tried ${attempt + 1} times.` : '');
			const note =
				waitTooLong && retryable
					? `The server asked to wait ${Math.ceil(retryAfter / 1000)} s before trying again, longer than the node waits (${Math.round(retryPolicy.maxDelayMs / 1000)} s).`
					: tellTries
						? [tried, outOfTime].filter(Boolean).join(' ')
						: '';
			const fix = [failure.text.fix, note, refusal].filter(Boolean).join(' ');
			throw toNodeApiError(
				context,
				{ ...failure, text: { ...failure.text, fix } },
				options.itemIndex,
			);
		}
	});
}

/** The `svcApi` credentials; n8n reads and decrypts them on every call, so a walk, a batch or a poll reads them once. */
export const readCredentials = async (context: SvcApiContext) =>
	(await context.getCredentials(CREDENTIALS_TYPE)) as unknown as SvcCredentials;

// The form is the credentials: its texts do not point at it.
const inTheForm = ({ message, fix }: SvcErrorText) =>
	`${message}${/[.!?]$/.test(message) ? '' : '.'} ${fix.replace(' in the Svc API credentials', '')}`;
const REDIRECT_REFUSED: SvcErrorText = {
	message:
		'The server redirects the request elsewhere, and the credentials are never sent on to another address',
	fix: 'Enter the final host (the address the chat server answers on) in the Host field.',
};

/**
 * The credential's Test button (the node's `credentialTest`): one cheap stored-data request, sent once (n8n's
 * declarative test would send a request answered 401 a second time), never redirected, counted by the login guard.
 * Every status gets our own text, never the server's reason phrase, which could echo the Basic credentials.
 */
export async function testSvcCredentials(
	this: ICredentialTestFunctions,
	{ data }: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	const credentials = (data ?? {}) as unknown as SvcCredentials;
	const secrets = secretForms(credentials);
	const failed = (text: SvcErrorText) => ({ status: 'Error' as const, message: inTheForm(text) });
	const { baseUrl, problem } = normalizeBaseUrl(credentials.host);
	if (problem !== undefined) return failed({ message: redact(problem, secrets), fix: HOST_FIX });
	// n8n gives a credential test only its legacy `request` helper: there is no httpRequest to use instead.
	const { request } = this.helpers;
	return await underLoginGuard('credential test', credentials, undefined, async (answered) => {
		let reply: { statusCode: number; body: unknown };
		try {
			reply = await request({
				uri: `${baseUrl}/api/v2/partner/tariffs`,
				method: 'GET',
				auth: { user: credentials.email, pass: credentials.password },
				json: true,
				followRedirect: false,
				followAllRedirects: false,
				rejectUnauthorized: credentials.ignoreSslIssues !== true,
				timeout: 15_000,
				simple: false,
				resolveWithFullResponse: true,
			});
		} catch (error) {
			return failed(describeNetworkError(findNetworkCode(error), new URL(baseUrl).host));
		}
		const { statusCode: status, body } = reply;
		answered(status);
		if (status >= 300 && status < 400) return failed(REDIRECT_REFUSED);
		if (status < 200 || status >= 300) return failed(describeHttpStatus(status));
		const code = isPlainObject(body) ? body.error : undefined;
		if (code === 'no-tariff-option' || code === 'unauthorized')
			return failed(SVC_ERROR_CODES[code]);
		return { status: 'OK', message: 'Connection successful!' };
	});
}
