// The sandbox's in-memory state: chats with their append-only change log, operators, settings and what was recorded.
import type { Chat, ChatMessage, Operator } from '../nodes/SvcChat/types';
import {
	buildChat,
	newChatRecord,
	recordFingerprint,
	seededCreatedMs,
	OPERATOR_PASSWORD,
	seedOperators,
	SEEN_STATUSES,
	type ChatRecord,
	type MissedContact,
	type SeedOperator,
	MISSED_CONTACTS,
	REGULAR_VISITOR_AGES_H,
	regularChatIndex,
} from './data';
import { Random } from './random';

/** Settings a test may change at run time (control `setSettings`). */
export interface SandboxSettings {
	/** false: every API call answers `no-tariff-option` (spec 7.4, 5.2). */
	apiAccess: boolean;
	/** Statuses the account's tariff permits; others give `agent-status-not-allowed`. */
	allowedStatuses: string[];
	/** UTC window in which operators may go online; outside it `not-in-allowed-online-time`. null: always. */
	allowedOnlineTime: { from: string; to: string } | null;
	/** /chats `last_ts` as a string instead of a number (the spec shows both). */
	lastTsAsString: boolean;
	/** Failed logins per e-mail within the window after which every attempt gets 403. */
	lockoutThreshold: number;
	lockoutWindowMs: number;
	/**
	 * Spec 2.4: "in lists a chat may appear with only id and created_at". When true, every 7th chat of a /chats
	 * reply is sent that way (GET /chat still gives it whole). Off by default.
	 */
	minimalChatsInLists: boolean | number;
	/**
	 * Not shown in the spec: several changes may share a microsecond. When true, up to TIE_SIZE changes in a row get
	 * the same timestamp (seeded chats in threes, later changes whenever the clock allows). Off by default.
	 */
	equalTimestamps: boolean;
	/**
	 * Not shown in the spec: last_ts of a reply with no chats. 'latest' (default): the latest change's cursor;
	 * 'zero': 0; 'null': null; 'missing': no last_ts member; 'since': the `since` sent.
	 */
	emptyPageLastTs: EmptyPageLastTs;
	/** Spec 4: real-time commands take a JSON body; when true (default) a body not sent as application/json is refused. */
	requireJsonContentType: boolean;
	/** Not shown in the spec: the `error` code GET /chat gives for an id it does not have ('chat-not-found' by default). */
	unknownChatError: string;
	/** API replies carry a `Date` header from the sandbox's clock (default true); false sends none. */
	dateHeader: boolean;
	/** Each API reply is sent this many ms after the request was read and its login checked (a slow server; 0 default). */
	replyDelayMs: number;
}

const EMPTY_PAGE_LAST_TS = ['latest', 'zero', 'null', 'missing', 'since'] as const;
type EmptyPageLastTs = (typeof EMPTY_PAGE_LAST_TS)[number];

/** With equalTimestamps, at most this many changes share one microsecond (always far fewer than a page). */
const TIE_SIZE = 3;

export interface BroadcastRecord {
	at: string;
	operator_id: number;
	kind: string;
	channel_id: string;
	/** The request's `data.data`, exactly as sent. */
	data: Record<string, unknown>;
	/** The entries' phone numbers registered with the messaging application (history-chats: none). */
	delivered_to: string[];
}

export interface RequestLogEntry {
	method: string;
	path: string;
	query: Record<string, string>;
	/** 0 when the connection was reset without a reply. */
	status: number;
	fault?: string;
}

export interface StateOptions {
	seed: number;
	chats: number;
	admin: { email: string; password: string };
	now: () => Date;
	settings: SandboxSettings;
	/** Gives REGULAR_VISITOR the seeded chats of REGULAR_VISITOR_AGES_H. */
	regularVisitor?: boolean;
}

/** A chat as the control route chats/recent lists it. */
export interface RecentChat {
	id: number | string;
	created_at: string;
	state: string | null;
}

export interface ChatsPage {
	chats: Chat[];
	more: boolean;
	lastTs: number;
}

const MAX_CHATS_PER_REPLY = 100;

