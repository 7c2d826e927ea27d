// Fault injection: the next N requests, or a percentage of them, fail the way real networks and proxies fail.
import { Random } from './random';

export const FAULT_KINDS = [
	'502',
	'503',
	'429',
	'reset',
	'delay',
	'truncated',
	'non-json',
	'html',
	'unexpected-shape',
	'missing-last-ts',
	'stuck-more',
	'huge',
] as const;
type FaultKind = (typeof FAULT_KINDS)[number];

export interface FaultSpec {
	kind: FaultKind;
	/** How many requests get the fault (default 1; with `percent`, the most that get it; unlimited if absent). */
	count?: number;
	/** Give the fault to this percentage of matching requests (seeded, so runs repeat) instead of to every one. */
	percent?: number;
	/** Only requests to this path, e.g. '/api/v2/chats'. */
	path?: string;
	/** Only requests whose `since` is this: the first page of a poll that starts from this cursor. */
	since?: string;
	/** 429 and 503: the Retry-After header, in seconds (default 1). */
	retryAfterSeconds?: number;
	/** delay: how long to wait before answering normally (default 1000 ms). */
	delayMs?: number;
	/** html: the status of the error page, 200 or 500 (default 500). */
	status?: 200 | 500;
}

/** Kinds that only make sense for GET /chats; they never touch other paths. */
const CHATS_ONLY: ReadonlySet<FaultKind> = new Set(['missing-last-ts', 'stuck-more']);
export const CHATS_PATH = '/api/v2/chats';

interface ActiveFault {
	spec: FaultSpec;
	remaining: number;
}

/** Checks a fault spec (it may come over HTTP); throws on anything unusable. */
function validateFault(input: unknown): FaultSpec {
	if (typeof input !== 'object' || input === null) throw new Error('A fault must be an object');
	const spec = input as Record<string, unknown>;
	if (!FAULT_KINDS.includes(spec.kind as FaultKind))
		throw new Error(
			`Unknown fault kind ${JSON.stringify(spec.kind)}; one of ${FAULT_KINDS.join(', ')}`,
		);
	for (const key of ['count', 'retryAfterSeconds', 'delayMs']) {
		if (spec[key] !== undefined && (!Number.isInteger(spec[key]) || (spec[key] as number) < 0))
			throw new Error(`${key} must be a non-negative integer`);
	}
	if (
		spec.percent !== undefined &&
		(typeof spec.percent !== 'number' || spec.percent <= 0 || spec.percent > 100)
	) {
		throw new Error('percent must be a number in (0, 100]');
	}
	for (const key of ['path', 'since'])
		if (spec[key] !== undefined && typeof spec[key] !== 'string')
			throw new Error(`${key} must be a string`);
	if (spec.status !== undefined && spec.status !== 200 && spec.status !== 500)
		throw new Error('status must be 200 or 500');
	return spec as unknown as FaultSpec;
}

export class FaultInjector {
	private active: ActiveFault[] = [];
	private random: Random;

	constructor(private readonly seed: number) {
		this.random = Random.of(seed, 0, 31);
	}

	inject(input: unknown): void {
		const spec = validateFault(input);
		const remaining = spec.count ?? (spec.percent !== undefined ? Infinity : 1);
		if (remaining > 0) this.active.push({ spec: { ...spec }, remaining });
	}

	clear(): void {
		this.active = [];
		this.random = Random.of(this.seed, 0, 31);
	}

	/** The fault this request gets, if any; the first matching fault wins and is used up. */
	take(path: string, since?: string | null): FaultSpec | undefined {
		for (const fault of this.active) {
			const { spec } = fault;
			if (spec.path !== undefined && spec.path !== path) continue;
			if (spec.since !== undefined && spec.since !== since) continue;
			if (CHATS_ONLY.has(spec.kind) && path !== CHATS_PATH) continue;
			if (spec.percent !== undefined && this.random.next() * 100 >= spec.percent) continue;
			fault.remaining--;
			if (fault.remaining <= 0) this.active = this.active.filter((other) => other !== fault);
			return spec;
		}
		return undefined;
	}
}

export const HTML_ERROR_PAGE =
	'<!DOCTYPE html>\n<html><head><title>500 Internal Server Error</title></head>\n' +
	'<body><h1>Internal Server Error</h1><p>The server encountered an internal error.</p><hr><address>nginx</address></body></html>\n';

export const NON_JSON_BODY = 'OK\u0000<<sandbox: this is not JSON>> {"partial": ';

let hugeBody: Buffer | undefined;

/** About 20 MB of valid JSON of a shape no endpoint has; built once. */
export function hugeReply(): Buffer {
	hugeBody ??= Buffer.from(
		JSON.stringify({
			padding: Array.from({ length: 20_000 }, (_, i) => `${i}:${'x'.repeat(1000)}`),
		}),
	);
	return hugeBody;
}

/** A reply of the wrong shape: an object where a list is expected, a list where an object is. */
export function unexpectedShape(path: string, query: URLSearchParams): unknown {
	const listExpected =
		path === '/api/v2/operators' ||
		path === '/api/v2/departments' ||
		(path === '/api/v2/stats' && query.get('mode') === 'operators');
	return listExpected ? { unexpected: 'shape', items: 'not-a-list' } : [{ unexpected: 'shape' }];
}
