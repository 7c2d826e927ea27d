// The account's guard against locking it: one per host and e-mail in the process, under every request of both nodes.
import { createHash } from 'node:crypto';
import { NodeOperationError, type INode, type WorkflowExecuteMode } from 'n8n-workflow';

import { normalizeBaseUrl } from './baseUrl';

/** The pause after the n-th refused login in a row: 1, 2, 4 … 32 minutes, then 60: at most 6 wrong logins an hour. */
const PAUSE_MINUTES = [1, 2, 4, 8, 16, 32, 60];
const pauseMs = (inARow: number) =>
	PAUSE_MINUTES[Math.min(inARow, PAUSE_MINUTES.length) - 1] * 60_000;
/** n8n's schedule ticks drift by milliseconds: a poll due when the pause ends must not find it a little early. */
const TICK_DRIFT_MS = 2_000;
/** This long after a successful request left, two of the account's requests may be in flight; else one at a time. */
const PROVEN_FOR_MS = 1_000;
/** Requests of a proven account in flight at once: a password changed at any moment refuses at most this many. */
export const IN_FLIGHT_WHEN_PROVEN = 2;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The account a request logs in as: the origin (or the host as typed), the lower-case e-mail and their digest. */
export function accountOf(credentials: { host?: unknown; email?: unknown }) {
	const origin = normalizeBaseUrl(credentials.host).baseUrl;
	const { host: typedHost, email } = credentials;
	const host = origin ?? (typeof typedHost === 'string' ? typedHost.trim().toLowerCase() : '');
	const account = typeof email === 'string' ? email.trim().toLowerCase() : '';
	return { origin, host, account, digest: sha256(`${host}\n${account}`) };
}

/** In process memory only: nothing derived from a password reaches static data, and a restart tries once. */
interface AccountState {
	refusals: number;
	until: number;
	/** Digests of the passwords refused since the last success of one of them. */
	refused: Set<string>;
	provenAt: number;
	/** Requests sent, and how many had been when the last refusal was answered: those tell nothing of the password now. */
	sent: number;
	sentBeforeRefusal: number;
	/** The pause's end last named to a run that no person started. */
	told: number;
	/** When a corrected password first succeeded: held a full pause, it clears the refusals in a row. */
	fixedAt?: number;
	inFlight: number;
	/** Requests waiting for a free place in flight. */
	waiting: Array<() => void>;
}
const accounts = new Map<string, AccountState>();
type Aside = <R>(wait: () => Promise<R>) => Promise<R>;
const NOTHING_SENT = { provenAt: 0, sent: 0, sentBeforeRefusal: 0, told: 0, inFlight: 0 };

/** Tests start each case with no account known. */
export const forgetAccounts = () => accounts.clear();

/** Contexts whose requests try despite a pause: the first poll of a trigger's publication. */
export const triesAtOnce = new WeakSet<object>();

interface GuardedContext {
	getNode(): INode;
	getMode?: () => WorkflowExecuteMode;
}

/** A person watches: Execute step or workflow, Fetch Test Event, a list search (no input data), the credential test. */
const watched = (context: GuardedContext | 'credential test') =>
	context === 'credential test' ||
	context.getMode?.() === 'manual' ||
	'getCurrentNodeParameters' in context;

/** What a run not started by a person meets while its account pauses: no request, and how to retry at once. */
export class LoginPaused extends NodeOperationError {
	/** The pause ends later than the last error of the account said: a trigger reports it instead of skipping. */
	extended = false;
}

const iso = ({ until }: { until: number }) => new Date(until).toISOString();
const pauseText = ({ refusals, until }: AccountState) =>
	`A login was refused (HTTP 401 or 403). So as not to lock the account, runs that no person started make no request with this password until ${iso({ until })} (n8n's clock; refused logins in a row: ${refusals}; pauses of 1, 2, 4 … up to 60 minutes).`;
const RETRY_AT_ONCE =
	'To retry at once: correct the credential, run the step by hand, or publish the workflow again.';
