// Fills in list entries that hold only id and created_at (spec 2.4) with GET /chat, a few at a time.
import { NodeApiError } from 'n8n-workflow';

import type { Chat } from '../types';
import { requestWithCredentials } from './request';
import type { SvcApiContext, SvcCredentials, SvcRequestOptions } from './types';

/** GET /chat requests in flight at once: enough to hide latency, few enough to stay polite to the server. */
export const FULL_CHAT_CONCURRENCY = 4;

const LIST_ONLY_FIELDS = new Set(['id', 'created_at']);

/** A list entry with no field beyond id and created_at: nothing to output or filter on yet. */
export function isMinimalChat(chat: Chat): boolean {
	return Object.keys(chat).every((key) => LIST_ONLY_FIELDS.has(key));
}

/**
 * The chats with every minimal entry replaced by the full chat, in the same order. Requests go through the transport,
 * so they are retried like any other; if one still fails, its error is thrown (after naming the chat) and no
 * further request starts, so a caller never goes past a chat it could not read.
 */
export async function withFullChats(
	this: SvcApiContext,
	credentials: SvcCredentials,
	chats: Chat[],
	options: Omit<SvcRequestOptions, 'qs' | 'body'>,
): Promise<Chat[]> {
	const missing = chats.flatMap((chat, index) => (isMinimalChat(chat) ? [index] : []));
	if (missing.length === 0) return chats;
	const filled = [...chats];
	let next = 0;
	let failed = false;
	const worker = async () => {
		while (!failed && next < missing.length) {
			const index = missing[next++];
			try {
				const reply = await requestWithCredentials(this, credentials, 'chat', {
					...options,
					qs: { id: chats[index].id },
				});
				filled[index] = reply.chat;
			} catch (error) {
				failed = true;
				throw nameTheListedChat(error, chats[index]);
			}
		}
	};
	await Promise.all(
		Array.from({ length: Math.min(FULL_CHAT_CONCURRENCY, missing.length) }, worker),
	);
	return filled;
}

function nameTheListedChat(error: unknown, chat: Chat): unknown {
	if (!(error instanceof NodeApiError)) return error;
	error.message = `Chat ${JSON.stringify(chat.id)} was listed with only its id and created_at, and reading it in full failed: ${error.message}`;
	error.context.minimalChatId = chat.id;
	return error;
}
