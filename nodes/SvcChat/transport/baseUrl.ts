// Turns the host typed in the credentials into the API base URL, refusing plain HTTP to anything but loopback.

const LOOPBACK_HOSTNAMES = new Set(['localhost', '[::1]', '::1']);

/** True for localhost, 127.0.0.0/8 and ::1: the only hosts that may be spoken to over plain HTTP (the sandbox). */
export function isLoopbackHostname(hostname: string): boolean {
	const name = hostname.toLowerCase();
	return LOOPBACK_HOSTNAMES.has(name) || /^127(\.\d{1,3}){3}$/.test(name);
}

/** The API origin, or why the typed host cannot be used. */
export type BaseUrlResult = { baseUrl: string; problem?: undefined } | { baseUrl?: undefined; problem: string };

/**
 * Accepts a bare host, host:port, https://host or http://loopback, with or without trailing slashes or path,
 * and returns the origin, e.g. `https://acme.svc.example`. Basic credentials must never cross a network in
 * clear text, so plain http:// is refused for every host that is not loopback.
 */
export function normalizeBaseUrl(rawHost: unknown): BaseUrlResult {
	const typed = typeof rawHost === 'string' ? rawHost.trim() : '';
	if (!typed) return { problem: 'The host is empty. Enter your chat server host, e.g. "acme.svc.example".' };
	const hasScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(typed);
	const userInfo = { problem: 'The host must not contain a user name or password. Put them in the e-mail and password fields.' };
	// Refused before any message could echo it: what comes before an "@" may be a password.
	if (/^([a-z][a-z0-9+.-]*:\/\/)?[^/?#]*@/i.test(typed)) return userInfo;
	const invalid = { problem: `The host "${typed}" is not a valid host name. Enter it like "acme.svc.example".` };
	// "https:/acme" or "http:acme" is a mistyped scheme, not a host "https" with an empty port.
	if (!hasScheme && /^[a-z][a-z0-9+.-]*:(?!\d|$)/i.test(typed)) return invalid;
	let url: URL;
	try {
		url = new URL(hasScheme ? typed : `https://${typed}`);
	} catch {
		return invalid;
	}
	if (url.username || url.password) return userInfo;
	if (url.protocol === 'http:' && !isLoopbackHostname(url.hostname)) {
		return {
			problem: `Plain http:// is refused for "${url.host}": the password would cross the network unencrypted. Use https:// (or just the host name).`,
		};
	}
	if (url.protocol !== 'http:' && url.protocol !== 'https:') {
		return { problem: `The host "${typed}" has an unsupported scheme "${url.protocol}". Use https://.` };
	}
	if (!url.hostname) return invalid;
	return { baseUrl: `${url.protocol}//${url.host}` };
}
