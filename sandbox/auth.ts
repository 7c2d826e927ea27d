// Spec section 5: HTTP Basic authorization of an administrator, with a lockout after too many failed attempts.
import type { SeedOperator } from './data';
import type { SandboxState } from './state';

export type AuthOutcome =
	| { ok: true; operator: SeedOperator }
	| {
			ok: false;
			status: 401 | 403;
			reason: 'unauthorized' | 'not-administrator' | 'too-many-attempts';
	  };

function parseBasic(header: string | undefined): { email: string; password: string } | undefined {
	const match = /^Basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(header ?? '');
	if (!match) return undefined;
	const decoded = Buffer.from(match[1], 'base64').toString('utf8');
	const colon = decoded.indexOf(':');
	if (colon < 0) return undefined;
	return { email: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/**
 * Checks the Authorization header. Order: a missing or unreadable header is 401; an e-mail locked out (at least
 * `lockoutThreshold` failures within `lockoutWindowMs`, the count the spec leaves "not shown") is 403 even with the
 * right password; an unknown user or wrong password is 401 and counts as a failure; a non-administrator is 403.
 */
export function authorize(state: SandboxState, header: string | undefined): AuthOutcome {
	const credentials = parseBasic(header);
	if (!credentials) return { ok: false, status: 401, reason: 'unauthorized' };
	const key = credentials.email.toLowerCase();
	const nowMs = state.now().getTime();
	const { lockoutThreshold, lockoutWindowMs } = state.settings;
	const recent = (state.failedLogins.get(key) ?? []).filter((at) => at > nowMs - lockoutWindowMs);
	state.failedLogins.set(key, recent);
	if (recent.length >= lockoutThreshold)
		return { ok: false, status: 403, reason: 'too-many-attempts' };

	const operator = state.findOperator(credentials.email);
	if (!operator || operator.password !== credentials.password) {
		recent.push(nowMs);
		return { ok: false, status: 401, reason: 'unauthorized' };
	}
	if (!operator.roles.includes('admin'))
		return { ok: false, status: 403, reason: 'not-administrator' };
	return { ok: true, operator };
}
