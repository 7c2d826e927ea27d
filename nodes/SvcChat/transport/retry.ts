// Retry policy: which failures are retried, how long to wait between attempts, and what the user is told about it.
import { sleep } from 'n8n-workflow';

import { isNothingSentCode } from './errors';
import type { SvcFailure } from './types';

export interface RetryPolicy {
	/** Extra attempts after the first one, for 429, 502, 503, 504, connection resets and timeouts. */
	maxRetries: number;
	/** First backoff pause; it doubles each attempt, with jitter. */
	baseDelayMs: number;
	/** No single pause is longer; a Retry-After above it is not waited for, the error is raised instead. */
	maxDelayMs: number;
	/** Time allowed for one attempt. */
	timeoutMs: number;
	/** Waits between attempts: n8n's `sleep`, or a recorder in tests, which then need not stub a module. */
	sleep: (ms: number) => Promise<void>;
}

/** The one retry setting of the transport; tests replace its members (pauses that take no time) for one test. */
export const retryPolicy: RetryPolicy = {
	maxRetries: 3,
	baseDelayMs: 500,
	maxDelayMs: 30_000,
	timeoutMs: 60_000,
	sleep,
};

export const RETRIED_STATUSES = new Set([429, 502, 503, 504]);
export const RETRIED_NETWORK_CODES = new Set([
	'ECONNRESET',
	'EPIPE',
	'ETIMEDOUT',
	'ECONNABORTED',
	'ESOCKETTIMEDOUT',
	'EAI_AGAIN',
]);

/** What a failed attempt that got no reply means for the request. */
export interface NetworkFailure {
	/** The system error code (ECONNRESET, ENOTFOUND…), when the error carries one. */
	code?: string;
	/** False only when the code proves nothing reached the server; then nothing can have been carried out. */
	maybeSent: boolean;
	/** Worth another attempt, for a request that may be retried. */
	transient: boolean;
}

/**
 * Classifies an error thrown by n8n's request helper, whichever n8n line threw it. n8n wraps the request library's
 * error in a NodeApiError that keeps the system code in `httpCode`; n8n 2.x also keeps the original error as `cause`,
 * n8n 1.x drops it (its error class redeclares `cause`). So the code is looked for in both, on every level.
 */
export function classifyNetworkFailure(error: unknown): NetworkFailure {
	const code = findNetworkCode(error);
	return {
		code,
		maybeSent: !isNothingSentCode(code),
		transient: code !== undefined && RETRIED_NETWORK_CODES.has(code),
	};
}

const SYSTEM_CODE = /^[A-Z][A-Z0-9_]{2,}$/;

function findNetworkCode(error: unknown): string | undefined {
	let current: unknown = error;
	for (let depth = 0; depth < 4 && isObjectLike(current); depth++) {
		const { code, httpCode } = current as { code?: unknown; httpCode?: unknown };
		for (const candidate of [code, httpCode])
			if (typeof candidate === 'string' && SYSTEM_CODE.test(candidate)) return candidate;
		current = (current as { cause?: unknown }).cause;
	}
	return undefined;
}

function isObjectLike(value: unknown): value is object {
	return typeof value === 'object' && value !== null;
}

/** Seconds or an HTTP date, as milliseconds; undefined when absent or unreadable. */
export function parseRetryAfter(value: unknown, now = Date.now()): number | undefined {
	const raw = Array.isArray(value) ? value[0] : value;
	if (typeof raw !== 'string' && typeof raw !== 'number') return undefined;
	const text = String(raw).trim();
	if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
	// An HTTP date always names its day and month; without letters it is garbage such as "-1", not a date.
	if (!/[a-z]/i.test(text)) return undefined;
	const date = Date.parse(text);
	return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export function backoffDelay(policy: RetryPolicy, attempt: number): number {
	const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
	// "Equal jitter": at least half the ceiling, so clients spread out without retrying at once.
	return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
}

/** What the user should know about retries of a failure that retrying could have cured. */
export function retryNote(notRetried: string | undefined, attempts: number): string {
	if (notRetried !== undefined) return notRetried;
	return attempts > 1 ? `The request was tried ${attempts} times.` : '';
}

/** The request reached the server, but whether it was carried out cannot be told from the reply. */
export function outcomeUnknown(failure: SvcFailure): boolean {
	return (
		(failure.httpCode ?? 0) >= 500 ||
		failure.code === 'not-json' ||
		failure.code === 'unexpected-shape'
	);
}

export function withNote(failure: SvcFailure, note: string): SvcFailure {
	return note
		? { ...failure, text: { ...failure.text, fix: `${failure.text.fix} ${note}` } }
		: failure;
}