export class SandboxState {
	readonly seed: number;
	/** Seeded chats lie in the 30 days before this instant; fixed at start so that reset() restores the same data. */
	readonly anchorMs: number;
	settings!: SandboxSettings;
	operators!: SeedOperator[];
	pairings!: Map<string, Record<string, string>>;
	broadcasts!: BroadcastRecord[];
	requestLog!: RequestLogEntry[];
	/** Failed login times per lower-cased e-mail. */
	failedLogins!: Map<string, number[]>;
	/** Done once, right after the next API request whose login is accepted (control setPassword's `afterNextLogin`). */
	afterNextLogin?: () => void;

	private records!: ChatRecord[];
	private byId!: Map<string, ChatRecord>;
	// The change log: entry i says chat records[logIndex[i]] changed at logTs[i]; strictly increasing ts.
	private logTs!: number[];
	private logIndex!: number[];
	/** Fingerprints of the versions made since reset (the initial ones are derived from the records). */
	private laterVersions!: string[];
	private initialVersionCount!: number;
	private mutationRandom!: Random;
	/** The seeded operators' ids, which chats are built with: adding or removing an operator changes no chat. */
	private chatOperatorIds!: number[];

	constructor(private readonly options: StateOptions) {
		this.seed = options.seed;
		this.anchorMs = options.now().getTime();
		this.reset();
	}

	now(): Date {
		return this.options.now();
	}

	/** Back to the seeded state: chats, operators, settings, and nothing recorded. */
	reset(): void {
		const { seed, chats: count } = this.options;
		this.settings = structuredClone(this.options.settings);
		this.operators = seedOperators(Random.of(seed, 0, 7), this.options.admin);
		this.chatOperatorIds = this.operators.map((operator) => operator.id);
		this.pairings = new Map();
		this.broadcasts = [];
		this.requestLog = [];
		this.failedLogins = new Map();
		this.afterNextLogin = undefined;
		this.laterVersions = [];
		this.mutationRandom = Random.of(seed, 0, 11);

		this.records = new Array<ChatRecord>(count);
		this.byId = new Map();
		const firstTs = new Array<number>(count);
		for (let index = 0; index < count; index++) {
			const record = newChatRecord(seed, index, seededCreatedMs(seed, index, count, this.anchorMs));
			this.records[index] = record;
			this.byId.set(String(record.id), record);
			// A chat's first version appears in the log when its last message was written; sub-ms jitter spreads ties.
			firstTs[index] =
				(record.createdMs + record.durationMs) * 1000 + Random.of(seed, index, 4).int(0, 999);
		}
		if (this.options.regularVisitor)
			for (const [place, ageH] of REGULAR_VISITOR_AGES_H.entries())
				if (count) this.records[regularChatIndex(ageH, count)].regular = place;
		const order = Array.from({ length: count }, (_, i) => i).sort(
			(a, b) => firstTs[a] - firstTs[b] || a - b,
		);
		this.logTs = [];
		this.logIndex = [];
		let previous = 0;
		for (const [position, index] of order.entries()) {
			// Strictly increasing by default. With equalTimestamps, changes come in groups of TIE_SIZE sharing one cursor.
			const tied = this.settings.equalTimestamps && position % TIE_SIZE !== 0;
			const ts = tied ? previous : Math.max(firstTs[index], previous + 1);
			this.logTs.push(ts);
			this.logIndex.push(index);
			this.records[index].lastTs = ts;
			previous = ts;
		}
		this.initialVersionCount = count;
	}

	// ----- chats -----

	chatCount(): number {
		return this.records.length;
	}

	findRecord(id: unknown): ChatRecord | undefined {
		return this.byId.get(String(id));
	}

	getChat(id: unknown): Chat | undefined {
		const record = this.findRecord(id);
		return record ? this.build(record) : undefined;
	}

	/** The n chats changed last, the latest first: id, creation and latest state (for people picking a chat id). */
	recentChats(n: number): RecentChat[] {
		const indexes = new Set<number>();
		for (let i = this.logIndex.length - 1; i >= 0 && indexes.size < n; i--)
			indexes.add(this.logIndex[i]);
		return [...indexes].map((index) => {
			const { id, created_at, state_history } = this.build(this.records[index]);
			return { id, created_at, state: state_history?.at(-1)?.state ?? null };
		});
	}

	private build(record: ChatRecord): Chat {
		return buildChat(this.seed, record, this.chatOperatorIds);
	}

