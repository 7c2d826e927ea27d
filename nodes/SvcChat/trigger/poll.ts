// One poll of the trigger's chat events, and the state it keeps in static data for them and for the operator events.
import { NodeOperationError, type IDataObject, type IPollFunctions } from 'n8n-workflow';

import { walkChats, type ChatWalk, type WalkOptions } from '../transport/chats';
import { accountOf } from '../transport/loginGuard';
// The stored cursor must be one the transport accepts as last_ts: one definition of the cursor's format.
import { isCursor } from '../transport/endpoints';
import { readCredentials } from '../transport/request';
import { chatFormatter, readOperatorNames, type OperatorNames } from '../output/chatOutput';
import { finalState } from '../helpers/chat';
import { cursorToIso, toEpochMs } from '../helpers/time';
import { isPlainObject } from '../helpers/values';
import type { Chat } from '../types';
import { readTriggerSettings, type TriggerSettings } from './description';
import { findEvents, isChatEvent, type ChatEvent, type FoundEvent } from './events';
import { isWaitMemory, takeDueWaits, type WaitMemory } from './waiting';

/** "Fetch Test Event" shows at most this many chats (or ratings, missed chats), read from at most this many pages. */
const TEST_EVENT_CHATS = 5;
const TEST_EVENT_PAGES = 3;
/** What the events but Every Change emit is rarer than a change: their test event looks back until a whole page. */
const TEST_EVENT_PAGE = 100;
/** Share of n8n's poll budget after which no further page is requested, leaving room for a slow last page. */
export const POLL_BUDGET_SHARE = 0.5;

/** The next state is built and saved here only, after the pages were read: an error never moves the stored cursor. */
export async function pollChats(context: IPollFunctions) {
	const settings = readTriggerSettings(context);
	if (context.getMode() === 'manual') return await fetchTestEvent(context, settings);
	// Read once per poll: n8n decrypts the credentials on every read.
	const credentials = await readCredentials(context);
	const staticData = context.getWorkflowStaticData('node');
	const saved = typeof staticData.startedFrom === 'string' ? staticData : {};
	const { boundTo, moved } = serverBinding(credentials, saved);
	// So a user who points a credential from a test server at production sees what happened.
	if (moved)
		context.logger.warn(
			`Svc Chat Trigger: ${moved}; starting again from ${describeStart(settings.start)}`,
		);
	// The stored state starts again when Start From changed (rule 7) or the binding moved.
	const kept = staticData.startedFrom === settings.start.startedFrom && !moved;
	const state = (kept && storedState(staticData, boundTo)) || { ...settings.start, boundTo };
	const walkOptions: WalkOptions = {
		credentials,
		maxChatsRead: settings.maxChatsPerPoll,
		...pollBudget(context),
		keepOnFailure: true,
	};
	if (state.catchingUp) {
		saveState(staticData, await catchUpToNow(context, state, settings, walkOptions));
		return null;
	}

	const walk = await walkChats(context, state.cursor ?? '0', walkOptions);
	reportFailure(context, walk, state.cursor);
	const cursor = String(walk.lastTs);
	const { emit } = settings;
	if (emit === 'visitorWaiting') {
		const memory = state.waiting ?? { from: startingPoint(state), waits: [] };
		const taken = await takeDueWaits(context, memory, walk, settings.waitMs, walkOptions);
		const output = await eventOutput(context, settings, taken.due, walk, walkOptions);
		saveState(staticData, { ...state, cursor, waiting: taken.memory });
		return output;
	}
	if (isChatEvent(emit)) {
		const memory = eventMemory(state, emit);
		const found = walk.chats.flatMap((chat) => findEvents(chat, emit, settings.ratings));
		const { fresh, seen } = takeUnseen(found, memory.from, memory.seen, SEEN_EVENTS_CAP);
		// Built first, as below.
		const output = await eventOutput(context, settings, fresh, walk, walkOptions);
		saveState(staticData, { ...state, cursor, events: { ...memory, seen } });
		return output;
	}
	// The chats Emit asks for, in order of their latest delivery.
	let { chats, seenIds } = { chats: walk.chats, seenIds: state.seenIds };
	if (emit === 'finishedChats') chats = chats.filter(isFinished);
	if (emit === 'newChats') ({ chats, seenIds } = takeNewChats(state, chats));
	// Built first: a failed GET /operators (Transcript) fails the poll and keeps the stored place.
	const output = await toOutput(context, settings, chats, walk, walkOptions);
	saveState(staticData, { ...state, seenIds, cursor });
	return output;
}

