// Visitor Waiting: what a wait is, the waits a trigger remembers between polls, the server's present, and which are due.
import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import { withFullChats, type ChatWalk, type WalkOptions } from '../transport/chats';
import { finalState, visitorContact } from '../helpers/chat';
import { toEpochMs } from '../helpers/time';
import { isPlainObject } from '../helpers/values';
import type { Chat } from '../types';
import { ANSWERING_KINDS, type FoundEvent } from './events';

/** A remembered wait: the chat's id, when the wait began (ms, server clock), and 1 once alerted. No visitor text. */
export type Wait = [id: string, startMs: number, alerted: 0 | 1];
/** The waits and the starting point: waits that began before it are not watched. */
export type WaitMemory = { from?: string; waits: Wait[] };
/** At most this many waits are remembered (about 30 bytes each in static data). */
const WAITS_CAP = 10_000;

const VISITOR_KINDS = new Set<unknown>(['visitor', 'file_visitor']);

/**
 * When the chat's visitor began to wait (ms), or undefined: the first visitor message after the latest answer, in
 * time order (list order among equal times), while the chat is not closed. A message without a readable time is left out.
 */
function waitStartMs(chat: Chat): number | undefined {
	if (finalState(chat) === 'closed') return undefined;
	const messages = (Array.isArray(chat.messages) ? chat.messages : []).filter(isPlainObject);
	const timed = messages.flatMap(({ kind, created_at }) => {
		const atMs = toEpochMs(created_at);
		return atMs === undefined ? [] : [{ kind, atMs }];
	});
	let startMs: number | undefined;
	// Array.prototype.sort is stable: equal times keep the list's order.
	for (const { kind, atMs } of timed.sort((a, b) => a.atMs - b.atMs)) {
		if (ANSWERING_KINDS.has(kind)) startMs = undefined;
		else if (VISITOR_KINDS.has(kind)) startMs ??= atMs;
	}
	return startMs;
}

const isWait = (wait: unknown) =>
	Array.isArray(wait) && typeof wait[0] === 'string' && wait[1] >= 0 && [0, 1].includes(wait[2]);
export const isWaitMemory = (value: unknown): value is WaitMemory =>
	isPlainObject(value) &&
	(value.from === undefined || toEpochMs(value.from) !== undefined) &&
	Array.isArray(value.waits) &&
	value.waits.every(isWait);

/** The waits after `chats` were seen: a chat's wait kept (alerted or not) while it goes on, a new one not alerted. */
function track(waits: Wait[], chats: Chat[], fromMs: number): Wait[] {
	const byId = new Map(waits.map((wait) => [wait[0], wait]));
	for (const chat of chats) {
		const [id, startMs] = [String(chat.id), waitStartMs(chat)];
		const known = byId.get(id);
		byId.delete(id);
		if (startMs !== undefined && startMs >= fromMs)
			byId.set(id, known?.[1] === startMs ? known : [id, startMs, 0]);
	}
	return [...byId.values()];
}

/**
 * The server's present: the later of its last reply's Date header and its last cursor (microseconds of its clock);
 * both are the server's and at or before its present, so an alert can come late but never early. Never n8n's clock.
 */
function serverPresentMs(walk: ChatWalk): number | undefined {
	const present = Math.max(walk.serverDateMs ?? -1, Number(walk.lastTs) / 1000 || -1);
	return present > 0 ? present : undefined;
}

/** A wait's item; the chat follows in the chosen Chat Output. */
function waitEvent(chat: Chat, [id, startMs]: Wait, presentMs?: number): FoundEvent {
	const history = Array.isArray(chat.state_history) ? chat.state_history : [];
	const latest: IDataObject = history.filter(isPlainObject).at(-1) ?? chat;
	const { name, email, phone } = visitorContact(chat);
	const item = {
		chat_id: chat.id,
		wait_began_at: new Date(startMs).toISOString(),
		waited_seconds: presentMs === undefined ? null : Math.floor((presentMs - startMs) / 1000),
		department_id: latest.department_id ?? null,
		operator_id: latest.operator_id ?? null,
		visitor_name: name,
		visitor_email: email,
		visitor_phone: phone,
	};
	return { key: `${id}@${startMs}`, at: item.wait_began_at, wanted: true, chat, item };
}

/**
 * One poll: the waits seen in `walk` joined to those remembered; those past `waitMs` by the server's present and not
 * alerted yet are due, longest first. A due chat this walk did not bring is read again (GET /chat): answered or closed meanwhile, it
 * is dropped, and so is one the server no longer has. `lost`: waits not yet alerted beyond WAITS_CAP, dropped.
 */
export async function takeDueWaits(
	context: IPollFunctions,
	memory: WaitMemory,
	walk: ChatWalk,
	waitMs: number,
	options: WalkOptions = {},
) {
	const fromMs = toEpochMs(memory.from) ?? -1;
	let waits = track(memory.waits, walk.chats, fromMs);
	const presentMs = serverPresentMs(walk);
	const isDue = ([, startMs, alerted]: Wait) =>
		!alerted && presentMs !== undefined && presentMs - startMs > waitMs;
	const chats = new Map(walk.chats.map((chat) => [String(chat.id), chat]));
	const unseen = waits.filter((wait) => isDue(wait) && !chats.has(wait[0]));
	if (unseen.length) {
		// One the server no longer has stays a bare {id}, which has no wait.
		const bare = unseen.map(([id]) => ({ id }) as Chat);
		const { credentials, endBy } = options;
		const read = await withFullChats(context, bare, { credentials, endBy, dropGone: true });
		for (const chat of read) chats.set(String(chat.id), chat);
		waits = track(waits, read, fromMs);
	}
	const due = waits.filter(isDue).sort((a, b) => a[1] - b[1]);
	waits = waits.map((wait) => (isDue(wait) ? [wait[0], wait[1], 1] : wait));
	// At the bound, alerted waits go first (least recently seen first): one seen again is alerted twice, none is lost.
	// Then the latest begun: lost unless their chat changes again.
	const excess = Math.max(0, waits.length - WAITS_CAP);
	const alerted = waits.filter((wait) => wait[2]).slice(0, excess);
	const latest = waits.filter((wait) => !wait[2]).sort((a, b) => b[1] - a[1]);
	const dropped = new Set([...alerted, ...latest.slice(0, excess - alerted.length)]);
	const warnings = [
		walk.serverDateMs === undefined && waits.length
			? "the server's reply had no readable Date header, so its present is taken as the time of its latest change and an alert may come late (never n8n's clock)"
			: '',
		dropped.size > alerted.length
			? `more than ${WAITS_CAP} visitors are waiting; the ${dropped.size - alerted.length} latest are not watched until their chat changes again`
			: '',
	];
	for (const warning of warnings.filter(Boolean))
		context.logger.warn(`Svc Chat Trigger: ${warning}`);
	const dueEvents = due.map((wait) => waitEvent(chats.get(wait[0]) as Chat, wait, presentMs));
	return { due: dueEvents, memory: { ...memory, waits: waits.filter((one) => !dropped.has(one)) } };
}
