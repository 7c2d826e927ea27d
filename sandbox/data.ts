// The sandbox's seed data: operators, departments, tariffs, templates, and chats generated lazily from (seed, index).
import type {
	Chat,
	ChatMessage,
	Department,
	Operator,
	Rate,
	StateEntry,
	Tariff,
} from '../nodes/SvcChat/types';
import { Random } from './random';

export const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;
/** Seeded chats end between 30 days and 1 hour before the sandbox's start. */
const HISTORY_SPAN_MS = 30 * DAY_MS;
const HISTORY_END_GAP_MS = 60 * MINUTE_MS;

export const OPERATOR_PASSWORD = 'operator-password';

export interface SeedOperator extends Operator {
	/** Not part of the API reply; stripped before answering. */
	password: string;
}

/** The admin first, then operators with distinct statuses; none of the others is an administrator. */
export function seedOperators(
	random: Random,
	admin: { email: string; password: string },
): SeedOperator[] {
	const people: Array<[string, string, string, string[]]> = [
		[admin.email, 'Sandbox Admin', 'online', ['admin', 'operator']],
		['anna@svc.test', 'Anna Petrova', 'online', ['operator']],
		['boris@svc.test', 'Boris Ivanov', 'offline', ['operator']],
		['carla@svc.test', 'Carla Gomez', 'dinner', ['operator', 'supervisor']],
		['dmitri@svc.test', 'Dmitri Sokolov', 'invisible', ['operator']],
		['elena@svc.test', 'Elena Rossi', 'pre-dinner', ['operator']],
	];
	const registered = Date.UTC(2023, 0, 1);
	return people.map(([email, full_name, status, roles], index) => ({
		id: index + 1,
		email,
		full_name,
		status,
		roles,
		created_at: new Date(
			registered + random.int(0, 365) * DAY_MS + random.int(0, DAY_MS - 1),
		).toISOString(),
		password: index === 0 ? admin.password : OPERATOR_PASSWORD,
	}));
}

export const DEPARTMENTS: readonly Department[] = [
	{ id: 1, name: 'Sales', order: 1 },
	{ id: 2, name: 'Support', order: 2 },
	{ id: 3, name: 'Billing', order: 3 },
];

export const TARIFFS: readonly Tariff[] = [
	{
		key: 'basic',
		name: 'Basic',
		description: 'One operator, chat widget and history.',
		discounts: null,
		partner_prices: { per_operator_price: 8.5, base_price: 0 },
		public_prices: { per_operator_price: 10, base_price: 0 },
	},
	{
		key: 'business',
		name: 'Business',
		description: 'Departments, messaging-application channels and statistics.',
		discounts: { '3': 5, '6': 10, '12': 15 },
		partner_prices: { per_operator_price: 16.2, base_price: 42.5 },
		public_prices: { per_operator_price: 19, base_price: 50 },
	},
	{
		key: 'enterprise',
		name: 'Enterprise',
		description: 'Everything in Business plus the Integration API and a dedicated manager.',
		discounts: { '12': 20, '24': 25 },
		partner_prices: { per_operator_price: 25.75, base_price: 170 },
		public_prices: { per_operator_price: 29, base_price: 199 },
	},
];

/** Message templates registered with the messaging application (spec 4.3 rule 1). */
export const TEMPLATES: Readonly<Record<string, { active: boolean }>> = {
	welcome_v2: { active: true },
	order_update: { active: true },
	promo_old: { active: false },
};

export const CHANNELS: readonly string[] = ['wa-main'];

/** +15550000001 … +15550000050 are registered with the messaging application; other numbers receive nothing. */
export const REGISTERED_PHONES: ReadonlySet<string> = new Set(
	Array.from({ length: 50 }, (_, i) => `+1555${String(i + 1).padStart(7, '0')}`),
);

/** The seen statuses (spec 3); by default the tariff allows all of them. */
export const SEEN_STATUSES = ['online', 'offline', 'invisible', 'dinner', 'pre-dinner'];

/**
 * Everything the sandbox keeps per chat. The base content is rebuilt from (seed, index) when asked for,
 * so 100,000 chats cost only this small record each; changes made later are kept in the `extra` arrays.
 */