/**
 * What New Rating or Missed Chat remembers; another event's memory starts again. Older ratings and closings are not
 * new: from the Start Date; with Now, from the trigger's place then (the server's position, not n8n's clock).
 */
function eventMemory(state: TriggerState, event: ChatEvent): EventMemory {
	if (state.events?.of === event) return state.events;
	return { of: event, from: startingPoint(state), seen: [] };
}

const startingPoint = (state: TriggerState) =>
	state.startedFrom === 'now' ? cursorToIso(state.cursor) : state.newChatsFrom;

function describeStart({ startedFrom, newChatsFrom }: TriggerSettings['start']) {
	if (startedFrom === 'now') return "Now (the server's present; nothing older is emitted)";
	if (startedFrom === 'beginning') return 'the Beginning of History';
	return `the Start Date ${newChatsFrom ?? ''}`.trim();
}

/** Start From "Now": reads to the server's present, emitting nothing: the cursor is the server's, not n8n's clock. */
async function catchUpToNow(
	context: IPollFunctions,
	state: TriggerState,
	settings: TriggerSettings,
	walkOptions: WalkOptions,
): Promise<TriggerState> {
	// -1: no creation time known yet.
	let newestCreatedMs = toEpochMs(state.newChatsFrom) ?? -1;
	let seenIds = state.seenIds;
	const walk = await walkChats(context, state.cursor ?? 'recent', {
		...walkOptions,
		// Catching up emits nothing and needs only ids and creation times, which minimal list entries have: no GET /chat.
		fullChats: false,
		onPage: ({ chats }) => {
			const createdMs = chats.map((chat) => toEpochMs(chat.created_at) ?? -1);
			newestCreatedMs = Math.max(newestCreatedMs, ...createdMs);
			// Old chats that change later are not new; the seen list covers the ones created in the same instant as the newest.
			const ids = chats.map((chat) => String(chat.id));
			if (settings.emit === 'newChats') seenIds = rememberSeen(seenIds, ids);
		},
	});
	reportFailure(context, walk, state.cursor);
	const newChatsFrom =
		newestCreatedMs >= 0 ? new Date(newestCreatedMs).toISOString() : state.newChatsFrom;
	const cursor = String(walk.lastTs);
	return { ...state, seenIds, cursor, catchingUp: !walk.caughtUp, newChatsFrom };
}

