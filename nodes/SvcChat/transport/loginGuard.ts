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
/** This long after a successful request left, the account's requests go side by side; then one goes first (the gate). */
const PROVEN_FOR_MS = 1_000;

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
	/** The one request let out while the account is not proven; the others wait for its answer. */
	gate?: Promise<void>;
}
const accounts = new Map<string, AccountState>();

/** Tests start each case with no account known. */
export const forgetAccounts = () => accounts.clear();

/** Contexts whose requests try despite a pause: the first poll of a trigger's publication. */
export const triesAtOnce = new WeakSet<object>();

interface GuardedContext {
	getNode(): INode;
	getMode?: () => WorkflowExecuteMode;
}

/** A person watches: Execute step or workflow, Fetch Test Event, a list search (no input data), the credential test. */
const startedByPerson = (context: GuardedContext) =>
	context.getMode?.() === 'manual' ||
	'getCurrentNodeParameters' in context ||
	triesAtOnce.has(context);

/** What a run not started by a person meets while its account pauses: no request, and how to retry at once. */
export class LoginPaused extends NodeOperationError {}

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
	send: (answered: (status: number) => string) => Promise<T>,
): Promise<T> {
	const key = accountOf(credentials).digest;
	const state = accounts.get(key) ?? { refusals: 0, until: 0, refused: new Set(), provenAt: 0 };
	accounts.set(key, state);
	const unproven = () => Date.now() - state.provenAt > PROVEN_FOR_MS;
	if (state.gate && unproven()) await state.gate;
	const password = sha256(String(credentials.password));
	const corrected = state.refused.size > 0 && !state.refused.has(password);
	const paused = Date.now() + TICK_DRIFT_MS < state.until && state.refused.has(password);
	if (paused && context !== 'credential test' && !startedByPerson(context))
		throw new LoginPaused(
			context.getNode(),
			`Svc logins of this account pause until ${iso(state)}`,
			{
				description: `${pauseText(state)} ${RETRY_AT_ONCE}`,
				itemIndex,
			},
		);
	const startedAt = Date.now();
	let open = () => {};
	const gated = !state.gate && unproven();
	if (gated) state.gate = new Promise((resolve) => (open = resolve));
	try {
		return await send((status) => {
			if (status >= 200 && status < 300) {
				state.provenAt = Math.max(state.provenAt, startedAt); // it proves the password as of when it left
				// A refused password that works again clears the pause; a corrected one restarts it for runs still holding one.
				if (!corrected) Object.assign(state, { refusals: 0, until: 0, refused: new Set() });
				else state.until = Math.max(state.until, state.provenAt + pauseMs(state.refusals));
			}
			if (status !== 401 && status !== 403) return '';
			// A 403 just after a corrected password may be the server's lock from the earlier refusals: no growth.
			const serverLock = status === 403 && corrected;
			if (!serverLock) state.refusals++;
			state.until = startedAt + pauseMs(serverLock ? 1 : state.refusals);
			state.refused.add(password);
			return [serverLock ? SERVER_LOCK_NOTE : '', pauseText(state), RETRY_AT_ONCE].join(' ').trim();
		});
	} finally {
		if (gated) {
			state.gate = undefined;
			open();
		}
	}
}
