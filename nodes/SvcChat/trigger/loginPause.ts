// Every event's guard against locking an account: after a refused login the trigger pauses its polls, growing pauses.
import { createHash } from 'node:crypto';
import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import { readCredentials } from '../transport/request';
import { isPlainObject } from '../helpers/values';
import { serverBinding } from './poll';

/** The pause after the n-th refused login in a row: 1, 2, 4 … 32 minutes, then 60: at most 6 wrong logins an hour. */
const PAUSE_MINUTES = [1, 2, 4, 8, 16, 32, 60];
export const LOGIN_PAUSE_KEY = 'loginPause';

/** Kept in static data beside the events' state: no secret, only the binding digest of host and e-mail. */
type LoginPause = { refusals: number; until: string; boundTo: string };
const isPause = (value: unknown): value is LoginPause =>
	isPlainObject(value) && Number.isInteger(value.refusals) && typeof value.until === 'string';

/** The refused password's digest, in memory only, never in static data (readable with the workflow); gone at a restart. */
const passwordAtRefusal = new WeakMap<IDataObject, string>();
/** The states this process has polled: the first poll of a publication or update retries at once. */
const polledStates = new WeakSet<IDataObject>();

const digest = (text: unknown) => createHash('sha256').update(String(text)).digest('hex');

/** 401, or 403 (not an administrator, or too many login attempts), however deep the request that met it. */
const isRefusedLogin = (error: unknown) =>
	isPlainObject(error) && ['401', '403'].includes(String(error.httpCode));

/**
 * Runs a scheduled poll of any event, unless a refused login's pause runs: then no request, no execution. A changed
 * credential or a new publication ends it; a refused login starts the next, and a good poll clears it.
 */
export async function unlessPaused<Result>(
	context: IPollFunctions,
	state: IDataObject,
	poll: () => Promise<Result>,
): Promise<Result | null> {
	const stored = state[LOGIN_PAUSE_KEY];
	const pause = isPause(stored) ? stored : undefined;
	const newlyPublished =
		!polledStates.has(state) && ['activate', 'update'].includes(context.getActivationMode());
	polledStates.add(state);
	const credentials = pause && (await readCredentials(context));
	if (pause && credentials && !newlyPublished && Date.now() < Date.parse(pause.until)) {
		const { moved } = serverBinding(credentials, pause);
		const remembered = passwordAtRefusal.get(state);
		const corrected = remembered !== undefined && remembered !== digest(credentials.password);
		if (!moved && !corrected) {
			context.logger.debug(`Svc Chat Trigger: paused after a refused login until ${pause.until}`);
			return null;
		}
	}
	return await poll().then(
		(result) => {
			delete state[LOGIN_PAUSE_KEY];
			return result;
		},
		async (error: Error & { description?: string }) => {
			if (isRefusedLogin(error)) {
				const note = await pauseAfter(context, state, pause);
				error.description = [error.description, note].filter(Boolean).join(' ');
			}
			throw error;
		},
	);
}

/** Starts the pause after one more refused login, and says in the error's description what happens next. */
async function pauseAfter(context: IPollFunctions, state: IDataObject, pause?: LoginPause) {
	const { password, ...account } = await readCredentials(context);
	const refusals = (pause?.refusals ?? 0) + 1;
	const minutes = PAUSE_MINUTES[Math.min(refusals, PAUSE_MINUTES.length) - 1];
	const until = new Date(Date.now() + minutes * 60_000).toISOString();
	state[LOGIN_PAUSE_KEY] = { refusals, until, boundTo: serverBinding(account).boundTo };
	passwordAtRefusal.set(state, digest(password));
	return `So as not to lock the account, this trigger makes no request until ${until} (n8n's clock; refused logins in a row: ${refusals}, pauses of 1, 2, 4 … up to 60 minutes). Correct the credential and the next poll tries again, or publish the workflow again to retry at once.`;
}
