// The server and account a trigger's cursor belongs to, read from the credential the way the transport reads its host.
import { createHash } from 'node:crypto';
import type { IDataObject } from 'n8n-workflow';

import { normalizeBaseUrl } from '../transport/baseUrl';

/**
 * The server and account a cursor was read from. A cursor is a moment on one server's clock: carried to another
 * server it would skip that server's history before the moment, even with Beginning of History.
 */
export interface ServerBinding {
	host: string;
	account: string;
}

/**
 * The binding of a credential: the origin the transport talks to, and the e-mail in lower case. No secret is kept.
 * The host goes through the transport's own normalizeBaseUrl, so "acme.example" and "https://acme.example/" are one
 * server here exactly when they are one server to the requests.
 */
export function serverBinding(credentials: { host?: unknown; email?: unknown }): ServerBinding {
	const typedHost =
		typeof credentials.host === 'string' ? credentials.host.trim().toLowerCase() : '';
	return {
		host: normalizeBaseUrl(credentials.host).baseUrl ?? typedHost,
		account: typeof credentials.email === 'string' ? credentials.email.trim().toLowerCase() : '',
	};
}

/**
 * What the state stores of a binding: a SHA-256 digest, in hex, of the host and account. Static data is plain JSON
 * that n8n's API returns with the workflow, to people who may not read the credential; the binding needs only to
 * know whether server and account are still the same, so neither value is kept in clear.
 */
export function bindingDigest(binding: ServerBinding): string {
	return createHash('sha256').update(`${binding.host}\n${binding.account}`).digest('hex');
}

/** True when a stored state was read from another server or account than `binding`; a state that records none is not. */
function boundElsewhere(staticData: IDataObject, binding: ServerBinding): boolean {
	const { boundTo, host, account } = staticData;
	if (typeof boundTo === 'string') return boundTo !== bindingDigest(binding);
	// States saved before the digest keep host and account in clear; they are compared as they are, then rewritten.
	return (
		(typeof host === 'string' && host !== binding.host) ||
		(typeof account === 'string' && account !== binding.account)
	);
}

/**
 * Why the stored state cannot be used with this binding, or undefined when it can. A state saved before the binding
 * was recorded is adopted, not reset: its users were never moved between servers by this package. The reason names
 * the new server (the person who changed the credential typed it) and never an e-mail.
 */
export function bindingChange(staticData: IDataObject, binding: ServerBinding): string | undefined {
	if (!boundElsewhere(staticData, binding)) return undefined;
	// Only an origin the transport accepts is shown: a host it refuses may hold what was typed in the wrong field.
	const origin = normalizeBaseUrl(binding.host).baseUrl;
	const server = origin ? ` (the server is now ${origin})` : '';
	return `the credential now points at another server or account than the saved position was read from${server}`;
}
