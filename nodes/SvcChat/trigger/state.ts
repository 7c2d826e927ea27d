// The trigger's memory in the workflow's static data: the cursor, where it started from, and the ids New Chats Only has seen.
import type { IDataObject } from 'n8n-workflow';

// The stored cursor must be one the transport accepts as last_ts: one definition of the cursor's format.
import { isCursor } from '../transport/endpoints';
import { toEpochMs } from '../helpers/time';
import type { Chat } from '../types';
import { bindingDigest, type ServerBinding } from './binding';
import type { TriggerSettings } from './settings';

/**
 * New Chats Only keeps a capped list of the ids it has seen, most recently delivered last, and also leaves out chats
 * created before the starting point (`newChatsFrom`). Why both, and why not a created_at threshold that rises as ids
 * are dropped: the API delivers chats in order of their LATEST change, not of creation, so a never-seen old chat can
 * arrive after newer ones, and a rising threshold would drop it for good. Dropping the least recently delivered id
 * can only cost a duplicate (a chat quiet for 5,000 other deliveries that then changes is emitted again), never a
 * loss, and 5,000 ids keep the static data n8n saves after each poll small (well under 200 kB).
 */
export const SEEN_IDS_CAP = 5000;

export interface TriggerState {
	/** The Start From setting (and date) this cursor was started from. */
	startedFrom: string;
	/** `last_ts` exactly as the server sent it, as a string; absent only before "Now" has found the server's position. */
	cursor?: string;
	/** True while "Now" reads up to the server's present, emitting nothing. */
	catchingUp: boolean;
	/** ISO time: chats created earlier are not new (New Chats Only). */
	newChatsFrom?: string;
	/** New Chats Only: ids seen, least recently delivered first, at most SEEN_IDS_CAP. */
	seenIds?: string[];
	/** bindingDigest of the server and account this cursor belongs to (absent in states saved before it was recorded). */
	boundTo?: string;
}

function freshState(settings: TriggerSettings): TriggerState {
	if (settings.startFrom === 'now') return { startedFrom: settings.startKey, catchingUp: true };
	return {
		startedFrom: settings.startKey,
		cursor: settings.startCursor,
		catchingUp: false,
		...(settings.startCreatedAt ? { newChatsFrom: settings.startCreatedAt } : {}),
	};
}

function isStoredState(value: IDataObject): boolean {
	return (
		typeof value.startedFrom === 'string' &&
		typeof value.catchingUp === 'boolean' &&
		(value.cursor === undefined
			? value.catchingUp === true
			: typeof value.cursor === 'string' && isCursor(value.cursor)) &&
		(value.newChatsFrom === undefined || toEpochMs(value.newChatsFrom) !== undefined) &&
		(value.seenIds === undefined ||
			(Array.isArray(value.seenIds) && value.seenIds.every((id) => typeof id === 'string'))) &&
		(value.boundTo === undefined || typeof value.boundTo === 'string') &&
		// States saved before the digest hold host and e-mail in clear: compared once, never written again.
		(value.host === undefined || typeof value.host === 'string') &&
		(value.account === undefined || typeof value.account === 'string')
	);
}

/**
 * A working copy of the stored state, or a fresh one when nothing valid is stored, Start From changed (rule 7) or the
 * binding changed. The copy is written back only when the poll succeeds, so an error never moves the stored cursor.
 * The copy carries the binding as its digest only, so saving it drops a stored host and e-mail.
 */
export function loadState(
	staticData: IDataObject,
	settings: TriggerSettings,
	binding: ServerBinding,
	bindingChanged: boolean,
): TriggerState {
	const boundTo = bindingDigest(binding);
	if (staticData.startedFrom !== settings.startKey || !isStoredState(staticData) || bindingChanged)
		return { ...freshState(settings), boundTo };
	const { startedFrom, catchingUp, cursor, newChatsFrom, seenIds } =
		staticData as unknown as TriggerState;
	return { boundTo, startedFrom, catchingUp, cursor, newChatsFrom, seenIds: seenIds?.slice() };
}

/** Writes the state back, touching only what changed, so n8n saves static data only when it has to. */
export function saveState(staticData: IDataObject, state: TriggerState): void {
	const next = state as unknown as IDataObject;
	for (const key of Object.keys(staticData)) {
		if (next[key] === undefined) delete staticData[key];
	}
	for (const [key, value] of Object.entries(next)) {
		if (value !== undefined && JSON.stringify(staticData[key]) !== JSON.stringify(value))
			staticData[key] = value;
	}
}

/** Moves `ids` to the most recent end of the seen list and drops the least recently delivered beyond the cap. */
export function rememberSeen(seenIds: string[] = [], ids: string[]): string[] {
	const delivered = new Set(ids);
	return [...seenIds.filter((id) => !delivered.has(id)), ...delivered].slice(-SEEN_IDS_CAP);
}

/**
 * The chats New Chats Only emits (created at or after the starting point, and not seen before), and its seen list
 * after them; the state itself is left as it is.
 */
export function takeNewChats(
	state: Pick<TriggerState, 'newChatsFrom' | 'seenIds'>,
	chats: Chat[],
): { chats: Chat[]; seenIds: string[] } {
	const fromMs = toEpochMs(state.newChatsFrom);
	const seen = new Set(state.seenIds ?? []);
	const unseen: Chat[] = [];
	const delivered: string[] = [];
	for (const chat of chats) {
		const createdMs = toEpochMs(chat.created_at);
		// An unreadable created_at is let through: a duplicate is better than a lost chat.
		if (fromMs !== undefined && createdMs !== undefined && createdMs < fromMs) continue;
		const id = String(chat.id);
		if (!seen.has(id)) unseen.push(chat);
		delivered.push(id);
	}
	return { chats: unseen, seenIds: rememberSeen(state.seenIds, delivered) };
}
