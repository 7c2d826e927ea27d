// Dates <-> microsecond cursors, UTC days and local times; pure functions, undefined (or "time unknown") for no date.

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

const HOUR_MS = 3_600_000;
const NUMERIC = Object.fromEntries(
	['year', 'month', 'day', 'hour', 'minute', 'second'].map((part) => [part, 'numeric' as const]),
);
/** A time in the API's own form (spec 1: ISO 8601, UTC), e.g. 2024-05-01T10:00:01.234Z. */
const API_TIME = /^\d{4}-\d\d-\d\dT\d\d:[0-5]\d:[0-5]\d(\.\d{1,9})?Z$/;

/**
 * Times as "2024-05-01 14:03:07" in `timeZone` (else UTC), "time unknown" for no date. Intl gives the offset once per
 * hour met (per message only in an hour in which it changes). A time in the API's form, in an hour whose offset is
 * whole hours, is not even parsed: its local date and hour are found once per hour, its minutes and seconds copied.
 */
export function clockIn(timeZone: unknown): { zone: string; timeOf: (value: unknown) => string } {
	const zone = typeof timeZone === 'string' && timeZone ? timeZone : 'UTC';
	let format: Intl.DateTimeFormat;
	try {
		format = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', ...NUMERIC });
	} catch {
		return clockIn('UTC');
	}
	const offsetAt = (ms: number) => {
		const at = Math.floor(ms / 1000) * 1000;
		const parts = format.formatToParts(at).map(({ type, value }) => [type, Number(value)]);
		const { year, month, day, hour, minute, second } = Object.fromEntries(parts);
		return Date.UTC(year, month - 1, day, hour, minute, second) - at;
	};
	const [offsets, localHours] = [new Map<number, number>(), new Map<string, string | null>()];
	const wallClock = (ms: number) => {
		if (!Number.isFinite(ms)) return 'time unknown';
		const hour = Math.floor(ms / HOUR_MS);
		let offset = offsets.get(hour);
		if (offset === undefined) {
			const [first, last] = [offsetAt(hour * HOUR_MS), offsetAt((hour + 1) * HOUR_MS - 1000)];
			offsets.set(hour, (offset = first === last ? first : NaN));
		}
		const shift = Number.isNaN(offset) ? offsetAt(ms) : offset;
		return new Date(ms + shift).toISOString().slice(0, 19).replace('T', ' ');
	};
	const timeOf = (value: unknown) => {
		if (typeof value === 'string' && API_TIME.test(value)) {
			const utcHour = value.slice(0, 13);
			let localHour = localHours.get(utcHour);
			if (localHour === undefined) {
				const start = Date.parse(`${utcHour}:00:00Z`);
				const [first, last] = [wallClock(start), wallClock(start + HOUR_MS - 1000)];
				const whole = first.endsWith(':00:00') && last === `${first.slice(0, 14)}59:59`;
				localHours.set(utcHour, (localHour = whole ? first.slice(0, 14) : null));
			}
			if (localHour !== null) return `${localHour}${value.slice(14, 19)}`;
		}
		return wallClock(toEpochMs(value) ?? NaN);
	};
	return { zone, timeOf };
}
