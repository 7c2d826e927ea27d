// Spec 4.1–4.3 and 7.1–7.3: the real-time commands, each check in the order given below, replies exactly as the spec.
import { CHANNELS, REGISTERED_PHONES, TEMPLATES } from './data';
import type { SandboxState } from './state';

export type RealTimeReply = { result: 'ok' } | ({ error: string } & Record<string, unknown>);

const OK: RealTimeReply = { result: 'ok' };
const fail = (error: string, extra: Record<string, unknown> = {}): RealTimeReply => ({
	error,
	...extra,
});

const isObject = (value: unknown): value is Record<string, unknown> =>
	typeof value === 'object' && value !== null && !Array.isArray(value);

/** Invalid JSON first, then "not an object" (the only order in which both checks make sense). */
function parseBody(body: string): { value: Record<string, unknown> } | { reply: RealTimeReply } {
	let value: unknown;
	try {
		value = JSON.parse(body);
	} catch {
		return { reply: fail('request-body-is-not-valid-json') };
	}
	if (!isObject(value)) return { reply: fail('request-body-is-not-object') };
	return { value };
}

/**
 * 4.1 provide_visitor_fields. Checks: valid JSON; an object; auth_token present (`mandatory-field-not-found`,
 * field auth_token); auth_token a string; then visitor_fields when present:
 * - an array (JSON keys are always strings, so this is the one way to send a non-string key, its index) gives
 *   `field-name-is-not-string` with `field_name` = 0, the first index (not shown in the spec; our choice);
 * - anything else that is not an object (string, number, null), an object without `id`, or an empty `id`
 *   has no usable id: `id-field-required` (a non-string id is reported as a non-string value below);
 * - the first non-string value, in key order: `field-value-is-not-string` with `field_value` = that value.
 */
export function provideVisitorFields(state: SandboxState, body: string): RealTimeReply {
	const parsed = parseBody(body);
	if ('reply' in parsed) return parsed.reply;
	const request = parsed.value;
	if (!('auth_token' in request)) return fail('mandatory-field-not-found', { field: 'auth_token' });
	const token = request.auth_token;
	if (typeof token !== 'string') return fail('auth-token-is-not-string');
	if (!('visitor_fields' in request)) {
		// Rule 2: logout; removing a pairing that does not exist is not an error.
		state.pairings.delete(token);
		return OK;
	}
	const fields = request.visitor_fields;
	if (Array.isArray(fields) && fields.length > 0)
		return fail('field-name-is-not-string', { field_name: 0 });
	if (!isObject(fields) || !('id' in fields) || fields.id === '') return fail('id-field-required');
	for (const value of Object.values(fields)) {
		if (typeof value !== 'string') return fail('field-value-is-not-string', { field_value: value });
	}
	state.pairings.set(token, { ...(fields as Record<string, string>) });
	return OK;
}

const EMAIL_SHAPE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function minutesOfDay(hhmm: string): number {
	const [hours, minutes] = hhmm.split(':').map(Number);
	return hours * 60 + minutes;
}

/** Is `at` inside the UTC window [from, to)? A window whose end is before its start wraps past midnight. */
function inOnlineWindow(window: { from: string; to: string }, at: Date): boolean {
	const now = at.getUTCHours() * 60 + at.getUTCMinutes();
	const from = minutesOfDay(window.from);
	const to = minutesOfDay(window.to);
	return from <= to ? now >= from && now < to : now >= from || now < to;
}

/**
 * 4.2 agent_status with the rules of section 3. Checks, in order:
 * 1. valid JSON, an object; 2. `missing-argument` for email, then status (null counts as missing);
 * 3. `invalid-agent-email` when email is not a string, malformed, or no operator has it (case-insensitive);
 * 4. a status that is not a non-empty string: `agent-status-not-allowed` (not shown; force does not help);
 * 5. a condition that is not an object, or initial_statuses that is not a list of strings: `unknown` (not shown);
 * 6. an offline operator cannot be left offline (section 3, whatever `force` says): `agent-status-not-allowed`
 *    (the spec names no code for it; our choice). Setting offline again is allowed and changes nothing;
 * 7. condition.initial_statuses, when given, must contain the current status: `condition-not-satisfied`
 *    (the caller's own condition, so `force` does not skip it);
 * 8. system restrictions, skipped when force is true: the tariff's statuses (`agent-status-not-allowed`), then
 *    the allowed online time for going online (`not-in-allowed-online-time`).
 */
