// The endpoint table: every endpoint of the Svc API v2 (spec 4) with its method, reply type and shape, retry rule and errors.
import type { IDataObject, IHttpRequestMethods } from 'n8n-workflow';

import type {
	Chat,
	Cursor,
	ChatsReplyAsSent,
	Department,
	Operator,
	OperatorStatsRow,
	RealTimeReply,
	Tariff,
	UsageStats,
} from '../types';
import { isPlainObject } from '../helpers/values';
import { isDocumentedCode, svcCodeNote, type SvcErrorText } from './errors';

/** An integer-valued microsecond cursor, as a number or a string of digits (spec 4.6). */
export const isCursor = (value: unknown): value is Cursor =>
	(typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) ||
	(typeof value === 'string' && /^\d{1,20}$/.test(value));

/** An endpoint, filed in ENDPOINTS under its path below {base_url}/api/v2/. */
export interface Endpoint<Reply> {
	method: IHttpRequestMethods;
	/** The reply's documented shape: a check of it, and the words that say what was expected when it fails. */
	shape: { expected: string; matches(reply: unknown, qs: IDataObject): reply is Reply };
	/** Sent again after it may have reached the server: a GET always; another only when its entry says why it is safe. */
	retried?: true;
	/** For a request not retried: why, added to the error; NOT_RETRIED_NOTE when absent. */
	notRetried?: string;
	/** Read before the general rules (undefined leaves the reply to them); its `code` serves when the reply has none. */
	readError?(read: {
		status: number;
		isJson: boolean;
		reply: unknown;
		errorCode?: string;
		qs: IDataObject;
	}): { text: SvcErrorText; code: string } | undefined;
}

/** Said of a request other than GET whose entry does not say a retry is safe. */
export const NOT_RETRIED_NOTE =
	'It was not retried, because the request may already have been carried out: check in Svc before trying again.';

const REAL_TIME_SHAPE: Endpoint<RealTimeReply>['shape'] = {
	expected: 'an object with "result": "ok"',
	matches: (reply): reply is RealTimeReply => isPlainObject(reply) && reply.result === 'ok',
};

const listOf = <Item>(expected: string): Endpoint<Item[]>['shape'] => ({
	expected,
	matches: (reply): reply is Item[] => Array.isArray(reply),
});

const USAGE_FIGURES = ['contacts', 'missed', 'chats', 'offlines', 'avg_waiting_time'];

// GET /chat's reply to an unknown id is not shown in the spec; only a code that says "not found" means it for sure.
// `unknown` and undocumented codes give no reason, so they name the chat and say it may not exist (they may also be
// a real failure); a documented code (argument-missing, no-tariff-option…) keeps its own message.
export const NOT_FOUND_CODE = /not[-_ ]?found|no[-_ ]such/i;

const endpoint = <Reply>(entry: Endpoint<Reply>): Endpoint<Reply> => entry;

/** Every endpoint of spec section 4, by its path; the reply type of each is its shape check's. */
export const ENDPOINTS = {
	// 4.1
	'rt/provide_visitor_fields': endpoint({
		method: 'POST',
		shape: REAL_TIME_SHAPE,
		// Storing the same fields for the same token twice leaves one pairing.
		retried: true,
	}),
	// 4.2
	'rt/agent_status': endpoint({
		method: 'POST',
		shape: REAL_TIME_SHAPE,
		// Setting the same status twice leaves the same status. Set Status with a condition makes its request never
		// retried itself (see setStatus.operation.ts).
		retried: true,
	}),
	// 4.3
	'rt/send_broadcast': endpoint({
		method: 'POST',
		shape: REAL_TIME_SHAPE,
		notRetried:
			'It was not retried, because a broadcast may already have gone out: check the broadcasts in Svc before sending it again.',
	}),
	// 4.4
	operators: endpoint({ method: 'GET', shape: listOf<Operator>('a list of operators') }),
	// 4.5
	departments: endpoint({ method: 'GET', shape: listOf<Department>('a list of departments') }),
	// 4.6
	chats: endpoint({
		method: 'GET',
		shape: {
			expected: 'an object with "chats", "more_chats_available" and "last_ts"',
			// A missing or null last_ts is judged with the page (nextCursor in chats.ts): harmless on an empty one.
			matches: (reply): reply is ChatsReplyAsSent =>
				isPlainObject(reply) &&
				Array.isArray(reply.chats) &&
				reply.chats.every(isPlainObject) &&
				typeof reply.more_chats_available === 'boolean' &&
				(reply.last_ts === undefined || reply.last_ts === null || isCursor(reply.last_ts)),
		},
	}),
	// 4.7
	chat: endpoint({
		method: 'GET',
		shape: {
			expected: 'an object with a "chat"',
			matches: (reply): reply is { chat: Chat } =>
				isPlainObject(reply) && isPlainObject(reply.chat),
		},
		readError: ({ status, isJson, reply, errorCode, qs }) => {
			const found =
				errorCode === undefined
					? isPlainObject(reply) && isPlainObject(reply.chat)
					: !NOT_FOUND_CODE.test(errorCode);
			const chat = `Chat ${JSON.stringify(qs.id)}`;
			if (status === 404 || (status === 200 && isJson && !found)) {
				const fix =
					'Check the chat ID: give the ID of an existing chat, as a list of chats shows it.';
				return { text: { message: `${chat} not found`, fix }, code: 'chat-not-found' };
			}
			if (status !== 200 || errorCode === undefined) return undefined;
			if (errorCode !== 'unknown' && isDocumentedCode(errorCode)) return undefined;
			return {
				text: {
					message: `${chat} could not be read, and the server gave no reason: the chat may not exist`,
					fix: `Check the chat ID: give the ID of an existing chat, as a list of chats shows it. If the chat exists, try again later, and if it persists, contact Svc support with the time of the request. ${svcCodeNote(errorCode)}`,
				},
				code: errorCode,
			};
		},
	}),
	// 4.8
	'partner/tariffs': endpoint({
		method: 'GET',
		shape: {
			expected: 'an object with a "tariffs" list',
			matches: (reply): reply is { tariffs: Tariff[] } =>
				isPlainObject(reply) && Array.isArray(reply.tariffs),
		},
	}),
	// 4.9
	stats: endpoint({
		method: 'GET',
		shape: {
			expected: 'usage figures (mode usage) or a list of operator rows (mode operators)',
			// Usage figures must hold at least one of the figures of spec 2.11; any object would let a stray reply through.
			matches: (reply, qs): reply is UsageStats | OperatorStatsRow[] =>
				qs.mode === 'operators'
					? Array.isArray(reply)
					: isPlainObject(reply) && USAGE_FIGURES.some((figure) => figure in reply),
		},
	}),
};

export type EndpointPath = keyof typeof ENDPOINTS;

export type ReplyOf<Path extends EndpointPath> =
	(typeof ENDPOINTS)[Path] extends Endpoint<infer Reply> ? Reply : never;

/** GET /stats answers by mode (spec 4.9): usage figures, or one row per operator. */
export type StatsReplies = { usage: UsageStats; operators: OperatorStatsRow[] };

/** The reply to a request: the endpoint's, narrowed by the query where the endpoint answers by it (stats by mode). */
export type ReplyTo<Path extends EndpointPath, Query> = Path extends 'stats'
	? Query extends { mode: infer Mode extends keyof StatsReplies }
		? StatsReplies[Mode]
		: ReplyOf<Path>
	: ReplyOf<Path>;
