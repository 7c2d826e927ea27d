// Chat paging: walks GET /chats by cursor and collects distinct chats up to a limit.
import type { Chat, Cursor } from '../types';
import { nextCursor } from './cursor';
import { withFullChats } from './fullChats';
import { readCredentials, requestWithCredentials, toNodeApiError } from './request';
import type { SvcApiContext, SvcRequestOptions } from './types';

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
	{ fullChats = true, ...options }: ChatPageOptions = {},
): AsyncGenerator<ChatPage> {
	const credentials = await readCredentials(this);
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