/** "Fetch Test Event", the state untouched: recent matches, newest first where they have a time, or an error. */
async function fetchTestEvent(context: IPollFunctions, settings: TriggerSettings) {
	const { emit } = settings;
	const walk = await walkChats(context, 'recent', {
		recentChats: emit === 'everyChange' ? TEST_EVENT_CHATS : TEST_EVENT_PAGE,
		maxPages: TEST_EVENT_PAGES,
		keepOnFailure: true,
	});
	if (emit === 'visitorWaiting') {
		// Every chat waiting now, however briefly: the latest waits, not the oldest (issue 59).
		const { due } = await takeDueWaits(context, { waits: [] }, walk, -Infinity);
		const sample = newestFirst(due, (event) => event.at);
		if (sample.length) return await eventOutput(context, settings, sample, walk);
		throw new NodeOperationError(context.getNode(), 'Nobody is waiting', {
			description: `No visitor is waiting for an answer in the last ${walk.chats.length} changed chats, so there is no sample to show. Fetch again while one waits (in the sandbox: POST /__control/chats/wait); the active trigger does not need one.`,
		});
	}
	if (isChatEvent(emit)) {
		// Those the Ratings filter lets through, or else any; the newest by their own time (rated, closed).
		const found = walk.chats.flatMap((chat) => findEvents(chat, emit, settings.ratings));
		const wanted = found.filter((event) => event.wanted);
		const sample = newestFirst(wanted.length ? wanted : found, (event) => event.at);
		if (sample.length) return await eventOutput(context, settings, sample, walk);
		const what = emit === 'newRating' ? 'rating' : 'missed chat';
		throw new NodeOperationError(context.getNode(), `No ${what} found in recently changed chats`, {
			description: `There is no sample to show: none of the last ${walk.chats.length} changed chats has one. Fetch again once there is one; the active trigger does not need one.`,
		});
	}
	const matching = emit === 'finishedChats' ? walk.chats.filter(isFinished) : walk.chats;
	const sample =
		emit === 'newChats'
			? newestFirst(walk.chats, (chat) => chat.created_at)
			: (matching.length ? matching : walk.chats).slice(-TEST_EVENT_CHATS);
	if (sample.length === 0) {
		throw new NodeOperationError(context.getNode(), 'No chats found on the server', {
			description:
				'The Svc account has no chats yet, so there is no sample to show. Start a chat in the widget and fetch again; the active trigger does not need one.',
		});
	}
	return await toOutput(context, settings, sample, walk);
}

/** The TEST_EVENT_CHATS newest by `timeOf`, newest first; on equal times the later delivered, undated ones last. */
function newestFirst<Found>(list: Found[], timeOf: (found: Found) => unknown): Found[] {
	const timed = list.map((found) => ({ found, ms: toEpochMs(timeOf(found)) ?? -Infinity }));
	timed.reverse().sort((a, b) => (b.ms > a.ms ? 1 : b.ms < a.ms ? -1 : 0));
	return timed.slice(0, TEST_EVENT_CHATS).map(({ found }) => found);
}

const isFinished = (chat: Chat) => finalState(chat) === 'closed';

/** The chats in the chosen Output; Simplified and Transcript ask for the operators' names only when there are chats. */
async function shaped(
	context: IPollFunctions,
	settings: TriggerSettings,
	chats: Chat[],
	options?: WalkOptions & { operatorNames?: OperatorNames },
) {
	return chats.length ? (await chatFormatter(context, settings.output, options))(chats) : [];
}

/** The items of `chats` in the chosen Output, or null when there are none. */
const toOutput = async (
	context: IPollFunctions,
	settings: TriggerSettings,
	chats: Chat[],
	walk: ChatWalk,
	options?: WalkOptions,
) => emitRecords(context, settings, await shaped(context, settings, chats, options), walk);

/** A rating's or missed chat's item with its chat; a rating names its operator from the poll's one GET /operators. */
async function eventOutput(
	context: IPollFunctions,
	settings: TriggerSettings,
	events: FoundEvent[],
	walk: ChatWalk,
	options: WalkOptions = {},
) {
	const operatorNames =
		settings.emit === 'newRating' && events.length
			? await readOperatorNames(context, {
					...options,
					purpose:
						"New Rating names each rating's operator from Get many operators; the ratings come at the next poll that reads them.",
				})
			: undefined;
	const chats = await shaped(
		context,
		settings,
		events.map((event) => event.chat),
		{ ...options, operatorNames },
	);
	const detectedAt = new Date(Date.now()).toISOString();
	const records = events.map(({ item }, index) => ({
		...item,
		...(operatorNames && { operator_name: operatorNames.get(item.operator_id) ?? null }),
		detected_at: detectedAt,
		chat: chats[index],
	}));
	return emitRecords(context, settings, records, walk);
}

