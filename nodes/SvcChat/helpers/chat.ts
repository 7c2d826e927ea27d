// Facts read off a chat (spec 2.4) that every output, event and search shares: its latest state and the visitor's contact.
import type { IDataObject } from 'n8n-workflow';

import type { Chat } from '../types';
import { isPlainObject } from './values';

/** The chat's latest state_history entry, the one the server appended last (spec 3); undefined when there is none. */
export const latestState = (chat: Chat) =>
	Array.isArray(chat.state_history) ? chat.state_history.at(-1) : undefined;

/** The state of the chat's latest state_history entry (queue, chatting, closed…), or null. */
export const finalState = (chat: Chat): string | null => latestState(chat)?.state ?? null;

const someText = (value: unknown) =>
	typeof value === 'string' && value.trim() ? value : undefined;

/**
 * The visitor's name, email and phone (as the items name them), each from the visitor fields, else from the latest `contacts` message (the
 * form a visitor leaves when nobody answers), else null: the one rule of Simplified, Missed Chat and the chat search.
 */
export function visitorContact(chat: Chat) {
	const fields: IDataObject = isPlainObject(chat.visitor?.fields) ? chat.visitor.fields : {};
	const messages = Array.isArray(chat.messages) ? chat.messages : [];
	const forms = messages.filter((one) => one?.kind === 'contacts' && isPlainObject(one.message));
	const form = (forms.at(-1)?.message ?? {}) as IDataObject;
	const contact = (member: string) => someText(fields[member]) ?? someText(form[member]) ?? null;
	return {
		visitor_name: contact('name'),
		visitor_email: contact('email'),
		visitor_phone: contact('phone'),
	};
}

export type VisitorMatch = 'emailOrPhone' | 'email' | 'phone' | 'name' | 'visitorId';
const MATCHED = { email: 'visitor_email', phone: 'visitor_phone', name: 'visitor_name' } as const;
const digits = (text: unknown) => String(text ?? '').replace(/\D/g, '');
const folded = (text: unknown) =>
	String(text ?? '')
		.trim()
		.replace(/\s+/g, ' ')
		.toLowerCase();

/** Whether a chat is this visitor's, by `visitorContact` (phone by its digits, the rest folded); the ID is either's. */
export function visitorMatcher(by: VisitorMatch, wanted: string) {
	if (by === 'emailOrPhone') by = wanted.includes('@') ? 'email' : 'phone';
	const [want, same] = by === 'phone' ? [digits(wanted), digits] : [folded(wanted), folded];
	return (chat: Chat) =>
		want !== '' &&
		(by === 'visitorId'
			? [chat.visitor?.id, isPlainObject(chat.visitor?.fields) && chat.visitor.fields.id]
			: [visitorContact(chat)[MATCHED[by]]]
		).some((value) => same(value) === want);
}