/** The sandbox's lockout (sandbox/state.ts): 5 wrong logins within 60 s block the e-mail for up to a minute. */
const SERVER_LOCK_NOTE =
	'The server may still be blocking logins after the earlier wrong ones (the Svc sandbox does for up to a minute), so this new password tries again after the shortest pause.';

/**
 * Runs `send` (one Svc request with its retries) under the account's guard. `answered` is told the final HTTP status
 * and gives the text a refused login adds to the error. A run not started by a person throws LoginPaused instead.
 */
export async function underLoginGuard<T>(
	context: GuardedContext | 'credential test',
	credentials: { host?: unknown; email?: unknown; password?: unknown },
	itemIndex: number | undefined,
	send: (answered: (status: number) => string, aside: Aside) => Promise<T>,
): Promise<T> {
	const key = accountOf(credentials).digest;
	const cleared = () => ({ refusals: 0, until: 0, refused: new Set<string>(), fixedAt: undefined });
	const state = accounts.get(key) ?? { ...cleared(), ...NOTHING_SENT, waiting: [] };
	accounts.set(key, state);
	const cap = () => (Date.now() - state.provenAt > PROVEN_FOR_MS ? 1 : IN_FLIGHT_WHEN_PROVEN);
	const take = async () => {
		while (state.inFlight >= cap()) await new Promise<void>((r) => state.waiting.push(r));
		state.inFlight++;
	};
	const free = () => (state.inFlight--, state.waiting.splice(0).forEach((resume) => resume()));
	// A wait between attempts (a retry's backoff) leaves the place in flight to the account's other requests.
	const aside: Aside = async (wait) => (free(), await wait().finally(take));
	await take();
	try {
		const password = sha256(String(credentials.password));
		const corrected = state.refused.size > 0 && !state.refused.has(password);
		const paused = Date.now() + TICK_DRIFT_MS < state.until && state.refused.has(password);
		const unattended =
			context !== 'credential test' && !watched(context) && !triesAtOnce.has(context);
		if (paused && unattended) {
			const extended = state.told > 0 && state.until > state.told;
			const since = extended ? `, later than the ${iso({ until: state.told })} said before` : '';
			const error = new LoginPaused(
				context.getNode(),
				`Svc logins of this account pause until ${iso(state)}${since}`,
				{ description: `${pauseText(state)} ${RETRY_AT_ONCE}`, itemIndex },
			);
			state.told = state.until;
			throw Object.assign(error, { extended });
		}
		const startedAt = Date.now();
		const serial = ++state.sent;
		return await send((status) => {
			// A request that left before the last refusal was answered tells nothing of the password now.
			const stale = serial <= state.sentBeforeRefusal;
			if (status >= 200 && status < 300 && !stale) {
				state.provenAt = Math.max(state.provenAt, startedAt); // it proves the password as of when it left
				state.fixedAt = corrected ? (state.fixedAt ?? startedAt) : undefined;
				const heldUntil = (state.fixedAt ?? 0) + pauseMs(Math.max(1, state.refusals));
				// A refused password that works again, or a corrected one held a full pause, clears the pause; a corrected
				// one restarts it for runs still holding a refused one.
				if (!corrected || startedAt >= heldUntil) Object.assign(state, cleared());
				else state.until = Math.max(state.until, heldUntil);
			}
			if (status !== 401 && status !== 403) return '';
			// A 403 just after a corrected password may be the server's lock from the earlier refusals; a refusal of a
			// request already on its way at the last one is the same change of password: neither grows the pause.
			const serverLock = status === 403 && corrected;
			if (!serverLock && !stale) state.refusals++;
			const until = startedAt + pauseMs(serverLock ? 1 : Math.max(1, state.refusals));
			state.until = Math.max(stale ? state.until : 0, until);
			if (!watched(context)) state.told = state.until;
			Object.assign(state, { sentBeforeRefusal: state.sent, provenAt: 0, fixedAt: undefined });
			state.refused.add(password);
			return [serverLock ? SERVER_LOCK_NOTE : '', pauseText(state), RETRY_AT_ONCE].join(' ').trim();
		}, aside);
	} finally {
		free();
	}
}
