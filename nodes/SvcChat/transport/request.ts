// The request loop: sends one API request with bounded retries, decodes it, and turns failures into n8n errors.
import {
	NodeApiError,
	type IDataObject,
	type ICredentialDataDecryptedObject,
	type ICredentialsDecrypted,
	type IHttpRequestOptions,
	type JsonObject,
} from 'n8n-workflow';

import { normalizeBaseUrl } from './baseUrl';
import { decodeReply } from './decode';
import {
	ENDPOINTS,
	whyNotRetried,
	type Endpoint,
	type EndpointPath,
	type ReplyOf,
	type ReplyTo,
} from './endpoints';
import { ERROR_DETAIL_MEMBERS, describeNetworkError } from './errors';
import { redact, secretForms } from './redaction';
import {
	RETRIED_STATUSES,
	backoffDelay,
	classifyNetworkFailure,
	outcomeUnknown,
	parseRetryAfter,
	retryNote,
	retryPolicy,
	withNote,
} from './retry';
import {
	CREDENTIALS_TYPE,
	type SvcApiContext,
	type SvcCredentials,
	type SvcFailure,
	type SvcHttpResponse,
	type SvcOutcome,
	type SvcRequestOptions,
	type SvcSend,
} from './types';

/**
 * Sends one Svc API request through `send`, with bounded retries, and decodes the reply.
 * Used by every request of the nodes (through n8n's request helper).
 */
export async function sendSvcRequest<Path extends EndpointPath>(
	send: SvcSend,
	credentials: SvcCredentials,
	path: Path,
	options: SvcRequestOptions = {},
): Promise<SvcOutcome<ReplyOf<Path>>> {
	return await sendToEndpoint(
		send,
		credentials,
		ENDPOINTS[path] as Endpoint<ReplyOf<Path>>,
		options,
	);
}

/** sendSvcRequest for an endpoint given by its entry (the tests bring entries of their own). */
export async function sendToEndpoint<Reply>(
	send: SvcSend,
	credentials: SvcCredentials,
	endpoint: Endpoint<Reply>,
	options: SvcRequestOptions = {},
): Promise<SvcOutcome<Reply>> {
	const secrets = secretForms(credentials);
	const { baseUrl, problem } = normalizeBaseUrl(credentials.host);
	if (problem !== undefined) {
		// The problem quotes the host as typed, and a password pasted into the wrong field must not come back.
		const text = {
			message: redact(problem, secrets),
			fix: 'Correct the host in the Svc API credentials.',
		};
		return { ok: false, failure: { text, code: 'invalid-host' } };
	}
	const policy = retryPolicy;
	const notRetried = whyNotRetried(endpoint, options.notRetried);
	const retryable = notRetried === undefined;
	const request: IHttpRequestOptions = {
		method: endpoint.method,
		url: `${baseUrl}/api/v2/${endpoint.path}`,
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
			const network = classifyNetworkFailure(error);
			if (canRetry && network.transient) {
				await policy.sleep(backoffDelay(policy, attempt));
				continue;
			}
			const failure: SvcFailure = {
				text: describeNetworkError(network.code, new URL(baseUrl).host),
				networkCode: network.code,
			};
			// Only a failure that may have come after the server had the request can have carried it out.
			return {
				ok: false,
				failure: network.maybeSent
					? withNote(failure, retryNote(notRetried, attempt + 1))
					: failure,
			};
		}
		if (!RETRIED_STATUSES.has(response.statusCode)) {
			const outcome = decodeReply(endpoint, options.qs ?? {}, response, secrets);
			// A broadcast answered by a server error or an unreadable reply may still have gone out: say so.
			if (outcome.ok || retryable || !outcomeUnknown(outcome.failure)) return outcome;
			return { ok: false, failure: withNote(outcome.failure, retryNote(notRetried, attempt + 1)) };
		}

		const retryAfter = parseRetryAfter(response.headers['retry-after']);
		const waitTooLong = retryAfter !== undefined && retryAfter > policy.maxDelayMs;
		if (canRetry && !waitTooLong) {
			await policy.sleep(retryAfter ?? backoffDelay(policy, attempt));
			continue;
		}
		const outcome = decodeReply(endpoint, options.qs ?? {}, response, secrets);
		if (outcome.ok) return outcome;
		const note =
			waitTooLong && retryable
				? `The server asked to wait ${Math.ceil(retryAfter / 1000)} s before trying again, longer than the node waits (${Math.round(policy.maxDelayMs / 1000)} s).`
				: retryNote(notRetried, attempt + 1);
		return { ok: false, failure: withNote(outcome.failure, note) };
	}
}

/** Turns a transport failure into the error n8n shows, keeping the code and detail members for expressions. */
export function toNodeApiError(
	context: SvcApiContext,
	failure: SvcFailure,
	itemIndex?: number,
): NodeApiError {
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
	for (const member of ERROR_DETAIL_MEMBERS)
		if (reply?.[member] !== undefined) error.context[member] = reply[member];
	return error;
}

/**
 * A request to an endpoint of the table through n8n's authenticated request helper, which honours n8n's proxy, SSL
 * and logging settings. It resolves to the endpoint's reply type (for stats, the one of the mode asked for), which
 * holds because each endpoint's shape check lets only its reply by.
 */
export async function svcRequest<
	Path extends EndpointPath,
	Query extends IDataObject = IDataObject,
>(
	context: SvcApiContext,
	path: Path,
	options: SvcRequestOptions<Query> = {},
): Promise<ReplyTo<Path, Query>> {
	return await requestWithCredentials(context, await readCredentials(context), path, options);
}

/** The `svcApi` credentials; n8n reads and decrypts them on every call, so a walk over many pages reads them once. */
export async function readCredentials(context: SvcApiContext): Promise<SvcCredentials> {
	return (await context.getCredentials(CREDENTIALS_TYPE)) as unknown as SvcCredentials;
}

/**
 * svcRequest with the credentials already read. n8n's request helper would read and decrypt them again for every
 * request unless it is handed them.
 */
export async function requestWithCredentials<
	Path extends EndpointPath,
	Query extends IDataObject = IDataObject,
>(
	context: SvcApiContext,
	credentials: SvcCredentials,
	path: Path,
	options: SvcRequestOptions<Query> = {},
): Promise<ReplyTo<Path, Query>> {
	const reference = context.getNode().credentials?.[CREDENTIALS_TYPE];
	const credentialsDecrypted: ICredentialsDecrypted = {
		id: reference?.id ?? '',
		name: reference?.name ?? '',
		type: CREDENTIALS_TYPE,
		data: credentials as unknown as ICredentialDataDecryptedObject,
	};
	const send: SvcSend = async (request) =>
		(await context.helpers.httpRequestWithAuthentication.call(context, CREDENTIALS_TYPE, request, {
			credentialsDecrypted,
		})) as SvcHttpResponse;
	const outcome = await sendSvcRequest(send, credentials, path, options);
	if (!outcome.ok) throw toNodeApiError(context, outcome.failure, options.itemIndex);
	return outcome.reply as ReplyTo<Path, Query>;
}
