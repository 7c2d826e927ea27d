// Cursor rules for GET /chats where the spec is silent: never backwards, a missing last_ts only on an empty page.
import type { Cursor } from '../types';
import type { SvcErrorText } from './errors';

/** An integer-valued microsecond cursor, as a number or a string of digits (spec 4.6). */
export const isCursor = (value: unknown): value is Cursor =>
	(typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) ||
	(typeof value === 'string' && /^\d{1,20}$/.test(value));

/** Compares two digit-only microsecond cursors without losing precision (they may exceed 2^53). */
export function compareCursors(a: Cursor, b: Cursor): number {
	const left = String(a).replace(/^0+(?=\d)/, '');
	const right = String(b).replace(/^0+(?=\d)/, '');
	if (left.length !== right.length) return left.length < right.length ? -1 : 1;
	return left < right ? -1 : left > right ? 1 : 0;
}

export type NextCursor = { ok: true; cursor: Cursor } | { ok: false; text: SvcErrorText };

/**
 * The cursor to continue from after a /chats reply. `last_ts` is passed on exactly as received, except:
 * below `since` it is ignored (a cursor that went back would replay history); missing or null on a reply with no
 * chats keeps `since`; missing or null on a reply WITH chats is an error, since no cursor is safe to store then.
 */
export function nextCursor(
	since: Cursor,
	lastTs: Cursor | null | undefined,
	chatCount: number,
): NextCursor {
	if (lastTs === undefined || lastTs === null) {
		if (chatCount === 0) return { ok: true, cursor: since };
		return {
			ok: false,
			text: {
				message: `The server listed ${chatCount} changed chat(s) without a last_ts cursor`,
				fix: 'Without last_ts the node cannot tell where to continue, so it stopped rather than lose or repeat chats; nothing after the last stored cursor was taken. Try again later; if it persists, contact Svc support.',
			},
		};
	}
	return { ok: true, cursor: compareCursors(lastTs, since) < 0 ? since : lastTs };
}
