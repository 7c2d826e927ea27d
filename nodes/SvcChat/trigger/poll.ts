// One poll of the Svc Chat Trigger: read changes since the stored cursor, emit the chosen chats, move the cursor safely.
import {
	NodeOperationError,
	type IDataObject,
	type INodeExecutionData,
	type IPollFunctions,
} from 'n8n-workflow';

import { walkChats, type ChatWalk, type WalkOptions } from '../transport/chats';
import { readCredentials } from '../transport/request';
import { pollParameters } from '../parameters';
import { finalState, formatChats } from '../helpers/chatOutput';
import { toEpochMs } from '../helpers/time';
import type { Chat } from '../types';
import { readTriggerSettings, triggerProperties, type TriggerSettings } from './description';
import { pollOperators } from './operators';
import { loadState, rememberSeen, saveState, takeNewChats, type TriggerState } from './state';

/** "Fetch Test Event" shows at most this many chats, read from at most this many pages. */
const TEST_EVENT_CHATS = 5;
const TEST_EVENT_PAGES = 3;
/** Share of n8n's poll budget after which no further page is requested, leaving room for a slow last page. */
export const POLL_BUDGET_SHARE = 0.5;

type PollResult = INodeExecutionData[][] | null;

/**
 * One poll; the operator events poll in trigger/operators.ts. For chats, the state is loaded once, the steps below
 * return what they change, and the next state is built and saved here only, after the pages were read: an error never
 * moves the stored cursor.
 */
export async function pollTrigger(this: IPollFunctions): Promise<PollResult> {
	const event = pollParameters(this, triggerProperties).choice<string>('emit');
	if (event === 'operatorAvailabilityChanged' || event === 'operatorStatusChanged')
		return await pollOperators(this, event, pollBudget(this).endBy);
	const settings = readTriggerSettings(this);
	// Read once per poll: n8n decrypts the credentials on every read.
	const credentials = await readCredentials(this);
	if (this.getMode() === 'manual') return await fetchTestEvent(this, settings, { credentials });

	const staticData = this.getWorkflowStaticData('node');
	const { state, restart } = loadState(staticData, settings, credentials);
	// So a user who points a credential from a test server at production sees what happened.
	if (restart)
		this.logger.warn(
			`Svc Chat Trigger: ${restart}; starting again from ${describeStart(settings)}`,
		);
	const walkOptions: WalkOptions = {
		credentials,
		maxChatsRead: settings.maxChatsPerPoll,
		...pollBudget(this),
		keepOnFailure: true,
	};

	if (state.catchingUp) {
		const caughtUp = await catchUpToNow(this, state, settings, walkOptions);
		saveState(staticData, { ...state, ...caughtUp });
		return null;
	}

	const walk = await walkChats(this, state.cursor ?? '0', walkOptions);
	reportFailure(this, walk, state.cursor);
	const cursor = String(walk.lastTs);
	// The chats Emit asks for, in order of their latest delivery.
	let { chats, seenIds } = { chats: walk.chats, seenIds: state.seenIds };
	if (settings.emit === 'finishedChats') chats = chats.filter(isFinished);
	if (settings.emit === 'newChats') ({ chats, seenIds } = takeNewChats(state, chats));
	saveState(staticData, { ...state, seenIds, cursor });
	return toOutput(this, chats, settings, cursor);
}

function describeStart(settings: TriggerSettings): string {
	if (settings.startFrom === 'now') return "Now (the server's present; nothing older is emitted)";
	if (settings.startFrom === 'beginning') return 'the Beginning of History';
	return `the Start Date ${settings.startCreatedAt ?? ''}`.trim();
}

/**
 * Start From "Now": read up to the server's present and emit nothing, so the cursor is one the server issued,
 * whatever n8n's clock says. A long backlog is read over several polls, bounded like any poll.
 * Returns the state fields it changes (none when no page came back).
 */
