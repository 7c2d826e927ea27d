// Page walks for the trigger: a bounded walk that keeps what it read when a later page fails, and a "recent chats" finder.
import {
	svcChatPages,
	type ChatPage,
	type ChatPageOptions,
	type SvcApiContext,
} from '../transport';
import { dateToCursor } from '../helpers/time';

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