/** Include Cursor adds the cursor where `walk` stopped. */
function emitRecords(
	context: IPollFunctions,
	settings: TriggerSettings,
	records: IDataObject[],
	walk: ChatWalk,
) {
	const withCursor = records.map((record) =>
		settings.includeCursor ? { ...record, last_ts: String(walk.lastTs) } : record,
	);
	return withCursor.length ? [context.helpers.returnJsonArray(withCursor)] : null;
}

/**
 * n8n abandons a poll past its budget and says so only in its log: so no page starts after POLL_BUDGET_SHARE of it and
 * no request (retries included) runs past it, and a hanging server is a failed poll that says why. n8n 1.x has none.
 */
export function pollBudget(context: IPollFunctions): Pick<WalkOptions, 'deadlineMs' | 'endBy'> {
	const budgetMs = Math.max(0, context.getPollBudgetMs?.() ?? NaN);
	if (!Number.isFinite(budgetMs)) return {};
	const now = Date.now();
	return { deadlineMs: now + budgetMs * POLL_BUDGET_SHARE, endBy: now + budgetMs };
}

/** A later page failed: what came before is kept, and the next poll starts again at the failed page. */
function reportFailure(context: IPollFunctions, walk: ChatWalk, since: string | undefined): void {
	if (walk.failure === undefined) return;
	const reason = walk.failure instanceof Error ? walk.failure.message : String(walk.failure);
	context.logger.warn(
		`Svc Chat Trigger: a page of changes could not be read (${reason}); keeping the ${walk.pagesRead} page(s) read since ${since ?? 'the start'}, the next poll resumes at cursor ${String(walk.lastTs)}`,
	);
}

/**
 * The server and account a state belongs to (`boundTo`: SHA-256 of the normalized origin and lower-case e-mail, as
 * static data is readable with the workflow), and why a `stored` state cannot be used (`moved`): a cursor is a moment on
 * one server's clock. A state saved before the binding is adopted. The reason names the new server, never an e-mail.
 */
export function serverBinding(
	credentials: { host?: unknown; email?: unknown },
	stored: IDataObject = {},
): { boundTo: string; moved?: string } {
	const { origin, host, account, digest: boundTo } = accountOf(credentials);
	// States saved before the digest keep host and account in clear: compared as they are, then rewritten.
	const moved =
		typeof stored.boundTo === 'string'
			? stored.boundTo !== boundTo
			: (typeof stored.host === 'string' && stored.host !== host) ||
				(typeof stored.account === 'string' && stored.account !== account);
	if (!moved) return { boundTo };
	// Only an origin the transport accepts is shown: a host it refuses may hold what was typed in the wrong field.
	const server = origin ? ` (the server is now ${origin})` : '';
	return {
		boundTo,
		moved: `the credential now points at another server or account than the saved position was read from${server}`,
	};
}

/**
 * New Chats Only keeps capped seen ids, not a rising created_at threshold: chats come by their LATEST change, so an old
 * unseen one can follow newer ones. Dropping the least recently delivered id costs at worst a duplicate; 5,000 ids
 * keep the static data under 200 kB.
 */
export const SEEN_IDS_CAP = 5000;
/** New Rating and Missed Chat keep digests of 16 characters: 10,000 of them are under 200 kB too. */
export const SEEN_EVENTS_CAP = 10_000;

/** New Rating's or Missed Chat's memory: its starting point (none from the Beginning) and the digests it delivered. */
type EventMemory = { of: ChatEvent; from?: string; seen: string[] };

type TriggerState = {
	startedFrom: string; // see the settings' start: when it changes, the cursor starts again (rule 7)
	cursor?: string; // last_ts as the server sent it; absent only until "Now" has found the server's position
	catchingUp: boolean; // while "Now" reads up to the server's present, emitting nothing
	newChatsFrom?: string; // ISO time: chats created earlier are not new (New Chats Only)
	seenIds?: string[]; // New Chats Only: least recently delivered first, at most SEEN_IDS_CAP
	events?: EventMemory; // New Rating or Missed Chat: least recently delivered first, at most SEEN_EVENTS_CAP
	waiting?: WaitMemory; // Visitor Waiting: the waits seen, at most WAITS_CAP
	boundTo?: string; // absent in states saved before the binding was recorded
};