async function catchUpToNow(
	context: IPollFunctions,
	state: TriggerState,
	settings: TriggerSettings,
	walkOptions: WalkOptions,
): Promise<Partial<TriggerState>> {
	// -1: no creation time known yet.
	let newestCreatedMs = toEpochMs(state.newChatsFrom) ?? -1;
	let seenIds = state.seenIds;
	const walk = await walkChats(context, state.cursor ?? 'recent', {
		...walkOptions,
		// Catching up emits nothing and needs only ids and creation times, which minimal list entries have: no GET /chat.
		fullChats: false,
		onPage: (page) => {
			const createdMs = page.chats.map((chat) => toEpochMs(chat.created_at) ?? -1);
			newestCreatedMs = Math.max(newestCreatedMs, ...createdMs);
			// Old chats that change later are not new; the seen list covers the ones created in the same instant as the newest.
			const ids = page.chats.map((chat) => String(chat.id));
			if (settings.emit === 'newChats') seenIds = rememberSeen(seenIds, ids);
		},
	});
	reportFailure(context, walk, state.cursor);
	return {
		...(settings.emit === 'newChats' ? { seenIds } : {}),
		cursor: String(walk.lastTs),
		catchingUp: !walk.caughtUp,
		...(newestCreatedMs >= 0 ? { newChatsFrom: new Date(newestCreatedMs).toISOString() } : {}),
	};
}

/**
 * "Fetch Test Event": up to 5 recent chats so the user can map fields. It never reads or writes the stored cursor.
 * The API has no "recent" query, so it reads at most 3 pages from the first look-back step that has chats.
 * If none of them match Emit (say, none finished yet), it shows the recent chats anyway: a sample to map fields from
 * is more useful than "no data". New Chats Only cannot be judged without the stored state, so every chat counts.
 */
async function fetchTestEvent(
	context: IPollFunctions,
	settings: TriggerSettings,
	walkOptions: WalkOptions,
): Promise<PollResult> {
	const walk = await walkChats(context, 'recent', {
		...walkOptions,
		maxPages: TEST_EVENT_PAGES,
		keepOnFailure: true,
	});
	const recent = walk.chats;
	const matching = settings.emit === 'finishedChats' ? recent.filter(isFinished) : recent;
	const sample = (matching.length ? matching : recent).slice(-TEST_EVENT_CHATS);
	if (sample.length === 0) {
		throw new NodeOperationError(context.getNode(), 'No chats found on the server', {
			description:
				'The Svc account has no chats yet, so there is no sample to show. Start a chat in the widget and fetch again; the active trigger does not need one.',
		});
	}
	return toOutput(context, sample, settings, String(walk.lastTs));
}

const isFinished = (chat: Chat) => finalState(chat) === 'closed';

function toOutput(
	context: IPollFunctions,
	chats: Chat[],
	settings: TriggerSettings,
	cursor: string,
): PollResult {
	const records: IDataObject[] = formatChats(chats, settings.output).map((record) =>
		settings.includeCursor ? { ...record, last_ts: cursor } : record,
	);
	return records.length ? [context.helpers.returnJsonArray(records)] : null;
}

/**
 * n8n abandons a poll that runs past its budget, and says so only in its log: no page is requested once
 * POLL_BUDGET_SHARE of it is spent, and no request (retries included) runs past it, so a hanging server is a failed
 * poll that says why.
 */
function pollBudget(context: IPollFunctions): Pick<WalkOptions, 'deadlineMs' | 'endBy'> {
	const budgetMs =
		typeof context.getPollBudgetMs === 'function' ? context.getPollBudgetMs() : undefined;
	if (typeof budgetMs !== 'number' || !Number.isFinite(budgetMs)) return {};
	const now = Date.now();
	const spendableMs = Math.max(0, budgetMs);
	return { deadlineMs: now + spendableMs * POLL_BUDGET_SHARE, endBy: now + spendableMs };
}

/** A later page failed: what came before is kept, and the next poll starts again at the failed page. */
function reportFailure(context: IPollFunctions, walk: ChatWalk, since: string | undefined): void {
	if (walk.failure === undefined) return;
	const reason = walk.failure instanceof Error ? walk.failure.message : String(walk.failure);
	context.logger.warn(
		`Svc Chat Trigger: a page of changes could not be read (${reason}); keeping the ${walk.pagesRead} page(s) read since ${since ?? 'the start'}, the next poll resumes at cursor ${String(walk.lastTs)}`,
	);
}
