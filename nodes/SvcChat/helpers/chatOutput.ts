// Chat output, shared by the action node and the trigger: the 'Output' parameters, how they are read, and the shapes.
import type {
	IDataObject,
	IExecuteFunctions,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';

import type { Chat, ChatMessage } from '../types';
import { describeValueType, showValue } from './values';
import { itemParameters } from '../parameters';

export type ChatOutputMode = 'raw' | 'simplified' | 'messages';

/** Selected Fields (action node only) is the chat's id and these of its top-level fields, as the API gives them. */
type ChatOutput = ChatOutputMode | { fields: string[] };

/** Raw, Simplified and One Item per Message, in the order both nodes show them. */
export const CHAT_OUTPUT_OPTIONS: Array<INodePropertyOptions & { value: ChatOutputMode }> = [
	{ name: 'Raw', value: 'raw', description: 'The chat exactly as the API returns it' },
	{
		name: 'Simplified',
		value: 'simplified',
		description:
			'One flat record per chat: visitor, start page, category, final state (null when the chat has no state history), message count, average rate',
	},
	{
		name: 'One Item per Message',
		value: 'messages',
		description: 'One flat record per message, ready for a spreadsheet export',
	},
];

/** The top-level fields of a chat (spec 2.4) that Selected Fields offers; the id always comes along. */
const SELECTABLE_CHAT_FIELDS = [
	{ name: 'Category', value: 'category' },
	{ name: 'Created At', value: 'created_at' },
	{ name: 'Messages', value: 'messages' },
	{ name: 'Operator Comment', value: 'operator_comment' },
	{ name: 'Operator ID', value: 'operator_id' },
	{ name: 'Rates', value: 'rates' },
	{ name: 'Start Page', value: 'start_page' },
	{ name: 'State History', value: 'state_history' },
	{ name: 'Subcategory', value: 'subcategory' },
	{ name: 'Visit Session', value: 'visit_session' },
	{ name: 'Visitor', value: 'visitor' },
];

const SELECTED_FIELDS = 'selectedFields';

/** The trigger's three shapes, plus Selected Fields: small items for AI agents (n8n's guidelines for tool nodes). */
const ACTION_OUTPUT_OPTIONS = [
	...CHAT_OUTPUT_OPTIONS.slice(0, 2),
	{
		name: 'Selected Fields',
		value: SELECTED_FIELDS,
		description: 'Only the fields you pick, as the API gives them, plus the chat ID',
	},
	...CHAT_OUTPUT_OPTIONS.slice(2),
];

/** The action node's 'Output' parameters: the trigger's shapes plus Selected Fields and its field list. */
export const chatOutputProperties: INodeProperties[] = [
	{
		displayName: 'Output',
		name: 'output',
		type: 'options',
		options: ACTION_OUTPUT_OPTIONS,
		default: 'simplified',
		description: 'The shape of the output items',
	},
	{
		displayName: 'Fields',
		name: 'fields',
		type: 'multiOptions',
		options: SELECTABLE_CHAT_FIELDS,
		default: ['created_at', 'operator_id', 'visitor'],
		displayOptions: { show: { output: [SELECTED_FIELDS] } },
		description: 'The chat fields to return; the chat ID is always included',
	},
];

/** The output the action node's item asks for; a field list from an expression is checked against the offered fields. */
export function readChatOutputMode(context: IExecuteFunctions, itemIndex: number): ChatOutput {
	const read = itemParameters(context, itemIndex, chatOutputProperties);
	const mode = read.choice<ChatOutputMode | typeof SELECTED_FIELDS>('output', {
		fallback: 'simplified',
		fix: 'Choose Raw, Simplified, Selected Fields or One Item per Message.',
	});
	if (mode !== SELECTED_FIELDS) return mode;
	const fields = read.raw('fields', []);
	const known = SELECTABLE_CHAT_FIELDS.map((field) => field.value);
	if (Array.isArray(fields) && fields.every((field) => known.includes(field)))
		return { fields: fields as string[] };
	throw read.fail(
		`'${read.label('fields')}' must be a list of chat fields, not ${Array.isArray(fields) ? showValue(fields) : describeValueType(fields)}`,
		`Choose fields in the editor, or give a list of: ${known.join(', ')}.`,
	);
}

/** The state of the chat's latest state_history entry (queue, chatting, closed…), or null. */
export const finalState = (chat: Chat): string | null =>
	(Array.isArray(chat.state_history) ? chat.state_history.at(-1)?.state : undefined) ?? null;

function averageRate(chat: Chat): number | null {
	const rates = (Array.isArray(chat.rates) ? chat.rates : []).filter(
		(r) => typeof r?.rate === 'number',
	);
	if (!rates.length) return null;
	return Math.round((rates.reduce((sum, r) => sum + r.rate, 0) / rates.length) * 100) / 100;
}

/** A flat record of the fields people filter and report on. */
function simplifyChat(chat: Chat): IDataObject {
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
	if (!body || typeof body !== 'object') return null;
	const parts = [body.name, body.phone, body.email];
	return parts.filter((part) => typeof part === 'string' && part).join(', ');
}

/** One spreadsheet row per message, each carrying its chat's key fields. */
function chatMessageRows(chat: Chat): IDataObject[] {
	return (Array.isArray(chat.messages) ? chat.messages : []).map((message) => ({
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

export function formatChats(chats: Chat[], mode: ChatOutput): IDataObject[] {
	// Selected Fields: the chat's id and the chosen fields it has (a chat from a list may lack some).
	if (typeof mode === 'object')
		return chats.map((chat) => ({
			id: chat.id,
			...Object.fromEntries(mode.fields.filter((field) => field in chat).map((f) => [f, chat[f]])),
		}));
	if (mode === 'simplified') return chats.map(simplifyChat);
	if (mode === 'messages') return chats.flatMap(chatMessageRows);
	return chats;
}