export function agentStatus(state: SandboxState, body: string): RealTimeReply {
	const parsed = parseBody(body);
	if ('reply' in parsed) return parsed.reply;
	const request = parsed.value;
	for (const argument of ['email', 'status']) {
		if (request[argument] === undefined || request[argument] === null)
			return fail('missing-argument', { argument });
	}
	const { email, status, force, condition } = request;
	const operator =
		typeof email === 'string' && EMAIL_SHAPE.test(email) ? state.findOperator(email) : undefined;
	if (!operator) return fail('invalid-agent-email');
	if (typeof status !== 'string' || status === '') return fail('agent-status-not-allowed');
	let initialStatuses: string[] | undefined;
	if (condition !== undefined) {
		if (!isObject(condition)) return fail('unknown');
		const given = condition.initial_statuses;
		if (given !== undefined) {
			if (!Array.isArray(given) || given.some((s) => typeof s !== 'string')) return fail('unknown');
			initialStatuses = given as string[];
		}
	}
	if (operator.status === 'offline' && status !== 'offline')
		return fail('agent-status-not-allowed');
	if (initialStatuses && !initialStatuses.includes(operator.status))
		return fail('condition-not-satisfied');
	if (force !== true) {
		if (!state.settings.allowedStatuses.includes(status)) return fail('agent-status-not-allowed');
		const window = state.settings.allowedOnlineTime;
		if (status === 'online' && window && !inOnlineWindow(window, state.now()))
			return fail('not-in-allowed-online-time');
	}
	operator.status = status;
	return OK;
}

const HEADER_TYPES = new Set(['text', 'image', 'video', 'document', 'audio']);
const PART_TYPES = new Set(['header', 'body', 'footer']);

/** One template parameter element, by part (spec 4.3): header {type, text}, body {type: 'text', text}, footer {text}. */
function isValidParameter(part: string | undefined, parameter: unknown): boolean {
	if (!isObject(parameter) || typeof parameter.text !== 'string') return false;
	const members = Object.keys(parameter);
	switch (part) {
		case 'header':
			return HEADER_TYPES.has(parameter.type as string) && members.length === 2;
		case 'body':
			return parameter.type === 'text' && members.length === 2;
		case 'footer':
			return members.length === 1;
		default:
			// No `type` on the part: any of the three element shapes.
			return (
				members.length === 1 ||
				(typeof parameter.type === 'string' &&
					HEADER_TYPES.has(parameter.type) &&
					members.length === 2)
			);
	}
}

/** One `{type, parameters}` part; unknown members or shapes are malformed. */
function isValidPart(part: unknown): part is { type?: string } {
	if (!isObject(part)) return false;
	if (Object.keys(part).some((key) => key !== 'type' && key !== 'parameters')) return false;
	if (part.type !== undefined && !PART_TYPES.has(part.type as string)) return false;
	if (part.parameters === undefined) return true;
	return (
		Array.isArray(part.parameters) &&
		part.parameters.every((p) => isValidParameter(part.type as string | undefined, p))
	);
}

/**
 * `entries[].body`: spec 4.3 shows one object with `type` and `parameters`; several parts are not shown. Accepted:
 * absent, one part object, or an array of part objects with distinct types (params.md). Anything else is malformed.
 */
function isValidBody(body: unknown): boolean {
	if (body === undefined) return true;
	if (Array.isArray(body)) {
		const types = body.map((part) => (isObject(part) ? part.type : undefined));
		return body.every(isValidPart) && new Set(types).size === types.length;
	}
	return isValidPart(body);
}

const digitsOnly = (phone: string) => phone.replace(/[\s().-]/g, '');

