// Chat output shapes shared by the action node and the trigger: raw, simplified, one item per message, or chosen fields.
import type { IDataObject } from 'n8n-workflow';

import type { Chat, ChatMessage } from '../types';

export type ChatOutputMode = 'raw' | 'simplified' | 'messages';

/** Selected Fields (action node only): the chat's id and these of its top-level fields, as the API gives them. */
export interface SelectedChatFields {
	fields: string[];
}

export type ChatOutput = ChatOutputMode | SelectedChatFields;

/** The state of the chat's latest state_history entry (queue, chatting, closed…), or null. */
export function finalState(chat: Chat): string | null {
	const history = Array.isArray(chat.state_history) ? chat.state_history : [];
	return history.length ? (history[history.length - 1].state ?? null) : null;
}

function averageRate(chat: Chat): number | null {
	const rates = Array.isArray(chat.rates)
		? chat.rates.filter((r) => typeof r?.rate === 'number')
		: [];
	if (!rates.length) return null;
	return Math.round((rates.reduce((sum, r) => sum + r.rate, 0) / rates.length) * 100) / 100;
}

/** A flat record of the fields people filter and report on. */
export function simplifyChat(chat: Chat): IDataObject {
	const fields = chat.visitor?.fields ?? {};
	return {
		id: chat.id,
		created_at: chat.created_at,
		operator_id: chat.operator_id ?? null,
		visitor_id: chat.visitor?.id ?? null,
		visitor_name: fields.name ?? null,
		visitor_email: fields.email ?? null,
		visitor_phone: fields.phone ?? null,
		start_page: chat.start_page?.url ?? null,
		category: chat.category ?? null,
		subcategory: chat.subcategory ?? null,
		final_state: finalState(chat),
		message_count: Array.isArray(chat.messages) ? chat.messages.length : 0,
		average_rate: averageRate(chat),
	};
}

/** The message as text: contacts become "name, phone, email"; other kinds keep their text. */
function messageText(message: ChatMessage): string | null {
	const body = message.message;
	if (typeof body === 'string') return body;
	if (body && typeof body === 'object') {
		return [body.name, body.phone, body.email]
			.filter((part) => typeof part === 'string' && part)
			.join(', ');
	}
	return null;
}

/** One spreadsheet row per message, each carrying its chat's key fields. */
export function chatMessageRows(chat: Chat): IDataObject[] {
	const messages = Array.isArray(chat.messages) ? chat.messages : [];
	return messages.map((message) => ({
		chat_id: chat.id,
		chat_created_at: chat.created_at,
		visitor_id: chat.visitor?.id ?? null,
		message_id: message.id,
		created_at: message.created_at,
		kind: message.kind,
		text: messageText(message),
		operator_id: message.operator_id ?? null,
		file_name: typeof message.data?.filename === 'string' ? message.data.filename : null,
		data: message.data ?? null,
	}));
}

/** The chat's id and the chosen fields it has (a chat from a list may lack some). */
function pickChatFields(chat: Chat, fields: string[]): IDataObject {
	const picked: IDataObject = { id: chat.id };
	for (const field of fields) if (field in chat) picked[field] = chat[field];
	return picked;
}

/** The records to emit for some chats in the chosen output mode. */
export function formatChats(chats: Chat[], mode: ChatOutput): IDataObject[] {
	if (typeof mode === 'object') return chats.map((chat) => pickChatFields(chat, mode.fields));
	if (mode === 'simplified') return chats.map(simplifyChat);
	if (mode === 'messages') return chats.flatMap(chatMessageRows);
	return chats;
}