export interface ChatRecord {
	index: number;
	id: number | string;
	createdMs: number;
	durationMs: number;
	baseMessageCount: number;
	/** -1 when the base chat's state_history is null. */
	baseStateCount: number;
	extraMessages: ChatMessage[];
	extraStates: StateEntry[];
	extraRates: Rate[];
	/** A chat no operator answered (control addMissedChat), and where its visitor's contact is. */
	missed?: MissedContact;
	/** The regular visitor's chat (option regularVisitor): its place in REGULAR_VISITOR_AGES_H. */
	regular?: number;
	/** Microsecond timestamp of this chat's latest change (its entry in the change log). */
	lastTs: number;
	/**
	 * Added while the sandbox runs: a conversation going on (begun LIVE_CONVERSATION_MS before), so not closed;
	 * 'waiting': its visitor's first message, in the queue, unanswered (control visitorWaits).
	 */
	live: boolean | 'waiting';
}

// Message kinds of spec 2.5, in four groups: four consecutive chats between them show every kind.
const KIND_GROUPS: readonly string[][] = [
	['contacts_request', 'contacts'],
	['file_visitor', 'file_operator'],
	['keyboard', 'keyboard_response'],
	['for_operator', 'info', 'events', 'operator_busy'],
];
// Kinds sent by (or about) an operator carry operator_id (spec 2.5).
const OPERATOR_SIDE_KINDS = new Set([
	'operator',
	'file_operator',
	'keyboard',
	'contacts_request',
	'operator_busy',
]);

/** Where a missed chat's visitor left a contact: in the visitor fields, in a contacts message, or nowhere. */
export type MissedContact = 'fields' | 'message' | 'none';
export const MISSED_CONTACTS: readonly MissedContact[] = ['fields', 'message', 'none'];

interface ChatPlan {
	id: number | string;
	durationMs: number;
	kinds: string[];
	/** null state_history, or the states in order. */
	states: string[] | null;
	/** When each message was written, and when an operator took the chat from the queue: ms after its creation. */
	times: number[];
	takenMs: number;
}

export const ANSWERING_KINDS = new Set(['operator', 'file_operator']);

/**
 * A chat added while the sandbox runs began this long ago, every one the same: they begin in the order they are added,
 * so a New Chats Only trigger started between two additions takes the later one as new.
 */
const LIVE_CONVERSATION_MS = 20 * MINUTE_MS;

/**
 * The times of a conversation of `lengthMs`, as a real team's run: the visitor writes at once; three chats in four are
 * taken from the queue within 45 s, the others wait 1 to 8 minutes; the first answer follows in 3 to 50 s, within the
 * chat's first half. The rest fills the length: up to its end for a chat still going (`endsNow`), else before it (the
 * closing and ratings come last). Without an answer, the messages are spread evenly.
 */
function timeConversation(
	seed: number,
	index: number,
	kinds: string[],
	lengthMs: number,
	endsNow = false,
) {
	const answer = kinds.findIndex((kind) => ANSWERING_KINDS.has(kind));
	const even = (k: number) => Math.floor(((k + 1) * lengthMs) / (kinds.length + 1));
	if (answer < 0) return { times: kinds.map((_, k) => even(k)), takenMs: 0, durationMs: lengthMs };
	const random = Random.of(seed, index, 5);
	const askedMs = random.int(0, 3_000);
	const queuedMs = random.chance(0.25)
		? random.int(MINUTE_MS, 8 * MINUTE_MS)
		: random.int(2_000, 45_000);
	const answeredMs = askedMs + queuedMs + random.int(3_000, 50_000);
	const scale = Math.min(1, lengthMs / 2 / answeredMs);
	const [asked, answered] = [askedMs * scale, answeredMs * scale];
	const after = kinds.length - 1 - answer;
	const step = (lengthMs - answered) / (after + (endsNow ? 0 : 1));
	const times = kinds.map((_, k) =>
		Math.floor(
			k <= answer ? asked + ((answered - asked) * k) / answer : answered + step * (k - answer),
		),
	);
	return { times, takenMs: Math.floor((askedMs + queuedMs) * scale), durationMs: lengthMs };
}

const FIRST_INTEGER_CHAT_ID = 10_000;

/**
 * The structure of chat `index`: which kinds, which states, which id. Variety follows the index, so that even
 * a 10-chat demo has every message kind, GUID and integer ids, null categories, null state histories, rates,
 * visitors with and without fields, and closed and open chats; the seed picks the details.
 */
