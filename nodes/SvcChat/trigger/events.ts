// New Rating and Missed Chat: what identifies a rating, what makes a chat missed, and what their items say.
import { createHash } from 'node:crypto';
import type { IDataObject } from 'n8n-workflow';

import { finalState, visitorContact } from '../helpers/chat';
import { ANSWERING_KINDS } from '../output/chatOutput';
import { isPlainObject } from '../helpers/values';
import type { Chat } from '../types';

export type ChatEvent = 'newRating' | 'missedChat';
export const isChatEvent = (emit: string): emit is ChatEvent =>
	emit === 'newRating' || emit === 'missedChat';

/** Ratings from `from` to `to`, both within 1 to 5; undefined: every rating, whatever its value. */
export type RatingRange = { from: number; to: number } | undefined;

/**
 * One rating or missed chat found in a chat. `key` names it across polls, `at` is its own time (for the starting
 * point), `wanted` says whether it passes the filter; the item still lacks detected_at and the chat.
 */
export interface FoundEvent {
	key: string;
	at: unknown;
	wanted: boolean;
	chat: Chat;
	item: IDataObject;
}

/** 96 bits of SHA-256 in 16 characters: the memory keeps no text of the chat, and a collision is beyond reach. */
const digest = (identity: unknown[]) =>
	createHash('sha256').update(JSON.stringify(identity)).digest('base64url').slice(0, 16);

export function findEvents(chat: Chat, event: ChatEvent, range?: RatingRange): FoundEvent[] {
	return event === 'newRating' ? ratingsOf(chat, range) : missedChatOf(chat);
}

/**
 * Each rating of the chat. The spec gives a rating no id: it is its chat, value, operator and time, and which
 * occurrence of an equal rating in the chat it is. Values are passed on as sent; a set range matches numbers in it.
 */
function ratingsOf(chat: Chat, range: RatingRange): FoundEvent[] {
	const occurrences = new Map<string, number>();
	return (Array.isArray(chat.rates) ? chat.rates : []).filter(isPlainObject).map((rate) => {
		const item = {
			chat_id: chat.id,
			rating: rate.rate ?? null,
			operator_id: rate.operator_id ?? null,
			rated_at: rate.created_at ?? null,
		};
		const identity = JSON.stringify(Object.values(item));
		const occurrence = occurrences.get(identity) ?? 0;
		occurrences.set(identity, occurrence + 1);
		const { rating } = item;
		const wanted =
			!range || (typeof rating === 'number' && rating >= range.from && rating <= range.to);
		return { key: digest([identity, occurrence]), at: item.rated_at, wanted, chat, item };
	});
}

/**
 * The chat if it is missed: its latest state is closed and no message is an operator's answer (a chat without a
 * messages list counts as unanswered), with the visitor's contact by the one rule of visitorContact.
 */
function missedChatOf(chat: Chat): FoundEvent[] {
	const messages = (Array.isArray(chat.messages) ? chat.messages : []).filter(isPlainObject);
	if (finalState(chat) !== 'closed' || messages.some((one) => ANSWERING_KINDS.has(one.kind)))
		return [];
	const closedAt = (chat.state_history as IDataObject[]).at(-1)?.at ?? null;
	const item = { chat_id: chat.id, closed_at: closedAt, ...visitorContact(chat) };
	return [{ key: digest([chat.id]), at: closedAt, wanted: true, chat, item }];
}
