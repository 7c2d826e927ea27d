// Chats: paging over GET /chats, the cursor rules, minimal chats read in full, and THE page walk.
import { NodeApiError } from 'n8n-workflow';

import type { Chat, Cursor } from '../types';
import { NOT_FOUND_CODE } from './endpoints';
import { IN_FLIGHT_WHEN_PROVEN } from './loginGuard';
import {
	readCredentials,
	svcRequest,
	toNodeApiError,
	type SvcApiContext,
	type SvcRequestOptions,
} from './request';

/** Compares two digit-only microsecond cursors without losing precision (they may exceed 2^53). */
function compareCursors(a: Cursor, b: Cursor): number {
	const [left, right] = [a, b].map((cursor) => String(cursor).replace(/^0+(?=\d)/, ''));
	return left.length - right.length || (left < right ? -1 : left > right ? 1 : 0);
}

/**
 * The cursor to continue from: `last_ts` as received, but one below `since` is ignored (it would replay history); a
 * missing one keeps `since` on an empty page and is an error on a page with chats (no cursor is safe to store).
 */
function nextCursor(
	context: SvcApiContext,
	since: Cursor,
	{ last_ts: lastTs, chats }: { last_ts?: Cursor | null; chats: Chat[] },
	itemIndex?: number,
): Cursor {
	if (lastTs !== undefined && lastTs !== null)
		return compareCursors(lastTs, since) < 0 ? since : lastTs;
	if (chats.length === 0) return since;
	const text = {
		message: `The server listed ${chats.length} changed chat(s) without a last_ts cursor`,
		fix: 'Without last_ts the node cannot tell where to continue, so it stopped rather than lose or repeat chats; nothing after the last stored cursor was taken. Try again later; if it persists, contact Svc support.',
	};
	throw toNodeApiError(context, { text, code: 'missing-last-ts' }, itemIndex);
}

/** GET /chat requests in flight at once: as many as the account's login guard lets go side by side. */
export const FULL_CHAT_CONCURRENCY = IN_FLIGHT_WHEN_PROVEN;

const LIST_ONLY_FIELDS = new Set(['id', 'created_at']);

/**
 * The chats, minimal list entries (spec 2.4) replaced by GET /chat in order. A failure after retries is thrown, naming
 * the chat, and no request follows: no caller passes an unread chat. `dropGone`: a chat the server lost stays bare.
 */
type ReadOptions = SvcRequestOptions & { dropGone?: boolean; only?: (chat: Chat) => boolean };
export async function withFullChats(context: SvcApiContext, chats: Chat[], options: ReadOptions) {
	const missing = chats.flatMap((chat, index) =>
		Object.keys(chat).every((key) => LIST_ONLY_FIELDS.has(key)) && (options.only?.(chat) ?? true)
			? [index]
			: [],
	);
	const filled = [...chats];
	let next = 0;
	let failed = false;
	const worker = async () => {
		while (!failed && next < missing.length) {
			const index = missing[next++];
			const { id } = chats[index];
			try {
				filled[index] = (await svcRequest(context, 'chat', { ...options, qs: { id } })).chat;
			} catch (error) {
				const { dropGone } = options;
				if (dropGone && NOT_FOUND_CODE.test(`${(error as NodeApiError).context?.svcError}`))
					continue;
				failed = true;
				throw dropGone ? error : nameTheListedChat(error, id);
			}
		}
	};
	await Promise.all(
		Array.from({ length: Math.min(FULL_CHAT_CONCURRENCY, missing.length) }, worker),
	);
	return filled;
}

function nameTheListedChat(error: unknown, id: Chat['id']): unknown {
	if (!(error instanceof NodeApiError)) return error;
	error.message = `Chat ${JSON.stringify(id)} was listed with only its id and created_at, and reading it in full failed: ${error.message}`;
	error.context.minimalChatId = id;
	return error;
}

export interface ChatPage {
	since: Cursor; // the cursor this page was requested with
	chats: Chat[];
	/** Cursor to pass next time, exactly as the server sent it (or `since`, when last_ts went back or was absent). */
	lastTs: Cursor;
	moreChatsAvailable: boolean;
}

// A server that keeps saying "more" while handing back nothing is stopped after this many empty pages in a row.
const MAX_EMPTY_PAGES_IN_A_ROW = 3;

/** The widening windows of "recent" and Newest First: 1 hour, 1 day, 1 week, 30 days, 1 year. */
const LOOKBACK_STEPS_MS = [1, 24, 7 * 24, 30 * 24, 365 * 24].map((hours) => hours * 3_600_000);

