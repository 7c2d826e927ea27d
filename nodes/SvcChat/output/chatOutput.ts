// Chat output, shared by the action node and the trigger: the 'Output' parameters, how they are read, and the shapes.
import type {
	IDataObject,
	IExecuteFunctions,
	INodeProperties,
	INodePropertyOptions,
	IPollFunctions,
} from 'n8n-workflow';

import type { Chat, ChatMessage } from '../types';
import { describeValueType, isPlainObject, showValue } from '../helpers/values';
import { clockIn } from '../helpers/time';
import { finalState, latestState, visitorContact } from '../helpers/chat';
import { itemParameters } from '../parameters';
import { svcRequest, type SvcRequestOptions } from '../transport/request';

export type ChatOutputMode = 'raw' | 'simplified' | 'messages' | 'transcript';

/** Selected Fields (action node only) is the chat's id and these of its top-level fields, as the API gives them. */
type ChatOutput = ChatOutputMode | { fields: string[] };

/** Raw, Simplified, One Item per Message and Transcript, in the order both nodes show them. */
export const CHAT_OUTPUT_OPTIONS: Array<INodePropertyOptions & { value: ChatOutputMode }> = [
	{ name: 'Raw', value: 'raw', description: 'The chat exactly as the API returns it' },
	{
		name: 'Simplified',
		value: 'simplified',
		description:
			"One flat record per chat: the ID as text, the operator's ID and name, visitor, start page, category, final state (null when the chat has no state history) and department_id of the latest state, message count, average rate; first_response_seconds: the visitor's first message to the first answer; queue_seconds: all time in the queue (null while in it); duration_seconds: created to closed; last_activity_at: the latest message or state",
	},
	{
		name: 'One Item per Message',
		value: 'messages',
		description: 'One flat record per message, ready for a spreadsheet export',
	},
	{
		name: 'Transcript',
		value: 'transcript',
		description:
			"The simplified record plus the conversation as text, one line per message, with times in the workflow's time zone; ready for a CRM note or an AI prompt",
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
		fix: 'Choose Raw, Simplified, Selected Fields, One Item per Message or Transcript.',
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

function averageRate(chat: Chat): number | null {
	const rates = (Array.isArray(chat.rates) ? chat.rates : []).filter(
		(r) => typeof r?.rate === 'number',
	);
	if (!rates.length) return null;
	return Math.round((rates.reduce((sum, r) => sum + r.rate, 0) / rates.length) * 100) / 100;
}

/** A flat record of the fields people filter and report on; the id as text, as GUIDs and numbers both fit one column. */
function simplifyChat(chat: Chat, operators: OperatorNames): IDataObject {
	const times = responseTimes(chat);
	return {
		id: String(chat.id),
		created_at: chat.created_at,
		operator_id: chat.operator_id ?? null,
		operator_name: operators.get(chat.operator_id) ?? null,
		visitor_id: chat.visitor?.id ?? null,
		...visitorContact(chat),
		start_page: chat.start_page?.url ?? null,
		category: chat.category ?? null,
		subcategory: chat.subcategory ?? null,
		final_state: finalState(chat),
		department_id: latestState(chat)?.department_id ?? null,
		message_count: Array.isArray(chat.messages) ? chat.messages.length : 0,
		average_rate: averageRate(chat),
		first_response_seconds: times.first_response_seconds,
		queue_seconds: times.queue_seconds,
		duration_seconds: times.duration_seconds,
		last_activity_at: times.last_activity_at,
	};
}

const CONTACT_MEMBERS = ['name', 'phone', 'email'];
const textOf = (value: unknown) => (typeof value === 'string' && value.trim()) || undefined;

/**
 * A message's `message` as text: text as it is; a contacts object as "name, phone, email", missing members left out;
 * any other object as JSON, never "[object Object]"; null when there is none.
 */
function messageText({ kind, message }: ChatMessage): string | null {
	const body: unknown = message;
	if (typeof body === 'string' || body === undefined || body === null) return body ?? null;
	if (typeof body !== 'object') return String(body);
	const members = isPlainObject(body) ? CONTACT_MEMBERS.map((member) => textOf(body[member])) : [];
	if (members.some(Boolean) || (kind === 'contacts' && isPlainObject(body)))
		return members.filter(Boolean).join(', ');
	return JSON.stringify(body);
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

/**
 * Who writes each kind of spec 2.5 (docs/outputs.md): the operator answers with operator and file_operator; the other
 * kinds that are not the visitor's are automatic notices. A tag marks what is not plain text.
 */
const KINDS = new Map<string, { from: 'visitor' | 'operator' | 'System'; tag?: string }>([
	['visitor', { from: 'visitor' }],
	['file_visitor', { from: 'visitor', tag: 'file' }],
	['contacts', { from: 'visitor', tag: 'contacts' }],
	['keyboard_response', { from: 'visitor', tag: 'button chosen' }],
	['operator', { from: 'operator' }],
	['file_operator', { from: 'operator', tag: 'file' }],
	['keyboard', { from: 'System', tag: 'buttons offered' }],
	['contacts_request', { from: 'System', tag: 'contacts request' }],
	['for_operator', { from: 'System', tag: 'note for the operator' }],
	['info', { from: 'System', tag: 'info' }],
	['events', { from: 'System', tag: 'event' }],
	['operator_busy', { from: 'System', tag: 'operator busy' }],
]);

const kindsFrom = (from: string) =>
	new Set<unknown>([...KINDS].filter(([, kind]) => kind.from === from).map(([kind]) => kind));
/** The kinds by which an operator answers (spec 2.5); busy notices and the system kinds are no answer. */
export const ANSWERING_KINDS = kindsFrom('operator');
export const VISITOR_KINDS = kindsFrom('visitor');

/** A server time in milliseconds; NaN, which fails every comparison, for a value that is not a time. */
const serverMs = (value: unknown) => (typeof value === 'string' ? Date.parse(value) : NaN);

/** A span in seconds; null for one that cannot be read (NaN), runs backwards or never ended. */
const seconds = (ms: number) => (ms >= 0 && ms < Infinity ? ms / 1000 : null);

/**
 * Response times by the server's own times (docs/outputs.md's rules): messages by their times, not their order; state
 * entries in the order the server appended them (spec 3). A time that is not one is left out. One pass over each list.
 */
function responseTimes(chat: Chat) {
	// Plain assignments only: array destructuring here cost more than the rest together.
	let lastMs = -Infinity;
	let lastAt: string | null = null;
	let askedMs = Infinity;
	const answersMs: number[] = [];
	for (const message of Array.isArray(chat.messages) ? chat.messages : []) {
		const ms = serverMs(message?.created_at);
		if (ms > lastMs) {
			lastMs = ms;
			lastAt = message.created_at;
		}
		if (VISITOR_KINDS.has(message?.kind)) askedMs = ms < askedMs ? ms : askedMs;
		else if (ANSWERING_KINDS.has(message?.kind)) answersMs.push(ms);
	}
	// The first answer at or after the visitor's first message: an operator's greeting before it answers nothing.
	let answeredMs = Infinity;
	for (const ms of answersMs) if (ms >= askedMs && ms < answeredMs) answeredMs = ms;
	// Time in queue: from an entry into queue (a repeated one continues the wait) to the next entry in another state.
	// waitedMs stays undefined for a chat never queued and turns NaN for a span that cannot be read.
	let waitedMs: number | undefined;
	let queuedMs: number | undefined;
	for (const entry of Array.isArray(chat.state_history) ? chat.state_history : []) {
		const ms = serverMs(entry?.at);
		if (ms > lastMs) {
			lastMs = ms;
			lastAt = entry.at;
		}
		if (entry?.state === 'queue') {
			queuedMs ??= ms;
			waitedMs ??= 0;
		} else if (queuedMs !== undefined) {
			waitedMs = (waitedMs as number) + (ms >= queuedMs ? ms - queuedMs : NaN);
			queuedMs = undefined;
		}
	}
	const closed = finalState(chat) === 'closed' ? latestState(chat)?.at : undefined;
	return {
		first_response_seconds: seconds(answeredMs - askedMs),
		// Still in queue: the wait has not ended, and n8n's clock is not the server's to end it with.
		queue_seconds: queuedMs === undefined ? seconds(waitedMs ?? NaN) : null,
		duration_seconds: seconds(serverMs(closed) - serverMs(chat.created_at)),
		last_activity_at: lastAt,
	};
}

/** What a transcript line says after its tag: a file as its name and type, a chosen button by its text or id. */
function lineText(message: ChatMessage, kind: string): string {
	const text = messageText(message);
	const data = (kind.startsWith('file_') || kind === 'keyboard_response') && message.data;
	if (!isPlainObject(data)) return text ?? '';
	if (kind === 'keyboard_response') return text || (textOf(data.buttonId) ?? '');
	const name = textOf(data.filename) ?? text ?? 'a file without a name';
	const type = textOf(data.content_type);
	return type ? `${name} (${type})` : name;
}

const hasId = (id: unknown) => typeof id === 'number' || (typeof id === 'string' && id !== '');

/** The chat as text: a header naming the time zone, then one line per message, "[time] who: [tag] text". */
function transcriptWriter(timeZone: unknown, operators: OperatorNames) {
	const { zone, timeOf } = clockIn(timeZone);
	const operator = (id: unknown) => {
		const name = operators.get(id);
		return name ? `${name} (operator)` : hasId(id) ? `Operator ${id}` : 'Operator';
	};
	return (chat: Chat): string => {
		const header = `Chat ${String(chat.id)}, times in ${zone}`;
		const messages: unknown[] = Array.isArray(chat.messages) ? chat.messages : [];
		if (!messages.length) return `${header}\nNo messages.`;
		const visitorName = visitorContact(chat).visitor_name;
		const visitor = visitorName ? `${visitorName} (visitor)` : 'Visitor';
		// One list of pieces, joined once: no string per line to collect, which in n8n's large heap costs time.
		const pieces = [header];
		for (const entry of messages) {
			const message = (isPlainObject(entry) ? entry : { message: entry }) as ChatMessage;
			const kind = textOf(message.kind) ?? 'no kind';
			const operatorId: unknown = message.operator_id;
			// A kind the spec does not list: tagged with its name, the operator's if it has operator_id as theirs do.
			const { from = hasId(operatorId) ? 'operator' : 'Unknown', tag } = KINDS.get(kind) ?? {
				tag: kind,
			};
			const who = from === 'operator' ? operator(operatorId) : from === 'visitor' ? visitor : from;
			// Line breaks become " / ": one line per message.
			const text =
				lineText(message, kind).replace(/\s*[\r\n\u2028\u2029]+\s*/g, ' / ') || '(empty)';
			pieces.push('\n[', timeOf(message.created_at), '] ', who, tag ? `: [${tag}] ` : ': ', text);
		}
		return pieces.join('');
	};
}

/** Operators' full names by id, as given and as text: an operator_id is looked up as it comes. */
export type OperatorNames = Map<unknown, string>;

/** Operator names per node run: the action node's items share the run's context, so they share one request. */
const operatorNamesPerRun = new WeakMap<object, Promise<OperatorNames>>();

/** GET /operators once; a failure fails the item or the poll (the trigger keeps its place), saying what `purpose` was. */
export async function readOperatorNames(
	context: IExecuteFunctions | IPollFunctions,
	{ perNodeRun, purpose, ...request }: ChatFormatterOptions & { purpose: string },
): Promise<OperatorNames> {
	const cached = perNodeRun ? operatorNamesPerRun.get(context) : undefined;
	if (cached) return await cached;
	const names = svcRequest(context, 'operators', request).then(
		(operators) =>
			new Map<unknown, string>(
				operators.flatMap((one) => {
					const name = isPlainObject(one) && textOf(one.full_name);
					return name ? [[one.id, name] as const, [String(one.id), name] as const] : [];
				}),
			),
		(error: Error & { description?: string }) => {
			error.description = [error.description, purpose].filter(Boolean).join(' ');
			throw error;
		},
	);
	if (perNodeRun) operatorNamesPerRun.set(context, names);
	return await names;
}

/** `perNodeRun` (action node): keep the names for the run's other items. A poll's context outlives the poll. */
type ChatFormatterOptions = Pick<SvcRequestOptions, 'credentials' | 'endBy' | 'itemIndex'> & {
	perNodeRun?: boolean;
	operatorNames?: OperatorNames; // read already by the caller (New Rating's names): no second request
};

/** The one way both nodes shape chats: what `mode` needs from the server is read once; it then formats in sync. */
export async function chatFormatter(
	context: IExecuteFunctions | IPollFunctions,
	mode: ChatOutput,
	options: ChatFormatterOptions = {},
): Promise<(chats: Chat[]) => IDataObject[]> {
	// Selected Fields: the chat's id and the chosen fields it has (a chat from a list may lack some).
	if (typeof mode === 'object')
		return (chats) =>
			chats.map((chat) => ({
				id: chat.id,
				...Object.fromEntries(
					mode.fields.filter((field) => field in chat).map((f) => [f, chat[f]]),
				),
			}));
	if (mode === 'messages') return (chats) => chats.flatMap(chatMessageRows);
	if (mode !== 'simplified' && mode !== 'transcript') return (chats) => chats;
	const operators =
		options.operatorNames ??
		(await readOperatorNames(context, {
			...options,
			purpose: `${mode === 'simplified' ? 'Simplified' : 'Transcript'} names the operators from Get many operators; choose another Output to go without their names.`,
		}));
	if (mode === 'simplified') return (chats) => chats.map((chat) => simplifyChat(chat, operators));
	const transcriptOf = transcriptWriter(context.getTimezone(), operators);
	// Added to the record, not spread with it: the spread took a fifth of Transcript's time.
	return (chats) =>
		chats.map((chat) =>
			Object.assign(simplifyChat(chat, operators), { transcript: transcriptOf(chat) }),
		);
}
