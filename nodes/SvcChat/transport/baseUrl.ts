// Turns the host typed in the credentials into the API base URL, refusing plain HTTP to anything but loopback.

// localhost, 127.0.0.0/8 and ::1 (with or without brackets): the only hosts that may be spoken to over plain HTTP (the
// sandbox). Also written into the credential test's expression.
const LOOPBACK_HOSTNAME = /^(localhost|\[?::1\]?|127(\.\d{1,3}){3})$/i;

// Without the typed text: a password pasted into the wrong field must not come back in the editor.
const INVALID_HOST_PROBLEM = 'The host is not a valid host name. Enter it like "acme.svc.example".';
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

/**
 * normalizeBaseUrl's rules as an n8n expression giving `<origin>/api/v2/<path>`, for the credential's declarative test,
 * which runs where this module cannot. It throws with the reason; n8n 2.41 reports "ERR_INVALID_URL" instead, so the
 * credential form also shows the plain-http reason as a notice.
 */
export function credentialTestUrlExpression(path: string): string {
	const marker = '\u0000';
	const [plainHttpBefore, plainHttpAfter] = plainHttpProblem(marker).split(marker);
	const text = (value: string) => JSON.stringify(value);
	return `={{ (() => {
	const typed = String($credentials.host ?? '').trim();
	const scheme = /^([a-z][a-z0-9+.-]*):\\/\\//i.exec(typed);
	const authority = (scheme ? typed.slice(scheme[0].length) : typed).split(/[\\/?#]/)[0];
	const protocol = scheme ? scheme[1].toLowerCase() : 'https';
	const hostname = authority.replace(/:\\d*$/, '');
	if (authority.includes('@')) throw new Error(${text(`${USER_INFO_PROBLEM} ${HOST_FIX}`)});
	if (!/^([a-z0-9.-]+|\\[[0-9a-f:.]+\\])(:\\d{1,5})?$/i.test(authority)) throw new Error(${text(`${INVALID_HOST_PROBLEM} ${HOST_FIX}`)});
	if (protocol === 'http' && !${LOOPBACK_HOSTNAME.toString()}.test(hostname)) {
		throw new Error(${text(plainHttpBefore)} + authority + ${text(`${plainHttpAfter} ${HOST_FIX}`)});
	}
	if (protocol !== 'http' && protocol !== 'https') throw new Error(${text(`The host has an unsupported scheme. Use https://. ${HOST_FIX}`)});
	return protocol + '://' + authority + '/api/v2/${path}';
})() }}`;
}
