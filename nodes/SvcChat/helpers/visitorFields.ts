// Provided visitor fields (spec 2.1, 4.1): string values only, plus the page snippet that exposes the auth token.
import { describeValueType, showValue } from './values';

export type VisitorFieldsResult =
	| { fields: Record<string, string>; problem?: undefined }
	| { fields?: undefined; problem: string };

/** Text as the API wants it: numbers and true/false become text; objects, lists, null and NaN are refused. */
export function visitorFieldText(
	key: string,
	value: unknown,
): { text: string; problem?: undefined } | { text?: undefined; problem: string } {
	if (typeof value === 'string') return { text: value };
	if (
		(typeof value === 'number' && Number.isFinite(value)) ||
		typeof value === 'boolean' ||
		typeof value === 'bigint'
	) {
		return { text: String(value) };
	}
	return {
		problem: `Visitor field ${showValue(key)} is ${describeValueType(value)}, but the API accepts only text. Give it text, a number or true/false.`,
	};
}

/**
 * Builds `visitor_fields`: `id` first, then each extra field as text. `id` may only come from the visitor ID,
 * so a second, different id cannot slip in through the extra fields.
 */
export function buildVisitorFields(
	visitorId: string,
	extra: Array<[string, unknown]>,
): VisitorFieldsResult {
	// A Map, not an object: names such as "constructor" or "__proto__" are fields like any other.
	const fields = new Map<string, string>([['id', visitorId]]);
	for (const [rawKey, value] of extra) {
		const key = rawKey.trim();
		if (!key)
			return {
				problem: 'A visitor field has an empty name. Give every field a name, or remove it.',
			};
		if (key === 'id') {
			return {
				problem:
					"The visitor field 'id' is set by 'Visitor ID'. Remove 'id' from the other fields.",
			};
		}
		if (fields.has(key))
			return {
				problem: `The visitor field ${showValue(key)} is set twice. Keep only one of them.`,
			};
		const coerced = visitorFieldText(key, value);
		if (coerced.problem !== undefined) return { problem: coerced.problem };
		fields.set(key, coerced.text);
	}
	return { fields: Object.fromEntries(fields) };
}

/**
 * The line a website puts in its pages (spec 4.1 rule 5a). The token is a JavaScript string literal that is
 * also safe inside an inline <script>: quotes, backslashes, "<" and line separators are escaped.
 */
export function authTokenSnippet(token: string): string {
	const literal = JSON.stringify(token)
		.replace(/</g, '\\u003c')
		.replace(/>/g, '\\u003e')
		.replace(/\u2028/g, '\\u2028')
		.replace(/\u2029/g, '\\u2029');
	return `window.svc_auth_token = ${literal};`;
}