/** Where each window starts (ms, newest first), the steps shorter than `lookBackMs`, then the look-back (or 0). */
const windowStarts = (presentMs: number, lookBackMs = Infinity) =>
	[...LOOKBACK_STEPS_MS.filter((ms) => ms < lookBackMs && ms <= presentMs), lookBackMs].map((ms) =>
		Math.max(0, presentMs - ms),
	);
const msToCursor = (ms: number) => String(Math.floor(ms) * 1000);

export interface WalkOptions extends Omit<SvcRequestOptions, 'qs' | 'body' | 'notRetried'> {
	/** False keeps minimal list entries as they are (a reader of ids and creation times); a function, those it rejects. */
	fullChats?: boolean | ((chat: Chat) => boolean);
	/** "recent" looks back further while a step's first page holds fewer chats, and no more (default 1). */
	recentChats?: number;
	/** At most this many distinct chats are returned, and no page is fetched beyond the one that reaches it. */
	limit?: number;
	/** Meet `limit` at the end of its page, so the cursor returned has passed every chat returned. */
	wholePages?: boolean;
	/** Stop at the end of the page on which this many chats (counting repeats) have been read. */
	maxChatsRead?: number;
	maxPages?: number;
	/** Date.now() after which no further page is requested. */
	deadlineMs?: number;
	/** When a later page fails, end at the last good page and report the failure instead of throwing. */
	keepOnFailure?: boolean;
	/** Only the chats it keeps (each in its latest version) count and are returned. */
	keep?: (chat: Chat) => boolean;
	/** Sees each page once all its chats are read in full; returning true ends the walk after it. */
	onPage?: (page: ChatPage) => boolean | void;
}

export interface ChatWalk {
	/** One version of each chat, the latest delivered, in the order of latest delivery (spec rule 4.6.4). */
	chats: Chat[];
	/** The last page's `last_ts`, or the cursor of the page the limit cut, so its other chats come again next time. */
	lastTs: Cursor;
	pagesRead: number;
	/** The last page read said no more chats are available. */
	caughtUp: boolean;
	/** Why a later page could not be read (with `keepOnFailure`); the pages before it count. */
	failure?: unknown;
	/** The `Date` header of the last reply that had a readable one (ms, second precision). */
	serverDateMs?: number;
}

/**
 * THE walk over `GET /chats` (spec 4.6) from `since`, page by page along `last_ts` until a limit; at least one page, so
 * every poll progresses, and a page counts once its chats are read in full. "recent" starts at the first look-back step
 * whose first page holds `recentChats` (n8n's clock picks the steps, the server's answer decides).
 */
export async function walkChats(
	context: SvcApiContext,
	since: Cursor | 'recent',
	options: WalkOptions = {},
): Promise<ChatWalk> {
	const { limit, maxChatsRead, maxPages, deadlineMs, onPage, itemIndex, endBy } = options;
	const full = typeof options.fullChats === 'function' ? options.fullChats : undefined;
	const byId = new Map<string, Chat>();
	const starts: Cursor[] = since === 'recent' ? windowStarts(Date.now()).map(msToCursor) : [since];
	let cursor = starts.shift() as Cursor;
	const walk: ChatWalk = { chats: [], lastTs: cursor, pagesRead: 0, caughtUp: false };
	if (limit !== undefined && limit <= 0) return walk;
	const credentials = options.credentials ?? (await readCredentials(context));
	const onServerDate = (dateMs: number) => dateMs >= 0 && (walk.serverDateMs = dateMs);
	const request = { itemIndex, endBy, credentials, onServerDate };
	let chatsRead = 0;
	let emptyPagesInARow = 0;
	try {
		for (;;) {
			const reply = await svcRequest(context, 'chats', { ...request, qs: { since: cursor } });
			const wanted = reply.more_chats_available ? 1 : (options.recentChats ?? 1);
			if (reply.chats.length < wanted && walk.pagesRead === 0 && starts.length > 0) {
				cursor = starts.shift() as Cursor;
				continue;
			}
			const page: ChatPage = {
				since: cursor,
				lastTs: nextCursor(context, cursor, reply, itemIndex),
				chats:
					options.fullChats === false
						? reply.chats
						: await withFullChats(context, reply.chats, { ...request, only: full }),
				moreChatsAvailable: reply.more_chats_available,
			};
			const stop = onPage?.(page) === true;
			// Deleted first, so that a repeated chat moves to the place of its latest delivery.
			for (const chat of page.chats) {
				byId.delete(String(chat.id));
				if (!options.keep || options.keep(chat)) byId.set(String(chat.id), chat);
			}
			walk.pagesRead++;
			chatsRead += page.chats.length;
			walk.lastTs = page.lastTs;
			walk.caughtUp = !page.moreChatsAvailable;
			if (limit !== undefined && byId.size >= limit) {
				if (options.wholePages) return { ...walk, chats: [...byId.values()] };
				if (byId.size > limit) walk.lastTs = page.since; // cut inside the page
				return { ...walk, chats: [...byId.values()].slice(0, limit) };
			}
			if (stop || walk.caughtUp) break;
			if (maxChatsRead !== undefined && chatsRead >= maxChatsRead) break;
			if (maxPages !== undefined && walk.pagesRead >= maxPages) break;
			if (deadlineMs !== undefined && Date.now() >= deadlineMs) break;
			emptyPagesInARow = page.chats.length === 0 ? emptyPagesInARow + 1 : 0;
			const stalled = String(page.lastTs) === String(cursor);
			if (stalled || emptyPagesInARow >= MAX_EMPTY_PAGES_IN_A_ROW) {
				const text = {
					message: stalled
						? `The server keeps reporting more chats, but its cursor stopped moving (last_ts ${String(page.lastTs)})`
						: `The server keeps reporting more chats, but sent none in ${MAX_EMPTY_PAGES_IN_A_ROW} pages in a row (last_ts ${String(page.lastTs)})`,
					fix: 'Stopped to avoid an endless loop. Try again later; if it persists, contact Svc support.',
				};
				throw toNodeApiError(context, { text, code: 'cursor-stalled' }, itemIndex);
			}
			cursor = page.lastTs;
		}
	} catch (error) {
		walk.failure = error;
	}
	// With no chat read before the failure (say the cursor stalled on the first page), there is nothing to keep.
	if (walk.failure !== undefined && (!options.keepOnFailure || chatsRead === 0)) throw walk.failure;
	return { ...walk, chats: [...byId.values()] };
}

