// Spec 4.4–4.9 and 7.4: the stored-data queries (operators, departments, chats, chat, tariffs, statistics).
import { DAY_MS, DEPARTMENTS, TARIFFS } from './data';
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

/**
 * 4.9: figures for one UTC day. `contacts` counts the chats created that day; the rest is seeded from (seed, day),
 * consistent with it. Days after today (by the sandbox clock) have no activity yet, so every figure is 0.
 */
function usageStats(state: SandboxState, dayMs: number) {
	const contacts = state.chatsCreatedBetween(dayMs, dayMs + DAY_MS);
	const random = Random.of(state.seed, dayMs / DAY_MS, 21);
	const offlines = Math.floor(contacts * random.next() * 0.15);
	const missed = Math.floor((contacts - offlines) * random.next() * 0.1);
	return {
		contacts,
		missed,
		chats: contacts - offlines - missed,
		offlines,
		avg_waiting_time: contacts === 0 ? 0 : random.int(5, 120),
	};
}

/** 4.9 mode operators: one row per operator for the day (`chating_time` is the API's own spelling). */
function operatorStats(state: SandboxState, dayMs: number, future: boolean) {
	return state.operators.map((operator) => {
		const random = Random.of(state.seed, dayMs / DAY_MS, operator.id, 22);
		const works = !future && random.chance(0.8);
		const online_time = works ? random.int(3600, 8 * 3600) : 0;
		const chating_time = works ? Math.floor(online_time * (0.3 + random.next() * 0.5)) : 0;
		const chats = works ? random.int(1, 40) : 0;
		return {
			operator_id: operator.id,
			online_time,
			chating_time,
			avg_chating_time: chats ? Math.floor(chating_time / chats) : 0,
			busy_messages: works ? random.int(0, 6) : 0,
			chats,
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
			const future = dayMs > state.now().getTime();
			return mode === 'usage' ? usageStats(state, dayMs) : operatorStats(state, dayMs, future);
		}
		default:
			throw new Error(`Not a stored-data path: ${path}`);
	}
}
