// Chats: paging over GET /chats, the cursor rules, minimal chats read in full, and THE page walk.
import { NodeApiError } from 'n8n-workflow';

import { dateToCursor } from '../helpers/time';
import type { Chat, Cursor } from '../types';
import type { SvcErrorText } from './errors';
import {
	readCredentials,
	requestWithCredentials,
	toNodeApiError,
	type SvcApiContext,
	type SvcCredentials,
	type SvcRequestOptions,
} from './request';

// Cursor rules where the spec is silent: never backwards, a missing last_ts only on an empty page.
/** Compares two digit-only microsecond cursors without losing precision (they may exceed 2^53). */
function compareCursors(a: Cursor, b: Cursor): number {
	const left = String(a).replace(/^0+(?=\d)/, '');
	const right = String(b).replace(/^0+(?=\d)/, '');
	if (left.length !== right.length) return left.length < right.length ? -1 : 1;
	return left < right ? -1 : left > right ? 1 : 0;
}

type NextCursor = { ok: true; cursor: Cursor } | { ok: false; text: SvcErrorText };

/**
 * The cursor to continue from after a /chats reply. `last_ts` is passed on exactly as received, except:
 * below `since` it is ignored (a cursor that went back would replay history); missing or null on a reply with no
 * chats keeps `since`; missing or null on a reply WITH chats is an error, since no cursor is safe to store then.
 */
