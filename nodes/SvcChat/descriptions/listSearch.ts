// The "From List" choices of the resource locators of both nodes: recent chats and the operators, searchable and paged.
import type {
	ILoadOptionsFunctions,
	INodeListSearchItems,
	INodeListSearchResult,
} from 'n8n-workflow';

import { walkChats, withFullChats } from '../transport/chats';
import { svcRequest } from '../transport/request';
import type { Chat, Operator } from '../types';
import { visitorContact } from '../helpers/chat';

/** Operators per page of the list; the API returns them all at once, so the list is paged here. */
const OPERATORS_PER_PAGE = 100;
/** With a search term, pages of changes are read until this many chats match, or MAX_CHAT_PAGES_PER_SEARCH pages. */
const CHAT_MATCHES_PER_SEARCH = 50;
const MAX_CHAT_PAGES_PER_SEARCH = 5;

const matches = (filter: string | undefined, ...texts: unknown[]) =>
	!filter ||
	texts.some(
		(text) =>
			(typeof text === 'string' || typeof text === 'number') &&
			String(text).toLowerCase().includes(filter.toLowerCase()),
	);

/** A page of the operators, by position; the token is the position of the next page. */
export function operatorPage(
	operators: Operator[],
	filter: string | undefined,
	paginationToken: string | undefined,
	toItem: (operator: Operator) => INodeListSearchItems,
	perPage = OPERATORS_PER_PAGE,
): INodeListSearchResult {
	const matching = operators
		.filter((operator) => matches(filter, operator.full_name, operator.email, operator.id))
		.sort((a, b) => String(a.full_name ?? a.email).localeCompare(String(b.full_name ?? b.email)));
	const start = Math.max(0, Number.parseInt(paginationToken ?? '0', 10) || 0);
	const next = start + perPage;
	return {
		results: matching.slice(start, next).map(toItem),
		paginationToken: next < matching.length ? String(next) : undefined,
	};
}

/** Operators as From List choices, `value` giving what the parameter stores. */
const operatorSearch = (value: (operator: Operator) => string) =>
	async function (this: ILoadOptionsFunctions, filter?: string, paginationToken?: string) {
		const operators = await svcRequest(this, 'operators');
		return operatorPage(operators, filter, paginationToken, (operator) => ({
			// No status: the label stays in the parameter after the status has changed.
			name: `${operator.full_name || operator.email} (${operator.email})`,
			value: value(operator),
		}));
	};

/** Operators for Set Status: the value is the email, as the API expects it. */
export const searchOperatorEmails = operatorSearch((operator) => operator.email);

export const searchOperators = operatorSearch((operator) => String(operator.id));

/** A whole chat ID as the search term: a number or a GUID (spec 2.4). */
const CHAT_ID = /^(\d+|[\da-f]{8}(-[\da-f]{4}){3}-[\da-f]{12})$/i;

/** Recent chats in the order they changed, a page at a time (the token is the cursor); a term matches the ID, visitor
 * and category, and a whole ID finds its chat first, however long ago it changed. */
export async function searchChats(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	// A chat that changed again between two pages comes twice; it is listed once.
	const results = new Map<string, INodeListSearchItems>();
	const term = filter?.trim();
	const add = (chat: Chat) => {
		const { visitor_name: name, visitor_email: email, visitor_phone: phone } = visitorContact(chat);
		if (!matches(term, chat.id, name, email, phone, chat.category)) return;
		// "#1042 · Jane · 2024-05-01 10:42": the creation time without seconds.
		const created =
			typeof chat.created_at === 'string' ? chat.created_at.replace('T', ' ').slice(0, 16) : '';
		const label = [`#${chat.id}`, name ?? email ?? phone, created].filter(Boolean).join(' · ');
		results.set(String(chat.id), { name: label, value: String(chat.id) });
	};
	if (!paginationToken && term && CHAT_ID.test(term)) {
		// Read as a minimal list entry is (GET /chat); an ID the server does not know stays bare and is not listed.
		const bare = { id: term, created_at: '' };
		const [chat] = await withFullChats(this, [bare], { dropGone: true });
		if (chat !== bare) add(chat);
	}
	const walk = await walkChats(this, paginationToken || 'recent', {
		maxPages: term ? MAX_CHAT_PAGES_PER_SEARCH : 1,
		onPage: (page) => {
			page.chats.forEach(add);
			return results.size >= CHAT_MATCHES_PER_SEARCH;
		},
	});
	const next = walk.caughtUp ? undefined : String(walk.lastTs);
	return { results: [...results.values()], paginationToken: next };
}