	/** The chats created in [fromMs, toMs), as GET /chat gives them: what a day's statistics are made of. */
	chatsCreatedBetween(fromMs: number, toMs: number): Chat[] {
		const created = this.records.filter(({ createdMs }) => createdMs >= fromMs && createdMs < toMs);
		return created.map((record) => this.build(record));
	}

	/** The regular visitor's chats (option regularVisitor) and their change cursors, in the order /chats gives them. */
	regularChats(): Array<{ chat: Chat; last_ts: number }> {
		const records = this.records.filter((record) => record.regular !== undefined);
		records.sort((a, b) => a.lastTs - b.lastTs);
		return records.map((record) => ({ chat: this.build(record), last_ts: record.lastTs }));
	}

	/** The cursor of the latest change (0 when there are no chats). */
	latestTs(): number {
		return this.logTs.length ? this.logTs[this.logTs.length - 1] : 0;
	}

	/**
	 * A change timestamp from the clock, in microseconds, strictly after every earlier change; with equalTimestamps,
	 * equal to the latest one while that microsecond holds fewer than TIE_SIZE changes and the clock has not moved on.
	 */
	private nextTs(): number {
		const latest = this.latestTs();
		const clock = this.now().getTime() * 1000;
		if (this.settings.equalTimestamps && clock <= latest && this.changesAt(latest) < TIE_SIZE)
			return latest;
		return Math.max(clock, latest + 1);
	}

	/** How many log entries, at the end of the log, carry this timestamp. */
	private changesAt(ts: number): number {
		let count = 0;
		for (let i = this.logTs.length - 1; i >= 0 && this.logTs[i] === ts; i--) count++;
		return count;
	}

	/** Whether a list entry goes out as `{id, created_at}` under minimalChatsInLists (true: every 7th; a number: that percent). */
	private sentMinimal(record: ChatRecord): boolean {
		const share = this.settings.minimalChatsInLists;
		if (share === true) return record.index % 7 === 0;
		// 37 is coprime with 100, so the chosen indexes spread evenly rather than in one block.
		return typeof share === 'number' && (record.index * 37) % 100 < share;
	}

	private recordChange(record: ChatRecord): Chat {
		const ts = this.nextTs();
		this.logTs.push(ts);
		this.logIndex.push(record.index);
		record.lastTs = ts;
		this.laterVersions.push(recordFingerprint(record));
		return this.build(record);
	}

	/** n new chats; `missed`: each closed without an operator's answer, the visitor's contact where it says. */
	addChats(n: number, missed?: MissedContact): Chat[] {
		if (missed !== undefined && !MISSED_CONTACTS.includes(missed))
			throw new Error(`contact must be one of ${MISSED_CONTACTS.join(', ')}`);
		const added: Chat[] = [];
		for (let i = 0; i < n; i++) {
			const index = this.records.length;
			// A missed chat has just ended; any other is going on (live), its latest message now: no time in the future.
			const startMs =
				this.now().getTime() - newChatRecord(this.seed, index, 0, !missed, missed).durationMs;
			const record = newChatRecord(this.seed, index, startMs, !missed, missed);
			if (this.byId.has(String(record.id))) throw new Error(`Chat id ${record.id} already exists`);
			this.records.push(record);
			this.byId.set(String(record.id), record);
			added.push(this.recordChange(record));
		}
		return added;
	}

	private requireRecord(id: unknown): ChatRecord {
		const record = this.findRecord(id);
		if (!record) throw new ChatNotFoundError(id);
		return record;
	}

	/** Appends one message, visitor and operator in turn; a new version of the chat. */
	updateChat(id: unknown): Chat {
		const record = this.requireRecord(id);
		const count = record.baseMessageCount + record.extraMessages.length;
		const fromVisitor = record.extraMessages.length % 2 === 0;
		const chatOperator = this.build(record).operator_id as number;
		const message: ChatMessage = {
			id: `${record.id}-m${count}`,
			created_at: this.now().toISOString(),
			kind: fromVisitor ? 'visitor' : 'operator',
			message: fromVisitor
				? `Follow-up question #${record.extraMessages.length + 1}`
				: `Follow-up answer #${record.extraMessages.length + 1}`,
		};
		if (!fromVisitor) message.operator_id = chatOperator;
		record.extraMessages.push(message);
		return this.recordChange(record);
	}

