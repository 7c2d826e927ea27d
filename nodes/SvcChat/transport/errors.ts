// The error map (spec 7 codes, section 5 statuses) with a message and a fix each, and the redaction of secrets.
import type { IDataObject } from 'n8n-workflow';

import { isPlainObject } from '../helpers/values';

export type SvcErrorText = { message: string; fix: string };

/** Reply members that explain an error code (spec 7.1 to 7.3); shown in the message, never dropped. */
export const ERROR_DETAIL_MEMBERS = ['field', 'argument', 'field_name', 'field_value'] as const;

/** Codes of sections 7.1 to 7.4; a code of several groups has one meaning, so one entry serves them all. */
export const SVC_ERROR_CODES: Record<string, SvcErrorText> = {
	// 7.1 provide_visitor_fields (and the shared request-body codes of 7.2, 7.3)
	'auth-token-is-not-string': {
		message: 'The auth token must be a string',
		fix: "Set 'Auth Token' to text. If it comes from an expression, wrap it in String(...).",
	},
	'request-body-is-not-object': {
		message: 'The server did not receive a JSON object as the request body',
		fix: 'This is unexpected from this node. Check that nothing between n8n and Svc (a proxy) rewrites request bodies.',
	},
	'request-body-is-not-valid-json': {
		message: 'The server could not read the request body as JSON',
		fix: 'This is unexpected from this node. Check that nothing between n8n and Svc (a proxy) rewrites request bodies.',
	},
	'mandatory-field-not-found': {
		message: 'A mandatory field is missing',
		fix: 'Fill in the field named above.',
	},
	'id-field-required': {
		message: 'Visitor fields were sent without a visitor ID',
		fix: "Set 'Visitor ID' to the visitor's ID in your own system (not empty).",
	},
	'field-name-is-not-string': {
		message: 'A visitor field name is not text',
		fix: 'Use text for every visitor field name.',
	},
	'field-value-is-not-string': {
		message: 'A visitor field value is not text',
		fix: 'Use text for every visitor field value; numbers and booleans are converted by the node, objects and lists are not allowed.',
	},
	// 7.2 agent_status (and the shared missing-argument of 7.3)
	'missing-argument': {
		message: 'A required argument is missing',
		fix: 'Fill in the parameter named above.',
	},
	unknown: {
		message: 'The server could not carry out the request and gave no reason',
		fix: 'Try again later. If it persists, contact Svc support with the time of the request.',
	},
	'condition-not-satisfied': {
		message: "The operator's current status is not one of 'Only if Current Status Is'",
		fix: "Nothing was changed. Widen 'Only if Current Status Is', or remove that option to change the status regardless.",
	},
	// The spec names this code for a status the tariff lacks; servers also give it when the operator is offline
	// (spec 3 and 4.2 name no code for that case), so the message covers both causes.
	'agent-status-not-allowed': {
		message:
			"The status cannot be set: it is not available on the account's tariff, or the operator is offline",
		fix: 'This command cannot change an offline operator: they must log in to Svc themselves. Otherwise choose a status the tariff allows, or upgrade the tariff in Svc.',
	},
	'invalid-agent-email': {
		message: 'No operator has this email, or the email is malformed',
		fix: "Check 'Operator': pick the operator from the list, or give the email of one of the account's operators, as a list of the operators shows it.",
	},
	'not-in-allowed-online-time': {
		message: 'Operators may not go online at this time (allowed online time setting)',
		fix: "Try within the allowed online time, change the setting in Svc, or turn on the 'Force' option to ignore it.",
	},
	// 7.3 send_broadcast
	'parsing-error': {
		message: 'The template parameters are malformed',
		fix: 'Check the header, body and footer parameters: give them in the same order as in the template, as text.',
	},
	'unknown-broadcast-kind': {
		message: 'The broadcast kind is not valid',
		fix: 'Use Send template broadcast or Send broadcast over chat history.',
	},
	// 7.4 stored-data group
	'no-tariff-option': {
		message: 'API access is not enabled for this account',
		fix: 'Ask Svc technical support to enable Integration API access for your account, then test the credentials again.',
	},
	'unknown-method': {
		message: 'The server rejected the request method',
		fix: 'This is unexpected from this node. Check that nothing between n8n and Svc (a proxy) changes request methods.',
	},
	'unknown-mode': {
		message: 'The statistics mode is not valid',
		fix: 'Use Get usage statistics or Get operator statistics.',
	},
	'argument-missing': {
		message: 'A required query argument is missing',
		fix: 'Fill in every required field of the operation.',
	},
	// Section 5.4: the real-time 401 body
	unauthorized: {
		message: 'Wrong email or password',
		fix: 'Check the admin email and password in the Svc API credentials.',
	},
};