function nextCursor(
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

// Minimal list entries (spec 2.4: only id and created_at) are filled in with GET /chat, a few at a time.
/** GET /chat requests in flight at once: enough to hide latency, few enough to stay polite to the server. */
export const FULL_CHAT_CONCURRENCY = 4;

const LIST_ONLY_FIELDS = new Set(['id', 'created_at']);

/** A list entry with no field beyond id and created_at: nothing to output or filter on yet. */
function isMinimalChat(chat: Chat): boolean {
	return Object.keys(chat).every((key) => LIST_ONLY_FIELDS.has(key));
}

/**
 * The chats with every minimal entry replaced by the full chat, in the same order. Requests go through the transport,
 * so they are retried like any other; if one still fails, its error is thrown (after naming the chat) and no
 * further request starts, so a caller never goes past a chat it could not read.
 */
async function withFullChats(
	this: SvcApiContext,
	credentials: SvcCredentials,
	chats: Chat[],
	options: Omit<SvcRequestOptions, 'qs' | 'body'>,
): Promise<Chat[]> {
	const missing = chats.flatMap((chat, index) => (isMinimalChat(chat) ? [index] : []));
	if (missing.length === 0) return chats;
	const filled = [...chats];
	let next = 0;
	let failed = false;
	const worker = async () => {
		while (!failed && next < missing.length) {
			const index = missing[next++];
			try {
				const reply = await requestWithCredentials(this, credentials, 'chat', {
					...options,
					qs: { id: chats[index].id },
				});
				filled[index] = reply.chat;
			} catch (error) {
				failed = true;
				throw nameTheListedChat(error, chats[index]);
			}
		}
	};
	await Promise.all(
		Array.from({ length: Math.min(FULL_CHAT_CONCURRENCY, missing.length) }, worker),
	);
	return filled;
}

function nameTheListedChat(error: unknown, chat: Chat): unknown {
	if (!(error instanceof NodeApiError)) return error;
	error.message = `Chat ${JSON.stringify(chat.id)} was listed with only its id and created_at, and reading it in full failed: ${error.message}`;
	error.context.minimalChatId = chat.id;
	return error;
}

export interface ChatPage {
	/** Cursor this page was requested with. */
	since: Cursor;
	chats: Chat[];
	/** Cursor to pass next time, exactly as the server sent it (or `since`, when last_ts went back or was absent). */
	lastTs: Cursor;
	moreChatsAvailable: boolean;
}

// A server that keeps saying "more" while handing back nothing is stopped after this many empty pages in a row.
const MAX_EMPTY_PAGES_IN_A_ROW = 3;

export interface ChatPageOptions extends Omit<SvcRequestOptions, 'qs' | 'body'> {
	/** Credentials the caller has read already (a poll reads them once for all its walks). */
	credentials?: SvcCredentials;
	/**
	 * Replace list entries that hold only id and created_at with the full chat from GET /chat (default true).
	 * Only a reader that needs nothing but ids and creation times (the trigger catching up to now) turns it off.
	 */
	fullChats?: boolean;
}

/**
 * Walks `GET /chats` from `since`, one page at a time, following `last_ts` while `more_chats_available` is true
 * (spec 4.6). The caller decides when to stop; a failed page throws after the earlier pages were yielded. A page is
 * yielded only once each of its chats could be read in full, so a cursor taken from it never passes a skeleton.
 */
export async function* svcChatPages(
	this: SvcApiContext,
	since: Cursor,
	{ fullChats = true, credentials: given, ...options }: ChatPageOptions = {},
): AsyncGenerator<ChatPage> {
	const credentials = given ?? (await readCredentials(this));
	let cursor = since;
	let emptyPagesInARow = 0;
	for (;;) {
		const reply = await requestWithCredentials(this, credentials, 'chats', {
			...options,
			qs: { since: cursor },
		});
		const next = nextCursor(cursor, reply.last_ts, reply.chats.length);
		if (!next.ok)
			throw toNodeApiError(this, { text: next.text, code: 'missing-last-ts' }, options.itemIndex);
		const chats = fullChats
			? await withFullChats.call(this, credentials, reply.chats, options)
			: reply.chats;
		const page: ChatPage = {
			since: cursor,
			chats,
			lastTs: next.cursor,
			moreChatsAvailable: reply.more_chats_available,
		};
		yield page;
		if (!page.moreChatsAvailable) return;
		emptyPagesInARow = page.chats.length === 0 ? emptyPagesInARow + 1 : 0;
		const stalled = String(page.lastTs) === String(cursor);
		if (stalled || emptyPagesInARow >= MAX_EMPTY_PAGES_IN_A_ROW) {
			const text = {
				message: stalled
					? `The server keeps reporting more chats, but its cursor stopped moving (last_ts ${String(page.lastTs)})`
					: `The server keeps reporting more chats, but sent none in ${MAX_EMPTY_PAGES_IN_A_ROW} pages in a row (last_ts ${String(page.lastTs)})`,
				fix: 'Stopped to avoid an endless loop. Try again later; if it persists, contact Svc support.',
			};
			throw toNodeApiError(this, { text, code: 'cursor-stalled' }, options.itemIndex);
		}
		cursor = page.lastTs;
	}
}

/** Keeps one version of each chat, the latest delivered, in the order of latest delivery (spec rule 4.6.4). */
export function addLatestVersions(byId: Map<string, Chat>, chats: Chat[]): void {
	for (const chat of chats) {
		const key = String(chat.id);
		byId.delete(key);
		byId.set(key, chat);
	}
}

export interface CollectedChats {
	chats: Chat[];
	/**
	 * A cursor that loses nothing: the last page's `last_ts` when every page was taken whole,
	 * else the cursor of the page the limit cut, so its remaining chats come again next time.
	 */
	lastTs: Cursor;
}

export interface GetChatsOptions extends ChatPageOptions {
	limit?: number;
	/**
	 * Stop at the end of the page on which `limit` is reached instead of inside it, so the cursor returned has passed
	 * every chat returned and always moves forward (up to a page, 100 chats, beyond the limit).
	 */
	wholePages?: boolean;
}

/** Reads changed chats since a cursor, up to `limit` distinct chats, fetching no page beyond it. */
export async function svcGetChats(
	this: SvcApiContext,
	since: Cursor,
	{ limit, wholePages = false, ...options }: GetChatsOptions = {},
): Promise<CollectedChats> {
	const byId = new Map<string, Chat>();
	let lastTs = since;
	if (limit !== undefined && limit <= 0) return { chats: [], lastTs };
	for await (const page of svcChatPages.call(this, since, options)) {
		addLatestVersions(byId, page.chats);
		if (limit !== undefined && byId.size >= limit) {
			if (wholePages) return { chats: [...byId.values()], lastTs: page.lastTs };
			const cutInsidePage = byId.size > limit;
			lastTs = cutInsidePage ? page.since : page.lastTs;
			return { chats: [...byId.values()].slice(0, limit), lastTs };
		}
		lastTs = page.lastTs;
	}
	return { chats: [...byId.values()], lastTs };
}

// The trigger's and the From List search's walks: bounded, keeping what was read when a later page fails, and "recent".
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** How far back "recent" looks, widening step by step; the last step is the whole history. */
const LOOKBACK_STEPS_MS = [HOUR_MS, DAY_MS, 7 * DAY_MS, 30 * DAY_MS, 365 * DAY_MS];

/**
 * Pages of changes starting at a recent point: the first look-back step (1 hour, 1 day, 7 days, 30 days, a year,
 * then the beginning) whose first page holds chats. The look-back is measured on n8n's clock, but a step counts only
 * when the server answers it with chats, so the server's own cursor decides where the walk continues: if n8n's clock
 * is ahead of the server's, the empty steps are passed over instead of trusted. One request per empty step.
 */
export async function* recentChatPages(
	this: SvcApiContext,
	nowMs: number,
	options: ChatPageOptions = {},
): AsyncGenerator<ChatPage> {
	const starts = LOOKBACK_STEPS_MS.map((ms) => dateToCursor(nowMs - ms)).filter(
		(since) => since !== undefined,
	);
	starts.push('0');
	for (const [index, since] of starts.entries()) {
		const pages = svcChatPages.call(this, since, options);
		const first = await pages.next();
		if (first.done) continue;
		if (first.value.chats.length > 0 || index === starts.length - 1) {
			yield first.value;
			yield* pages;
			return;
		}
		await pages.return(undefined);
	}
}

export interface WalkLimits {
	/** Stop at the end of the page on which this many chats have been read. */
	maxChats: number;
	maxPages?: number;
	/** Date.now() after which no further page is requested. */
	deadlineMs?: number;
}

export interface PageWalk {
	/** `last_ts` of the last page read, as a string, exactly as the server sent it. */
	cursor: string;
	pagesRead: number;
	chatsRead: number;
	/** The last page read said no more chats are available. */
	caughtUp: boolean;
	/** Why a later page could not be read; the pages before it count. */
	failure?: unknown;
}

/**
 * Reads pages until the server has no more, or a limit is reached at a page boundary. At least one page is always
 * read, so every poll makes progress. If the first page fails, or a later one before any chat was read, that error is
 * thrown; if a later page fails, the walk ends at the last good page and reports the failure.
 */
export async function walkPages(
	pages: AsyncIterable<ChatPage>,
	limits: WalkLimits,
	onPage: (page: ChatPage) => void,
): Promise<PageWalk | undefined> {
	let walk: PageWalk | undefined;
	let failure: { error: unknown } | undefined;
	try {
		for await (const page of pages) {
			onPage(page);
			walk = {
				cursor: String(page.lastTs),
				pagesRead: (walk?.pagesRead ?? 0) + 1,
				chatsRead: (walk?.chatsRead ?? 0) + page.chats.length,
				caughtUp: !page.moreChatsAvailable,
			};
			if (walk.caughtUp || walk.chatsRead >= limits.maxChats) break;
			if (limits.maxPages !== undefined && walk.pagesRead >= limits.maxPages) break;
			if (limits.deadlineMs !== undefined && Date.now() >= limits.deadlineMs) break;
		}
	} catch (error) {
		failure = { error };
	}
	// The transport's errors are already NodeApiErrors with the message and fix n8n shows. With no chat read before
	// the failure (say the server's cursor stalled on the first page), there is nothing to keep: the poll shows the error.
	if (failure && (walk === undefined || walk.chatsRead === 0)) throw failure.error;
	if (walk && failure) walk.failure = failure.error;
	return walk;
}