	/** A new chat whose visitor wrote and waits in the queue; with `id`, that chat's visitor writes again. */
	visitorWaits(id?: unknown): Chat {
		if (id === undefined) {
			const record = newChatRecord(this.seed, this.records.length, this.now().getTime(), 'waiting');
			if (this.byId.has(String(record.id))) throw new Error(`Chat id ${record.id} already exists`);
			this.records.push(record);
			this.byId.set(String(record.id), record);
			return this.recordChange(record);
		}
		const record = this.requireRecord(id);
		const count = record.baseMessageCount + record.extraMessages.length;
		const message = 'Is anybody there?';
		const at = this.now().toISOString();
		record.extraMessages.push({
			id: `${record.id}-m${count}`,
			created_at: at,
			kind: 'visitor',
			message,
		});
		return this.recordChange(record);
	}

	/** An operator's answer (by the chat's operator, now), and a `chatting` state with that operator. */
	answerChat(id: unknown): Chat {
		const record = this.requireRecord(id);
		const chat = this.build(record);
		const [count, at] = [chat.messages?.length ?? 0, this.now().toISOString()];
		const operator_id = chat.operator_id as number;
		record.extraMessages.push({
			id: `${record.id}-m${count}`,
			created_at: at,
			kind: 'operator',
			message: 'Hello! Sorry for the wait, how can I help?',
			operator_id,
		});
		const department_id = chat.state_history?.at(-1)?.department_id ?? null;
		record.extraStates.push({ state: 'chatting', operator_id, at, department_id });
		return this.recordChange(record);
	}

	/** Appends a `closed` state entry; a new version of the chat (closing twice repeats the state, as spec 3 allows). */
	closeChat(id: unknown): Chat {
		const record = this.requireRecord(id);
		const chat = this.build(record);
		const last = chat.state_history?.[chat.state_history.length - 1];
		record.extraStates.push({
			state: 'closed',
			operator_id: (chat.operator_id as number | undefined) ?? null,
			at: this.now().toISOString(),
			department_id: last?.department_id ?? null,
		});
		return this.recordChange(record);
	}

	/** Appends a rating (spec 2.7: 1 to 5), by the chat's operator and now unless given; a new version of the chat. */
	rateChat(
		id: unknown,
		rating: { rate: unknown; operator_id?: unknown; created_at?: unknown },
	): Chat {
		const record = this.requireRecord(id);
		const { rate, operator_id = this.build(record).operator_id, created_at } = rating;
		if (!Number.isInteger(rate) || (rate as number) < 1 || (rate as number) > 5)
			throw new Error('rate must be a whole number from 1 to 5');
		if (!Number.isInteger(operator_id)) throw new Error('operator_id must be a whole number');
		if (created_at !== undefined && typeof created_at !== 'string')
			throw new Error('created_at must be a date-time text');
		record.extraRates.push({
			rate: rate as number,
			operator_id: operator_id as number,
			created_at: created_at ?? this.now().toISOString(),
		});
		return this.recordChange(record);
	}

	/** n random updates (70 %) or closes (30 %), deterministic from the seed since the last reset. */
	mutateRandomChats(n: number): Chat[] {
		const changed: Chat[] = [];
		for (let i = 0; i < n && this.records.length > 0; i++) {
			const record = this.records[Math.floor(this.mutationRandom.next() * this.records.length)];
			changed.push(
				this.mutationRandom.chance(0.7) ? this.updateChat(record.id) : this.closeChat(record.id),
			);
		}
		return changed;
	}

	/** Every version that existed since reset: each chat's first version, then each change. */
	allVersions(): string[] {
		const versions: string[] = [];
		for (let index = 0; index < this.initialVersionCount; index++) {
			const record = this.records[index];
			const states = record.baseStateCount < 0 ? 0 : record.baseStateCount;
			versions.push(`${record.id}:${record.baseMessageCount}:${states}`);
		}
		return versions.concat(this.laterVersions);
	}

