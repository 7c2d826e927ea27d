// The server and account a trigger's cursor belongs to, read from the credential the way the transport reads its host.
import type { IDataObject } from 'n8n-workflow';

import { normalizeBaseUrl } from '../transport';

/**
 * The server and account a cursor was read from (issue 14, point 3). A cursor is a moment on one server's clock:
 * carried to another server it would skip that server's history before the moment, even with Beginning of History.
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
 * Why the stored state cannot be used with this binding, or undefined when it can. A state saved before the binding
 * was recorded is adopted, not reset: its users were never moved between servers by this package.
 */
export function bindingChange(
	staticData: IDataObject,
	binding: ServerBinding | undefined,
): string | undefined {
	if (binding === undefined) return undefined;
	const { host, account } = staticData;
	if (typeof host === 'string' && host !== binding.host)
		return `the credential now points at ${binding.host}, but the saved position belongs to ${host}`;
	if (typeof account === 'string' && account !== binding.account) {
		return `the credential now signs in as ${binding.account}, but the saved position was read as ${account}`;
	}
	return undefined;
}
