// Turns the host typed in the credentials into the API base URL, refusing plain HTTP to anything but loopback.

// localhost, 127.0.0.0/8 and ::1 (with or without brackets): the only hosts that may be spoken to over plain HTTP (the
// sandbox).
const LOOPBACK_HOSTNAME = /^(localhost|\[?::1\]?|127(\.\d{1,3}){3})$/i;

// Without the typed text: a password pasted into the wrong field must not come back in the editor.
const USER_INFO_PROBLEM =
	'The host must not contain a user name or password. Put them in the e-mail and password fields.';

const plainHttpProblem = (hostAndPort: string) =>
	`Plain http:// is refused for "${hostAndPort}": the password would cross the network unencrypted. Use https:// (or just the host name).`;

export const HOST_FIX = 'Correct the host in the Svc API credentials.';

/**
 * The origin (`https://acme.svc.example`) of a bare host, host:port, https://host or http://loopback, with or without a
 * path; or why the typed host cannot be used. Basic credentials must never cross a network in clear text.
 */
export function normalizeBaseUrl(rawHost: unknown) {
	const typed = typeof rawHost === 'string' ? rawHost.trim() : '';
	if (!typed)
		return { problem: 'The host is empty. Enter your chat server host, e.g. "acme.svc.example".' };
	const hasScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(typed);
	const userInfo = { problem: USER_INFO_PROBLEM };
	// Refused before any message could echo it: what comes before an "@" may be a password.
	if (/^([a-z][a-z0-9+.-]*:\/\/)?[^/?#]*@/i.test(typed)) return userInfo;
	const invalid = {
		problem: `The host "${typed}" is not a valid host name. Enter it like "acme.svc.example".`,
	};
	// "https:/acme" or "http:acme" is a mistyped scheme, not a host "https" with an empty port.
	if (!hasScheme && /^[a-z][a-z0-9+.-]*:(?!\d|$)/i.test(typed)) return invalid;
	let url: URL;
	try {
		url = new URL(hasScheme ? typed : `https://${typed}`);
	} catch {
		return invalid;
	}
	if (url.username || url.password) return userInfo;
	if (url.protocol === 'http:' && !LOOPBACK_HOSTNAME.test(url.hostname))
		return { problem: plainHttpProblem(url.host) };
	if (url.protocol !== 'http:' && url.protocol !== 'https:')
		return {
			problem: `The host "${typed}" has an unsupported scheme "${url.protocol}". Use https://.`,
		};
	if (!url.hostname) return invalid;
	return { baseUrl: `${url.protocol}//${url.host}` };
}