/** HTTP statuses with a meaning of their own (sections 5 and 7). */
export const SVC_HTTP_ERRORS: Record<number, SvcErrorText> = {
	401: {
		message: 'Wrong email or password',
		fix: 'Check the admin email and password in the Svc API credentials. The server blocks logins after too many wrong attempts, so correct them before running or testing again. After a refused login, runs that no person started (published triggers, schedules, agents) pause their requests with this password; a corrected password tries again right away.',
	},
	403: {
		message:
			'Access denied: the user is not an administrator, or there were too many login attempts',
		fix: 'Use the email and password of an administrator operator. If they are right, wait a while before the next attempt: the server blocks logins after too many attempts. Meanwhile, runs that no person started pause their requests with this password.',
	},
	404: {
		message: 'The server has no such API endpoint',
		fix: 'Check the host in the Svc API credentials: it must be the chat server (your account sub-domain or your own host).',
	},
	429: {
		message: 'Too many requests: the server asked to slow down',
		fix: 'Run the workflow less often, or lower the batch size, then try again later.',
	},
	502: {
		message: 'The server cannot process the request (502)',
		fix: 'Try again later. If it persists, contact Svc support with the time of the request.',
	},
	503: {
		message: 'The server is temporarily unavailable (503)',
		fix: 'Try again later.',
	},
	504: {
		message: 'The server did not answer in time (504)',
		fix: 'Try again later.',
	},
};

// A hostile or broken server could send megabytes in a code, a member or a page; messages stay readable.
const shorten = (text: string, max = 100) => (text.length > max ? `${text.slice(0, max)}…` : text);

/** True for a code of spec 7 (own keys only: a server's "constructor" is no documented code). */
export const isDocumentedCode = (code: string) => Object.hasOwn(SVC_ERROR_CODES, code);

/** How a description names the API's code, so it can be looked up or reported to Svc support. */
export const svcCodeNote = (code: string) => `(Svc code: ${shorten(code)})`;

/** Explains an error code, with the reply's detail members; an unknown code still shows the code. */
export function describeErrorCode(code: string, details: IDataObject = {}): SvcErrorText {
	const known = isDocumentedCode(code) ? SVC_ERROR_CODES[code] : undefined;
	const shown = ERROR_DETAIL_MEMBERS.filter((member) => details[member] !== undefined)
		.map(
			(member) =>
				`${member}: ${shorten(JSON.stringify(details[member]) ?? String(details[member]))}`,
		)
		.join(', ');
	const suffix = shown ? ` (${shown})` : '';
	// The code goes in the description, where n8n keeps the details, so it can be looked up or reported to Svc support.
	if (known)
		return { message: `${known.message}${suffix}`, fix: `${known.fix} ${svcCodeNote(code)}` };
	return {
		message: `The server refused the request with the code '${shorten(code)}'${suffix}`,
		fix: 'This code is not in the Svc API v2 documentation. Contact Svc support with the code and the time of the request.',
	};
}

/** Explains an HTTP status without a documented error body. */
export const describeHttpStatus = (status: number): SvcErrorText =>
	SVC_HTTP_ERRORS[status] ?? {
		message: `The server answered with HTTP ${status}`,
		fix: 'Check the host in the Svc API credentials, then try again later.',
	};

/** True for the system codes of an untrusted TLS certificate (OpenSSL's and Node's). */
const isCertificateErrorCode = (code: string) =>
	code.includes('CERT') || code.startsWith('UNABLE_TO_') || code.startsWith('ERR_SSL_');

