// Visitor Waiting: what a wait is, the waits a trigger remembers between polls, the server's present, and which are due.
import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import { withFullChats, type ChatWalk, type WalkOptions } from '../transport/chats';
import { ANSWERING_KINDS, VISITOR_KINDS } from '../output/chatOutput';
import { finalState, visitorContact } from '../helpers/chat';
import { toEpochMs } from '../helpers/time';
import { isPlainObject } from '../helpers/values';
import type { Chat } from '../types';
import type { FoundEvent } from './events';

/** A remembered wait: chat id, start (ms, server clock), 1 once alerted; no visitor text. At most WAITS_CAP. */
type Wait = [id: string, startMs: number, alerted: 0 | 1];
/** `from`: waits that began before the trigger's starting point are not watched. */
export type WaitMemory = { from?: string; waits: Wait[] };
const WAITS_CAP = 10_000;

/** The start (ms) of the first visitor message after the latest answer, by time (then list order), in an open chat. */
function waitStartMs(chat: Chat): number | undefined {
	if (finalState(chat) === 'closed') return undefined;
	const messages = (Array.isArray(chat.messages) ? chat.messages : []).filter(isPlainObject);
	const timed = messages.map(({ kind, created_at }) => ({ kind, atMs: toEpochMs(created_at) }));
	let startMs: number | undefined;
	// A stable sort: equal times keep the list's order; a message without a readable time is left out.
	for (const { kind, atMs = NaN } of timed.sort((a, b) => (a.atMs ?? 0) - (b.atMs ?? 0)))
		if (ANSWERING_KINDS.has(kind) && atMs >= 0) startMs = undefined;
		else if (VISITOR_KINDS.has(kind) && atMs >= 0) startMs ??= atMs;
	return startMs;
}

export const isWaitMemory = (value: unknown): value is WaitMemory =>
	isPlainObject(value) &&
	(value.from === undefined || toEpochMs(value.from) !== undefined) &&
	Array.isArray(value.waits) &&
	value.waits.every(
		(wait) => typeof wait?.[0] === 'string' && wait[1] >= 0 && [0, 1].includes(wait[2]),
	);

/** The waits after `chats` were seen: a wait kept (alerted or not) while it goes on, a new one not alerted. */
function track(waits: Wait[], chats: Chat[], fromMs: number): Wait[] {
	const byId = new Map(waits.map((wait) => [wait[0], wait]));
	for (const chat of chats) {
		const [id, startMs, known] = [String(chat.id), waitStartMs(chat), byId.get(String(chat.id))];
		byId.delete(id);
		if (startMs !== undefined && startMs >= fromMs)
			byId.set(id, known?.[1] === startMs ? known : [id, startMs, 0]);
	}
	return [...byId.values()];
}

/** A wait's item, the chat following in Chat Output: operator_id is the chat's own (never its state's), department_id its latest state's. */
function waitEvent(chat: Chat, [id, startMs]: Wait, presentMs: number): FoundEvent {
	const history = Array.isArray(chat.state_history) ? chat.state_history : [];
	const latest: IDataObject = history.filter(isPlainObject).at(-1) ?? {};
	const item = {
		chat_id: chat.id,
		wait_began_at: new Date(startMs).toISOString(),
		waited_seconds: Math.floor((presentMs - startMs) / 1000),
		department_id: latest.department_id ?? null,
		operator_id: chat.operator_id ?? null,
		...visitorContact(chat),
	};
	return { key: `${id}@${startMs}`, at: item.wait_began_at, wanted: true, chat, item };
}

/** One poll's due waits (past `waitMs` by the server's present, longest first); a due chat not in `walk` is re-read. */
export async function takeDueWaits(
	context: IPollFunctions,
	memory: WaitMemory,
	walk: ChatWalk,
	waitMs: number,
	{ credentials, endBy }: WalkOptions = {},
) {
	const fromMs = toEpochMs(memory.from) ?? -1;
	let waits = track(memory.waits, walk.chats, fromMs);
	// The later of the last reply's Date and the last cursor (µs): both the server's, neither after its present.
	const presentMs = Math.max(walk.serverDateMs ?? -1, Number(walk.lastTs) / 1000 || -1);
	const isDue = ([, startMs, alerted]: Wait) => !alerted && presentMs - startMs > waitMs;
	const chats = new Map(walk.chats.map((chat) => [String(chat.id), chat]));
	// One the server no longer has stays a bare {id}, which has no wait.
	const bare = waits
		.filter((wait) => isDue(wait) && !chats.has(wait[0]))
		.map(([id]) => ({ id }) as Chat);
	const read = await withFullChats(context, bare, { credentials, endBy, dropGone: true });
	for (const chat of read) chats.set(String(chat.id), chat);
	waits = track(waits, read, fromMs);
	const due = waits.filter(isDue).sort((a, b) => a[1] - b[1]);
	waits = waits.map((wait) => (isDue(wait) ? [wait[0], wait[1], 1] : wait));
	// At the bound, alerted waits go first (at worst alerted twice), then the latest begun (lost unless they change).
	const excess = Math.max(0, waits.length - WAITS_CAP);
	const alerted = waits.filter((wait) => wait[2]).slice(0, excess);
	const latest = waits.filter((wait) => !wait[2]).sort((a, b) => b[1] - a[1]);
	const dropped = new Set([...alerted, ...latest.slice(0, excess - alerted.length)]);
	const lost = dropped.size - alerted.length;
	if (walk.serverDateMs === undefined && waits.length)
		context.logger.warn(
			"Svc Chat Trigger: the server's reply had no readable Date header, so its present is its latest change: an alert may come late (n8n's clock is never used)",
		);
	if (lost)
		context.logger.warn(
			`Svc Chat Trigger: more than ${WAITS_CAP} visitors are waiting; the ${lost} latest are not watched until their chat changes again`,
		);
	const dueEvents = due.map((wait) => waitEvent(chats.get(wait[0]) as Chat, wait, presentMs));
	return { due: dueEvents, memory: { ...memory, waits: waits.filter((one) => !dropped.has(one)) } };
}
