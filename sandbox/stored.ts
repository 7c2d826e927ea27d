// Spec 4.4–4.9 and 7.4: the stored-data queries (operators, departments, chats, chat, tariffs, statistics).
import type { Chat } from '../nodes/SvcChat/types';
import { ANSWERING_KINDS, DAY_MS, DEPARTMENTS, TARIFFS } from './data';
import { Random } from './random';
import type { SandboxState } from './state';

export const STORED_PATHS = new Set([
	'operators',
	'departments',
	'chats',
	'chat',
	'partner/tariffs',
	'stats',
]);

const fail = (error: string) => ({ error });

const DATE_SHAPE = /^\d{4}-\d{2}-\d{2}$/;

/** yyyy-mm-dd of a real calendar day, as its UTC midnight; undefined otherwise. */
function parseDay(text: string): number | undefined {
	if (!DATE_SHAPE.test(text)) return undefined;
	const ms = Date.parse(`${text}T00:00:00Z`);
	return Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== text ? undefined : ms;
}

/** Spec 4.6 cursor: digits only (microseconds). */
function parseCursor(text: string | null): number | undefined {
	return text !== null && /^\d{1,20}$/.test(text) ? Number(text) : undefined;
}

/** When an operator first answered the chat, and who: undefined for a chat nobody answered. */
function firstAnswer({ messages = [] }: Chat) {
	const answer = messages.find(({ kind }) => ANSWERING_KINDS.has(kind));
	return answer && { operatorId: answer.operator_id, atMs: Date.parse(answer.created_at) };
}

const seconds = (ms: number) => Math.max(0, Math.floor(ms / 1000));

/**
 * 4.9 mode usage: one UTC day's figures, from the chats created that day: `contacts` all of them, `chats` those an
 * operator answered (the sum of the operators' rows), `missed` the others; the sandbox has no offline form, so
 * `offlines` is 0. `avg_waiting_time`: seconds from a chat's creation to its first answer, averaged over the answered.
 */
function usageStats(state: SandboxState, dayMs: number) {
	const chats = state.chatsCreatedBetween(dayMs, dayMs + DAY_MS);
	const waits = chats.flatMap((chat) => {
		const answer = firstAnswer(chat);
		return answer ? [answer.atMs - Date.parse(chat.created_at)] : [];
	});
	const waited = waits.reduce((sum, ms) => sum + ms, 0);
	return {
		contacts: chats.length,
		missed: chats.length - waits.length,
		chats: waits.length,
		offlines: 0,
		avg_waiting_time: waits.length ? seconds(waited / waits.length) : 0,
	};
}

/**
 * 4.9 mode operators: one row per operator (`chating_time` is the API's own spelling), from the same chats as usage:
 * `chats` those the operator answered first, `chating_time` the seconds from that answer to the chat's last message
 * or state, `busy_messages` the busy notices naming the operator; `online_time` adds seeded idle time to the chatting.
 */
function operatorStats(state: SandboxState, dayMs: number) {
	const chats = state.chatsCreatedBetween(dayMs, dayMs + DAY_MS);
	const messages = chats.flatMap((chat) => chat.messages ?? []);
	return state.operators.map((operator) => {
		const handled = chats.filter((chat) => firstAnswer(chat)?.operatorId === operator.id);
		const chating_time = handled.reduce((sum, chat) => {
			const times = [
				...(chat.messages ?? []).map((message) => Date.parse(message.created_at)),
				...(chat.state_history ?? []).map((entry) => Date.parse(entry.at)),
			];
			return sum + seconds(Math.max(...times) - firstAnswer(chat)!.atMs);
		}, 0);
		const random = Random.of(state.seed, dayMs / DAY_MS, operator.id, 22);
		const idle = chats.length && random.chance(0.8) ? random.int(600, 4 * 3600) : 0;
		const busy = messages.filter(
			(one) => one.kind === 'operator_busy' && one.operator_id === operator.id,
		);
		return {
			operator_id: operator.id,
			online_time: chating_time + idle,
			chating_time,
			avg_chating_time: handled.length ? Math.floor(chating_time / handled.length) : 0,
			busy_messages: busy.length,
			chats: handled.length,
		};
	});
}

/** last_ts of an empty page under the emptyPageLastTs setting; undefined leaves the member out. */
function emptyPageCursor(
	state: SandboxState,
	since: number,
	latest: number,
): number | null | undefined {
	switch (state.settings.emptyPageLastTs) {
		case 'zero':
			return 0;
		case 'null':
			return null;
		case 'missing':
			return undefined;
		case 'since':
			return since;
		default:
			return latest;
	}
}

/**
 * Answers one stored-data GET after authorization. Not shown in the spec, our choices: an unknown chat id is
 * HTTP 200 `{"error":"chat-not-found"}`; a malformed `since`, or a `date` that is not a real yyyy-mm-dd day, is
 * `argument-missing` (the argument given cannot be used). Checks run in the order: arguments present, mode known,
 * values usable.
 */
export function storedData(state: SandboxState, path: string, query: URLSearchParams): unknown {
	switch (path) {
		case 'operators':
			return state.publicOperators();
		case 'departments':
			return DEPARTMENTS.map((department) => ({ ...department }));
		case 'partner/tariffs':
			return { tariffs: structuredClone(TARIFFS) };
		case 'chat': {
			const id = query.get('id');
			if (id === null || id === '') return fail('argument-missing');
			const chat = state.getChat(id);
			return chat ? { chat } : fail(state.settings.unknownChatError);
		}
		case 'chats': {
			const since = parseCursor(query.get('since'));
			if (since === undefined) return fail('argument-missing');
			const page = state.chatsSince(since);
			const reply: Record<string, unknown> = { chats: page.chats, more_chats_available: page.more };
			// The spec is silent on last_ts of an empty page; emptyPageLastTs lets a test try each reading of it.
			const lastTs =
				page.chats.length === 0 ? emptyPageCursor(state, since, page.lastTs) : page.lastTs;
			if (lastTs === null) reply.last_ts = null;
			else if (lastTs !== undefined)
				reply.last_ts = state.settings.lastTsAsString ? String(lastTs) : lastTs;
			return reply;
		}
		case 'stats': {
			const date = query.get('date');
			const mode = query.get('mode');
			if (!date || !mode) return fail('argument-missing');
			if (mode !== 'usage' && mode !== 'operators') return fail('unknown-mode');
			const dayMs = parseDay(date);
			if (dayMs === undefined) return fail('argument-missing');
			return mode === 'usage' ? usageStats(state, dayMs) : operatorStats(state, dayMs);
		}
		default:
			throw new Error(`Not a stored-data path: ${path}`);
	}
}