function planChat(
	seed: number,
	index: number,
	live: boolean | 'waiting',
	missed?: MissedContact,
): ChatPlan {
	const random = Random.of(seed, index, 1);
	const durationMs = random.int(2, 40) * MINUTE_MS + random.int(0, MINUTE_MS - 1);
	const id = index % 5 === 3 ? random.guid() : FIRST_INTEGER_CHAT_ID + index;
	if (live === 'waiting')
		return { id, durationMs: 0, kinds: ['visitor'], states: ['queue'], times: [0], takenMs: 0 };
	const kinds = ['visitor', 'operator'];
	kinds.splice(1, 0, ...KIND_GROUPS[index % KIND_GROUPS.length]);
	const exchanges = random.int(0, 3);
	for (let i = 0; i < exchanges; i++) kinds.push('visitor', 'operator');
	if (random.chance(0.5)) kinds.push('visitor');
	let states: string[] | null = null;
	if (index % 10 !== 9) {
		states = ['queue', 'chatting'];
		// The same state may repeat with another operator or department (spec 3).
		if (random.chance(0.25)) states.push('chatting');
		if (index % 3 !== 2 && !live) states.push('closed');
	}
	if (!missed)
		return {
			id,
			kinds,
			states,
			...timeConversation(
				seed,
				index,
				kinds,
				live ? LIVE_CONVERSATION_MS : durationMs,
				Boolean(live),
			),
		};
	// Unanswered: a busy notice and system kinds, never an operator's message or file; then closed.
	const asked = missed === 'message' ? ['contacts_request', 'contacts'] : ['events'];
	const unanswered = ['visitor', 'operator_busy', ...asked, 'info'];
	return {
		id,
		kinds: unanswered,
		states: ['queue', 'closed'],
		...timeConversation(seed, index, unanswered, durationMs),
	};
}

/** The small record of chat `index`, created at `createdMs` (in its slot of the seeded 30 days, or now when live). */
export function newChatRecord(
	seed: number,
	index: number,
	createdMs: number,
	live: boolean | 'waiting' = false,
	missed?: MissedContact,
): ChatRecord {
	const plan = planChat(seed, index, live, missed);
	return {
		index,
		id: plan.id,
		createdMs,
		durationMs: plan.durationMs,
		baseMessageCount: plan.kinds.length,
		baseStateCount: plan.states === null ? -1 : plan.states.length,
		extraMessages: [],
		extraStates: [],
		extraRates: [],
		...(missed ? { missed } : {}),
		lastTs: 0,
		live,
	};
}

/** Creation time of seeded chat `index` of `count`: one slot each, spread evenly over the 30 days before `anchorMs`. */
export function seededCreatedMs(
	seed: number,
	index: number,
	count: number,
	anchorMs: number,
): number {
	const start = anchorMs - HISTORY_SPAN_MS - HISTORY_END_GAP_MS;
	const slot = HISTORY_SPAN_MS / Math.max(count, 1);
	const jitter = Random.of(seed, index, 3).next() * slot * 0.5;
	return Math.floor(start + index * slot + jitter);
}

/** One visitor who comes back (option regularVisitor), written each time a little differently, as people do. */
export const REGULAR_VISITOR = {
	id: 'v-regular-rosa',
	siteId: 'crm-rosa',
	name: 'Rosa Regular',
	emails: ['rosa.regular@mail.example', 'Rosa.Regular@Mail.example'],
	phones: ['+44 20 7946 0958', '442079460958'],
};
/** The regular visitor's chats, hours before the sandbox's start: 5 in the last day, then spread to 29.5 days. */
export const REGULAR_VISITOR_AGES_H = [2.3, 5, 9, 14, 20, 36, 72, 144, 264, 360, 528, 708];

/** The seeded chat (of `count`) created nearest `ageH` hours before the anchor: the regular visitor's. */
export const regularChatIndex = (ageH: number, count: number) =>
	Math.max(
		0,
		Math.min(
			count - 1,
			Math.round(count - (ageH * 3_600_000 - HISTORY_END_GAP_MS) / (HISTORY_SPAN_MS / count)),
		),
	);