// Failures before the first byte of the request is written: no address, no connection, no TLS session, no URL.
const NOTHING_SENT_CODES = new Set([
	'ENOTFOUND',
	'EAI_AGAIN',
	'ECONNREFUSED',
	'EHOSTUNREACH',
	'ENETUNREACH',
	'ENETDOWN',
	'EPROTO',
	'ERR_INVALID_URL',
]);

/** True when the code proves that nothing reached the server; any other failure may have come after it had the request. */
export const isNothingSentCode = (code: string | undefined) =>
	code !== undefined && (NOTHING_SENT_CODES.has(code) || isCertificateErrorCode(code));

/** Explains a network failure by its system error code; only a code that proves nothing was sent says so. */
export function describeNetworkError(code: string | undefined, host: string): SvcErrorText {
	const hostWas = (problem: string, fix: string) => ({ message: `Host "${host}" ${problem}`, fix });
	if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
		return hostWas('could not be found', 'Check the host in the Svc API credentials.');
	if (code === 'ECONNREFUSED') {
		const fix =
			'Check the host and port in the Svc API credentials, and that the chat server is running.';
		return hostWas('refused the connection', fix);
	}
	if (code === 'ETIMEDOUT' || code === 'ECONNABORTED' || code === 'ESOCKETTIMEDOUT')
		return hostWas('did not answer in time', 'Check the host, then try again later.');
	if (code === 'ECONNRESET' || code === 'EPIPE')
		return hostWas('closed the connection', 'Try again later.');
	if (code !== undefined && isCertificateErrorCode(code)) {
		const fix =
			"Renew or correct the certificate on the server, or turn on 'Ignore SSL Issues' in the credentials if you trust this host.";
		return { message: `The TLS certificate of "${host}" is not trusted (${code})`, fix };
	}
	const network =
		'Check the host in the Svc API credentials and the network between n8n and the chat server';
	if (isNothingSentCode(code)) return hostWas(`could not be reached (${code})`, `${network}.`);
	// The request may have reached the server before the connection broke, so the message must not say it did not.
	return {
		message: `The request to "${host}" did not complete${code ? ` (${code})` : ''}`,
		fix: `${network}, then try again later.`,
	};
}

/** A failure the transport has already explained; callers turn it into a NodeApiError. */
export interface SvcFailure {
	text: SvcErrorText;
	httpCode?: number;
	/** The API's error code (spec 7), or the transport's own: invalid-host, redirect, not-json, unexpected-shape, chat-not-found. */
	code?: string;
	/** The system error code when the server could not be reached (ECONNRESET, ENOTFOUND…). */
	networkCode?: string;
	/** With an API error code: the reply's members that explain it (field, argument, field_name, field_value). */
	details?: IDataObject;
}

/**
 * The forms in which the password could come back from a hostile or careless server: as typed, JSON-escaped,
 * URL-encoded, or inside the Basic `Authorization` value. Longest first, so no form is left half-replaced.
 */
export function secretForms(credentials: { email?: string; password?: unknown }): string[] {
	const password = typeof credentials.password === 'string' ? credentials.password : '';
	if (!password) return [];
	const basic = Buffer.from(`${credentials.email ?? ''}:${password}`).toString('base64');
	const forms = [
		password,
		JSON.stringify(password).slice(1, -1),
		encodeURIComponent(password),
		basic,
	];
	return [...new Set(forms)].sort((a, b) => b.length - a.length);
}

export const redact = (text: string, secrets: string[]): string =>
	secrets.reduce((clean, secret) => clean.split(secret).join('***'), text);

/** Redacts every string inside a value taken from a reply, keeping its shape. */
export function redactValue(value: unknown, secrets: string[]): unknown {
	if (typeof value === 'string') return redact(value, secrets);
	if (Array.isArray(value)) return value.map((entry) => redactValue(entry, secrets));
	if (!isPlainObject(value)) return value;
	return Object.fromEntries(
		Object.entries(value).map(([key, entry]) => [
			redact(key, secrets),
			redactValue(entry, secrets),
		]),
	);
}

/** Cuts a reply down to a short, secret-free excerpt for an error message (redacted before it is cut). */
export const excerpt = (text: string, secrets: string[]) =>
	shorten(redact(text, secrets).replace(/\s+/g, ' ').trim(), 200);