	/**
	 * Spec 4.6: the chats changed after `since`, at most 100, each in its latest version. A log entry older than its
	 * chat's latest change is stale and skipped: that chat comes later, at its newer entry (rule 4: redelivery).
	 */
	chatsSince(since: number): ChatsPage {
		let low = 0;
		let high = this.logTs.length;
		while (low < high) {
			const mid = (low + high) >>> 1;
			if (this.logTs[mid] <= since) low = mid + 1;
			else high = mid;
		}
		const chats: Chat[] = [];
		let position = low;
		let lastTs: number | undefined;
		while (position < this.logTs.length && chats.length < MAX_CHATS_PER_REPLY) {
			const record = this.records[this.logIndex[position]];
			const ts = this.logTs[position++];
			lastTs = ts;
			if (record.lastTs !== ts) continue;
			const chat = this.build(record);
			chats.push(this.sentMinimal(record) ? { id: chat.id, created_at: chat.created_at } : chat);
		}
		// With equalTimestamps a page never ends inside a microsecond: if the next change shares the last one's, last_ts
		// is one microsecond earlier, so that microsecond comes again whole (its chats sent here come twice). A server
		// that ended the page at that microsecond would lose the rest of it for every client that follows spec 4.6.
		if (
			lastTs !== undefined &&
			position < this.logTs.length &&
			this.logTs[position] === lastTs &&
			lastTs - 1 > since
		) {
			lastTs -= 1;
		}
		let more = false;
		for (let ahead = position; ahead < this.logTs.length; ahead++) {
			if (this.records[this.logIndex[ahead]].lastTs === this.logTs[ahead]) {
				more = true;
				break;
			}
		}
		// Nothing after `since` (not shown in the spec): answer the latest change's cursor. It is never ahead of the
		// server, so a client whose clock or cursor ran ahead is brought back and misses no later change.
		return { chats, more, lastTs: lastTs ?? this.latestTs() };
	}

	// ----- operators -----

	findOperator(email: string): SeedOperator | undefined {
		const wanted = email.toLowerCase();
		return this.operators.find((operator) => operator.email.toLowerCase() === wanted);
	}

	/** The operators as the API shows them (spec 2.2), without passwords. */
	publicOperators(): Operator[] {
		return this.operators.map((seeded) => {
			const operator: Partial<SeedOperator> = structuredClone(seeded);
			delete operator.password;
			return operator as Operator;
		});
	}

	/** The operator with this id (a number, or digits as text) or e-mail (any case); throws when there is none. */
	private operatorOf(who: unknown): SeedOperator {
		const operator =
			typeof who === 'string' && who.includes('@')
				? this.findOperator(who)
				: this.operators.find((candidate) => String(candidate.id) === String(who));
		if (!operator) throw new Error(`No operator has the id or e-mail ${JSON.stringify(who)}`);
		return operator;
	}

	setOperatorStatus(who: unknown, status: string): Operator {
		const operator = this.operatorOf(who);
		operator.status = status;
		return this.publicOperators().find((shown) => shown.id === operator.id) as Operator;
	}

	/** A new operator (the next free id, `operator-password`); the e-mail must be free. */
	addOperator(fields: {
		email: string;
		full_name?: string;
		status?: string;
		roles?: string[];
	}): Operator {
		if (
			typeof fields.email !== 'string' ||
			!fields.email.includes('@') ||
			this.findOperator(fields.email)
		)
			throw new Error('email must be an e-mail no other operator has');
		const id = Math.max(0, ...this.operators.map((operator) => operator.id)) + 1;
		this.operators.push({
			id,
			email: fields.email,
			full_name: fields.full_name ?? fields.email,
			status: fields.status ?? 'offline',
			roles: fields.roles ?? ['operator'],
			created_at: this.now().toISOString(),
			password: OPERATOR_PASSWORD,
		});
		return this.publicOperators().find((shown) => shown.id === id) as Operator;
	}

	/** Removes an operator from GET /operators; their chats keep their operator_id. */
	removeOperator(who: unknown): Operator {
		const operator = this.operatorOf(who);
		const [shown] = this.publicOperators().filter((candidate) => candidate.id === operator.id);
		this.operators = this.operators.filter((candidate) => candidate !== operator);
		return shown;
	}

	/** The seeded operators still listed back in their seeded statuses: the undo of status changes and cycles. */
	restoreOperatorStatuses(): Operator[] {
		const seeded = seedOperators(Random.of(this.options.seed, 0, 7), this.options.admin);
		for (const operator of this.operators)
			operator.status = seeded.find(({ id }) => id === operator.id)?.status ?? operator.status;
		return this.publicOperators();
	}