const FIRST_NAMES = [
	'Olga',
	'Mark',
	'Sofia',
	'Liam',
	'Yuki',
	'Amir',
	'Ines',
	'Tomas',
	'Priya',
	'Jonas',
	'Mei',
	'Omar',
];
const LAST_NAMES = [
	'Novak',
	'Schmidt',
	'Kowalski',
	'Tanaka',
	'Haddad',
	'Silva',
	'Larsen',
	'Patel',
	'Moreau',
	'Kim',
];
const CATEGORIES: Record<string, Array<string | null>> = {
	Orders: ['Delivery', 'Returns', null],
	Payments: ['Refund', 'Invoice'],
	Account: ['Login', 'Profile', null],
	Product: ['Question', 'Complaint'],
};
const VISITOR_LINES = [
	'Hello, where is my order?',
	'Can I change the delivery address?',
	'The payment failed twice.',
	'Do you ship to Portugal?',
	'Thanks, that helped!',
	'How do I reset my password?',
	'Привет! Есть ли скидки?',
	'Is there a discount for 12 months? 🙂',
];
const OPERATOR_LINES = [
	'Hello! Let me check that for you.',
	'Could you give me the order number?',
	'Done, you will get an e-mail shortly.',
	'Anything else I can help with?',
	'Yes, we ship to all EU countries.',
];
const PAGES = [
	'https://shop.example/',
	'https://shop.example/cart',
	'https://shop.example/help',
	'https://shop.example/p/42',
];
const FILES: Array<[string, string]> = [
	['invoice.pdf', 'application/pdf'],
	['photo.jpg', 'image/jpeg'],
	['screen.png', 'image/png'],
];

const iso = (ms: number) => new Date(ms).toISOString();

/** A deterministic phone number; registered with the messaging application for about half the visitors. */
function visitorPhone(random: Random): string {
	return random.chance(0.5)
		? `+1555${String(random.int(1, 50)).padStart(7, '0')}`
		: `+4930${random.int(1000000, 9999999)}`;
}

