// Dates <-> microsecond cursors and UTC days; pure functions, undefined for input that is not a date.

/** Milliseconds since the epoch for an ISO string, a Date, a Luxon DateTime or epoch milliseconds. */
export function toEpochMs(value: unknown): number | undefined {
	const toMillis = (value as { toMillis?: unknown } | null)?.toMillis;
	let ms: number;
	if (value instanceof Date) ms = value.getTime();
	else if (typeof value === 'number') ms = value;
	else if (typeof value === 'string' && value.trim() !== '') {
		const text = value.trim();
		// A bare date means midnight UTC, as the API's dates are UTC throughout.
		ms = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T00:00:00Z` : text);
	} else if (typeof value === 'object' && typeof toMillis === 'function') {
		ms = toMillis.call(value) as number;
	} else return undefined;
	return Number.isFinite(ms) && ms >= 0 && ms <= 253402300799999 ? ms : undefined;
}

/** The microsecond cursor (spec 4.6) of a date, as a string of digits. */
export function dateToCursor(value: unknown): string | undefined {
	const ms = toEpochMs(value);
	return ms === undefined ? undefined : String(ms * 1000);
}

/** The time a microsecond cursor stands for, as ISO text (the inverse of dateToCursor, to the millisecond). */
export function cursorToIso(cursor: unknown): string | undefined {
	const ms = toEpochMs(/^\d+$/.test(String(cursor)) ? Math.floor(Number(cursor) / 1000) : NaN);
	return ms === undefined ? undefined : new Date(ms).toISOString();
}

export function toUtcDay(value: unknown): string | undefined {
	const ms = toEpochMs(value);
	return ms === undefined ? undefined : new Date(ms).toISOString().slice(0, 10);
}

const ZONELESS_DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?$/;

/** A date-time without a zone (n8n's date picker gives one) read as UTC, like every time of the API, not in the server's zone. */
export function zonelessAsUtc(value: unknown): unknown {
	if (typeof value !== 'string') return value;
	const text = value.trim();
	return ZONELESS_DATE_TIME.test(text) ? `${text.replace(' ', 'T')}Z` : value;
}

/**
 * The day a person means: text keeps the day it is written with ("2024-05-01T00:00:00+02:00" is 2024-05-01), so n8n's
 * timezone cannot shift it; a Luxon DateTime gives its own zone's day; a Date or epoch milliseconds their UTC day.
 */
export function calendarDay(value: unknown): string | undefined {
	const luxonDay = (value as { toISODate?: unknown } | null)?.toISODate;
	if (typeof value === 'object' && value !== null && typeof luxonDay === 'function') {
		const day = luxonDay.call(value) as unknown;
		return typeof day === 'string' && toUtcDay(day) === day ? day : undefined;
	}
	if (typeof value === 'string') {
		const written = /^\s*(\d{4}-\d{2}-\d{2})/.exec(value)?.[1];
		if (written === undefined || toEpochMs(zonelessAsUtc(value)) === undefined) return undefined;
		return toUtcDay(written) === written ? written : undefined;
	}
	return toUtcDay(value);
}