// Clocks further apart than this (Date has whole seconds) move the first window to the server's.
const CLOCK_TOLERANCE_MS = 60_000;

/**
 * Newest First: windows back from the server's present (its first Date, else its latest change; n8n's clock only places
 * the first page), each read forward to where the newer began; each chat once, the newer window's, until `limit`.
 */
export async function walkNewestFirst(
	context: SvcApiContext,
	options: Pick<WalkOptions, 'keep' | 'limit' | 'itemIndex'> & { lookBackMs: number },
) {
	const { limit = Infinity, lookBackMs, keep, itemIndex } = options;
	const credentials = await readCredentials(context);
	const found: Chat[] = [];
	const newer = new Set<string>();
	// One window from `since` up to `upper` (else to the end); take() adds the chats no newer window had.
	const read = async (since: Cursor, upper?: Cursor, maxPages?: number) => {
		const ids: string[] = [];
		const walk = await walkChats(context, since, {
			...{ itemIndex, credentials, maxPages },
			fullChats: (chat) => !newer.has(String(chat.id)),
			keep: (chat) => (ids.push(String(chat.id)), !keep || keep(chat)),
			onPage: (page) => upper !== undefined && compareCursors(page.lastTs, upper) >= 0,
		});
		const fresh = () => walk.chats.filter((chat) => !newer.has(String(chat.id))).reverse();
		return { walk, take: () => (found.push(...fresh()), ids.forEach((id) => newer.add(id))) };
	};
	let searchedBackToMs = Date.now() - LOOKBACK_STEPS_MS[0];
	let first = await read(msToCursor(searchedBackToMs), undefined, 1);
	let { serverDateMs: presentMs, lastTs } = first.walk;
	if (presentMs !== undefined && Math.abs(presentMs - Date.now()) > CLOCK_TOLERANCE_MS) {
		searchedBackToMs = presentMs - LOOKBACK_STEPS_MS[0];
		first = await read(msToCursor(searchedBackToMs));
		lastTs = first.walk.lastTs;
	} else if (!first.walk.caughtUp) {
		const rest = await read(lastTs);
		({ lastTs } = (rest.take(), rest.walk));
	}
	first.take();
	presentMs ??= Number(lastTs) / 1000;
	for (const fromMs of windowStarts(presentMs, lookBackMs)) {
		if (found.length >= limit) break;
		if (fromMs >= searchedBackToMs - CLOCK_TOLERANCE_MS) continue;
		(await read(msToCursor(fromMs), msToCursor(searchedBackToMs))).take();
		searchedBackToMs = fromMs;
	}
	return { chats: found.slice(0, limit), searchedBackToMs, lastTs };
}