export const isTextList = (value: unknown): value is string[] =>
	Array.isArray(value) && value.every((text) => typeof text === 'string');

/** A copy of the stored state, or undefined when it is not valid; it keeps the binding as its digest only. */
function storedState(value: IDataObject, boundTo: string): TriggerState | undefined {
	const { startedFrom, cursor, catchingUp, newChatsFrom, seenIds, events, waiting } = value;
	const { host, account } = value;
	const isTime = (time: unknown) => time === undefined || toEpochMs(time) !== undefined;
	const valid =
		typeof startedFrom === 'string' &&
		typeof catchingUp === 'boolean' &&
		(cursor === undefined ? catchingUp : typeof cursor === 'string' && isCursor(cursor)) &&
		isTime(newChatsFrom) &&
		(seenIds === undefined || isTextList(seenIds)) &&
		(events === undefined ||
			(isPlainObject(events) &&
				isChatEvent(String(events.of)) &&
				isTime(events.from) &&
				isTextList(events.seen))) &&
		(waiting === undefined || isWaitMemory(waiting)) &&
		[value.boundTo, host, account].every((text) => text === undefined || typeof text === 'string');
	if (!valid) return undefined;
	return {
		boundTo,
		startedFrom,
		catchingUp,
		cursor,
		newChatsFrom,
		seenIds,
		events,
		waiting,
	} as TriggerState;
}

/** The key of the operator events' state (operators.ts), which the chat state leaves alone. */
export const OPERATOR_STATE_KEY = 'operatorEvents';

/** Writes the state back, touching only what changed, so n8n saves static data only when it has to. */
function saveState(staticData: IDataObject, next: IDataObject): void {
	for (const key of Object.keys(staticData))
		if (next[key] === undefined && key !== OPERATOR_STATE_KEY) delete staticData[key];
	for (const [key, value] of Object.entries(next))
		if (value !== undefined && JSON.stringify(staticData[key]) !== JSON.stringify(value))
			staticData[key] = value;
}

/** Moves `keys` to the most recent end of the seen list and drops the least recently delivered beyond the cap. */
export function rememberSeen(seen: string[] = [], keys: string[], cap = SEEN_IDS_CAP): string[] {
	const delivered = new Set(keys);
	return [...seen.filter((key) => !delivered.has(key)), ...delivered].slice(-cap);
}

/** Of `found`, those unseen and not older than `from`, and the seen list, which all from `from` join, wanted or not. */
export function takeUnseen<Found extends { key: string; at: unknown; wanted?: boolean }>(
	found: Found[],
	from: string | undefined,
	seenBefore: string[] | undefined,
	cap?: number,
) {
	const fromMs = toEpochMs(from);
	const seen = new Set(seenBefore);
	const fresh: Found[] = [];
	const delivered: string[] = [];
	for (const one of found) {
		const atMs = toEpochMs(one.at);
		if (fromMs !== undefined && atMs !== undefined && atMs < fromMs) continue;
		if (!seen.has(one.key) && one.wanted !== false) fresh.push(one);
		delivered.push(one.key);
	}
	return { fresh, seen: rememberSeen(seenBefore, delivered, cap) };
}

/** The chats New Chats Only emits (created from `newChatsFrom` on, not seen before) and the seen list after them. */
export function takeNewChats(state: Pick<TriggerState, 'newChatsFrom' | 'seenIds'>, chats: Chat[]) {
	const found = chats.map((chat) => ({ key: String(chat.id), at: chat.created_at, chat }));
	const { fresh, seen } = takeUnseen(found, state.newChatsFrom, state.seenIds);
	return { chats: fresh.map(({ chat }) => chat), seenIds: seen };
}