/** The full chat (spec 2.4): the base rebuilt from (seed, index), then the changes kept in the record. */
export function buildChat(seed: number, record: ChatRecord, operatorIds: readonly number[]): Chat {
	const plan = planChat(seed, record.index, record.live, record.missed);
	const random = Random.of(seed, record.index, 2);
	const { index, createdMs } = record;
	const chatKey = String(record.id);
	const operatorId = random.pick(operatorIds);
	const departmentId = random.chance(0.8) ? random.int(1, DEPARTMENTS.length) : null;
	const name = `${random.pick(FIRST_NAMES)} ${random.pick(LAST_NAMES)}`;
	const email = `${name.toLowerCase().replace(' ', '.')}${random.int(1, 99)}@mail.example`;
	const phone = visitorPhone(random);

	const messages: ChatMessage[] = plan.kinds.map((kind, k) => {
		const at = createdMs + plan.times[k];
		const message: ChatMessage = { id: `${chatKey}-m${k}`, created_at: iso(at), kind, message: '' };
		if (OPERATOR_SIDE_KINDS.has(kind)) message.operator_id = operatorId;
		switch (kind) {
			case 'visitor':
				message.message = random.pick(VISITOR_LINES);
				break;
			case 'operator':
				message.message = random.pick(OPERATOR_LINES);
				break;
			case 'contacts_request':
				message.message = 'Please leave your contacts so we can reach you.';
				break;
			case 'contacts':
				message.message = { name, phone, email };
				break;
			case 'file_visitor':
			case 'file_operator': {
				const [filename, content_type] = random.pick(FILES);
				message.message = filename;
				message.data = { guid: random.guid(), content_type, filename };
				break;
			}
			// Keyboard data types and per-kind split are "not shown" (spec 2.5): here both kinds carry all three
			// members as strings; a keyboard's buttonId is its first button, a response's messageId points at the keyboard.
			case 'keyboard':
				message.message = 'How would you rate the answer?';
				message.data = { id: `kb-${chatKey}`, buttonId: 'btn-1', messageId: message.id };
				break;
			case 'keyboard_response':
				message.message = random.pick(['Great', 'OK', 'Bad']);
				message.data = {
					id: `kb-${chatKey}`,
					buttonId: `btn-${random.int(1, 3)}`,
					messageId: `${chatKey}-m${k - 1}`,
				};
				break;
			case 'for_operator':
				message.message = 'Visitor came from the spring campaign.';
				break;
			case 'info':
				message.message = 'The visitor has been waiting for 2 minutes.';
				break;
			case 'events':
				message.message = 'Visitor opened https://shop.example/cart';
				break;
			case 'operator_busy':
				message.message = 'All operators are busy; the visitor was told to wait.';
				break;
		}
		return message;
	});

	let stateHistory: StateEntry[] | null = null;
	if (plan.states) {
		const endMs = createdMs + plan.durationMs;
		// In the queue from the start; taken by an operator; a second operator or department halfway through what is left.
		const takenMs = createdMs + plan.takenMs;
		const atMs = [createdMs, takenMs, Math.floor((takenMs + endMs) / 2)];
		stateHistory = plan.states.map((state, k) => ({
			state,
			operator_id:
				state === 'queue'
					? null
					: k === 2 && state === 'chatting'
						? random.pick(operatorIds)
						: operatorId,
			at: iso(state === 'closed' ? endMs : atMs[k]),
			department_id: state === 'queue' || random.chance(0.9) ? departmentId : null,
		}));
	}

	const rates: Rate[] = [];
	// A live chat is rated once it ends; a missed chat never was.
	if (index % 4 !== 3 && !record.live && !record.missed) {
		const count = random.int(1, 2);
		for (let r = 0; r < count; r++) {
			rates.push({
				rate: random.int(1, 5),
				operator_id: operatorId,
				created_at: iso(createdMs + plan.durationMs - 1000 * (r + 1)),
			});
		}
	}

	// Visitors with provided fields (authorized) every other chat, or as a missed chat asks; others have none (spec 2.8).
	const fields: Record<string, string> = {};
	if (record.missed ? record.missed === 'fields' : index % 2 === 0) {
		fields.id = `crm-${random.int(1, 99999)}`;
		fields.name = name;
		fields.email = email;
		if (random.chance(0.7)) fields.phone = phone;
		if (index % 4 === 0) {
			fields.login = name.split(' ')[0].toLowerCase();
			fields.profile_url = `https://crm.example/u/${fields.id}`;
			fields.site = 'shop.example';
			fields.icq = String(random.int(100000, 999999));
		}
	}

	const categoryNames = Object.keys(CATEGORIES);
	const category = index % 3 === 1 ? null : random.pick(categoryNames);
	const chat: Chat = {
		id: record.id,
		created_at: iso(createdMs),
		category,
		subcategory: category === null ? null : random.pick(CATEGORIES[category]),
		operator_id: operatorId,
		rates: [...rates, ...record.extraRates.map((rate) => ({ ...rate }))],
		messages: [...messages, ...record.extraMessages.map((message) => structuredClone(message))],
		state_history:
			stateHistory === null && record.extraStates.length === 0
				? null
				: [...(stateHistory ?? []), ...record.extraStates.map((s) => ({ ...s }))],
		visitor: { id: `v-${random.hex(12)}`, fields },
		...(record.regular === undefined ? {} : regularVisitor(record.regular)),
		visit_session: {
			ip: index % 7 === 5 ? null : `203.0.113.${random.int(1, 254)}`,
			landing_page: { url: index % 7 === 6 ? null : random.pick(PAGES) },
		},
		start_page: { url: random.pick(PAGES) },
	};
	// operator_comment is present only where the function is enabled (spec 2.4): a string, a null, or absent.
	if (index % 6 === 0) chat.operator_comment = 'Customer asked for a call back tomorrow.';
	else if (index % 6 === 3) chat.operator_comment = null;
	return chat;
}

/**
 * `${id}:${messages.length}:${state_history.length}`; identifies one version of a chat. A rating adds neither, so a
 * rated version repeats the fingerprint of the version before it.
 */
export function fingerprint(chat: Pick<Chat, 'id' | 'messages' | 'state_history'>): string {
	return `${chat.id}:${chat.messages?.length ?? 0}:${chat.state_history?.length ?? 0}`;
}

/** The fingerprint of a record's current version, without building the chat. */
export function recordFingerprint(record: ChatRecord): string {
	const states = Math.max(record.baseStateCount, 0) + record.extraStates.length;
	return `${record.id}:${record.baseMessageCount + record.extraMessages.length}:${states}`;
}

/** The regular visitor, every other time with its site's id, with the e-mail and phone written two ways. */
function regularVisitor(place: number): Pick<Chat, 'visitor'> {
	const { id, siteId, name, emails, phones } = REGULAR_VISITOR;
	const fields = { name, email: emails[place % 2], phone: phones[place % 2] };
	return { visitor: { id, fields: place % 2 ? fields : { ...fields, id: siteId } } };
}