	/** Every operator (or those named) moves to the status after its own in `statuses` (the first if not in it). */
	cycleOperators(statuses: string[], who?: unknown[]): Operator[] {
		const chosen = who === undefined ? this.operators : who.map((one) => this.operatorOf(one));
		for (const operator of chosen)
			operator.status = statuses[(statuses.indexOf(operator.status) + 1) % statuses.length];
		return this.publicOperators();
	}

	// ----- settings -----

	setSettings(partial: Partial<SandboxSettings>): SandboxSettings {
		this.settings = { ...this.settings, ...validateSettings(partial) };
		return structuredClone(this.settings);
	}
}

export class ChatNotFoundError extends Error {
	constructor(id: unknown) {
		super(`No chat has the id ${JSON.stringify(id)}`);
	}
}

const HH_MM = /^([01]\d|2[0-3]):[0-5]\d$/;

/** Checks a partial settings object (it may come over HTTP); throws on anything unusable. */
export function validateSettings(partial: unknown): Partial<SandboxSettings> {
	if (typeof partial !== 'object' || partial === null || Array.isArray(partial))
		throw new Error('Settings must be an object');
	const settings = partial as Record<string, unknown>;
	const known = new Set(Object.keys(DEFAULT_SETTINGS));
	for (const key of Object.keys(settings))
		if (!known.has(key)) throw new Error(`Unknown setting ${key}`);
	for (const key of [
		'apiAccess',
		'lastTsAsString',
		'equalTimestamps',
		'requireJsonContentType',
		'dateHeader',
	]) {
		if (key in settings && typeof settings[key] !== 'boolean')
			throw new Error(`${key} must be true or false`);
	}
	if ('minimalChatsInLists' in settings) {
		const share = settings.minimalChatsInLists;
		const isPercent =
			typeof share === 'number' && Number.isFinite(share) && share >= 0 && share <= 100;
		if (typeof share !== 'boolean' && !isPercent)
			throw new Error('minimalChatsInLists must be true, false or a percent from 0 to 100');
	}
	if (
		'emptyPageLastTs' in settings &&
		!(EMPTY_PAGE_LAST_TS as readonly unknown[]).includes(settings.emptyPageLastTs)
	) {
		throw new Error(`emptyPageLastTs must be one of ${EMPTY_PAGE_LAST_TS.join(', ')}`);
	}
	if (
		'unknownChatError' in settings &&
		(typeof settings.unknownChatError !== 'string' || !settings.unknownChatError)
	)
		throw new Error('unknownChatError must be a non-empty string');
	if ('allowedStatuses' in settings) {
		const statuses = settings.allowedStatuses;
		if (!Array.isArray(statuses) || statuses.some((s) => typeof s !== 'string'))
			throw new Error('allowedStatuses must be a list of strings');
	}
	if ('allowedOnlineTime' in settings && settings.allowedOnlineTime !== null) {
		const window = settings.allowedOnlineTime as { from?: unknown; to?: unknown };
		if (
			typeof window !== 'object' ||
			!HH_MM.test(String(window.from)) ||
			!HH_MM.test(String(window.to))
		) {
			throw new Error('allowedOnlineTime must be null or { from: "HH:MM", to: "HH:MM" } (UTC)');
		}
	}
	for (const key of ['lockoutThreshold', 'lockoutWindowMs']) {
		if (key in settings && (!Number.isInteger(settings[key]) || (settings[key] as number) < 1))
			throw new Error(`${key} must be a positive integer`);
	}
	const delay = settings.replyDelayMs;
	if ('replyDelayMs' in settings && (!Number.isInteger(delay) || (delay as number) < 0))
		throw new Error('replyDelayMs must be a non-negative integer');
	return settings as Partial<SandboxSettings>;
}

export const DEFAULT_SETTINGS: SandboxSettings = {
	apiAccess: true,
	allowedStatuses: [...SEEN_STATUSES],
	allowedOnlineTime: null,
	lastTsAsString: false,
	lockoutThreshold: 5,
	lockoutWindowMs: 60_000,
	minimalChatsInLists: false,
	equalTimestamps: false,
	emptyPageLastTs: 'latest',
	requireJsonContentType: true,
	unknownChatError: 'chat-not-found',
	dateHeader: true,
	replyDelayMs: 0,
};