/**
 * 4.3 send_broadcast. Checks, in the order of the spec's error table:
 * 1. valid JSON, an object;
 * 2. `missing-argument` naming the first absent path, in the order of the request table: operator_id, data,
 *    data.kind, data.channel_id, data.data; for kind msgapp also data.data.template_id, data.data.entries (an empty
 *    list counts as absent), then per entry data.data.entries[i].phone_number and .language_code;
 * 3. `parsing-error` when a present value has the wrong type (operator_id not an integer, data/data.data not objects,
 *    strings that are not strings, entries not a list of objects) or an entry's body is malformed (not shown: we
 *    extend the spec's "template parameters malformed" to every value that cannot be read);
 * 4. `unknown-broadcast-kind` when data.kind is neither msgapp nor history-chats;
 * 5. not shown in the spec, our choices: an operator_id no operator has, or a channel_id that is not a channel of
 *    the account, gives `unknown`; for msgapp an unregistered template_id gives `template-not-found` and an
 *    inactive one `template-not-active` (rule 1).
 * history-chats: its payload is not shown, so any object is accepted as data.data and recorded as sent.
 * Accepted broadcasts are recorded; only registered numbers are delivered to (rule 2), the rest get nothing.
 */
export function sendBroadcast(state: SandboxState, body: string): RealTimeReply {
	const parsed = parseBody(body);
	if ('reply' in parsed) return parsed.reply;
	const request = parsed.value;
	const data = request.data as Record<string, unknown> | undefined;
	const payload = isObject(data) ? (data.data as Record<string, unknown> | undefined) : undefined;
	const missing = (value: unknown) => value === undefined || value === null;

	const commonPaths: Array<[string, () => unknown]> = [
		['operator_id', () => request.operator_id],
		['data', () => data],
		['data.kind', () => (isObject(data) ? data.kind : undefined)],
		['data.channel_id', () => (isObject(data) ? data.channel_id : undefined)],
		['data.data', () => payload],
	];
	for (const [path, read] of commonPaths) {
		// A non-object `data` is a type error (step 3), not an absent argument, so it stops the walk here.
		if (path !== 'operator_id' && path !== 'data' && !isObject(data)) break;
		if (missing(read())) return fail('missing-argument', { argument: path });
	}
	const isMsgApp = isObject(data) && data.kind === 'msgapp';
	if (isMsgApp && isObject(payload)) {
		if (missing(payload.template_id))
			return fail('missing-argument', { argument: 'data.data.template_id' });
		const entries = payload.entries;
		if (missing(entries) || (Array.isArray(entries) && entries.length === 0)) {
			return fail('missing-argument', { argument: 'data.data.entries' });
		}
		if (Array.isArray(entries)) {
			for (const [i, entry] of entries.entries()) {
				if (!isObject(entry)) continue;
				for (const member of ['phone_number', 'language_code']) {
					if (missing(entry[member]))
						return fail('missing-argument', { argument: `data.data.entries[${i}].${member}` });
				}
			}
		}
	}

	if (!Number.isInteger(request.operator_id) || !isObject(data) || typeof data.kind !== 'string')
		return fail('parsing-error');
	if (typeof data.channel_id !== 'string' || !isObject(payload)) return fail('parsing-error');
	if (isMsgApp) {
		const entries = payload.entries;
		if (typeof payload.template_id !== 'string' || !Array.isArray(entries))
			return fail('parsing-error');
		for (const entry of entries) {
			if (
				!isObject(entry) ||
				typeof entry.phone_number !== 'string' ||
				typeof entry.language_code !== 'string'
			) {
				return fail('parsing-error');
			}
			if (!isValidBody(entry.body)) return fail('parsing-error');
		}
	}
	if (data.kind !== 'msgapp' && data.kind !== 'history-chats')
		return fail('unknown-broadcast-kind');

	if (!state.operators.some((operator) => operator.id === request.operator_id))
		return fail('unknown');
	if (!CHANNELS.includes(data.channel_id)) return fail('unknown');
	let deliveredTo: string[] = [];
	if (isMsgApp) {
		const template = Object.hasOwn(TEMPLATES, payload.template_id as string)
			? TEMPLATES[payload.template_id as string]
			: undefined;
		if (!template) return fail('template-not-found');
		if (!template.active) return fail('template-not-active');
		deliveredTo = (payload.entries as Array<{ phone_number: string }>)
			.map((entry) => entry.phone_number)
			.filter((phone) => REGISTERED_PHONES.has(digitsOnly(phone)));
	}
	state.broadcasts.push({
		at: state.now().toISOString(),
		operator_id: request.operator_id as number,
		kind: data.kind,
		channel_id: data.channel_id,
		data: structuredClone(payload),
		delivered_to: deliveredTo,
	});
	return OK;
}
