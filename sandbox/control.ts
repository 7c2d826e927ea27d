// The test-only control surface: the same operations in process (SandboxControl) and over HTTP under /__control/.
import type { Chat, Operator } from '../nodes/SvcChat/types';
import { fingerprint, type MissedContact } from './data';
import { FaultInjector, type FaultSpec } from './faults';
import {
	ChatNotFoundError,
	type BroadcastRecord,
	type RecentChat,
	type RequestLogEntry,
	type SandboxSettings,
	type SandboxState,
} from './state';

export interface SandboxControl {
	/** Back to the seeded state; also clears faults, recorded broadcasts, pairings, lockouts and logs. */
	reset(): void;
	/** New chats, going on: begun 20 minutes ago, their latest message now at the latest, not closed, the latest change. */
	addChats(n: number): Chat[];
	/** Appends one visitor or operator message (a new version, redelivered by /chats). Throws for an unknown id. */
	updateChat(id: number | string): Chat;
	/** Appends a `closed` state_history entry (a new version). Throws for an unknown id. */
	closeChat(id: number | string): Chat;
	/** Appends a rating, 1 to 5, by the chat's operator and now unless given (a new version). Throws for an unknown id. */
	rateChat(
		id: number | string,
		rating: { rate: number; operator_id?: number; created_at?: string },
	): Chat;
	/** A new chat whose visitor wrote and waits in the queue; with `id`, that chat's visitor writes again. */
	visitorWaits(id?: number | string): Chat;
	/** An operator's answer now, and the chat's state `chatting`. Throws for an unknown id. */
	answerChat(id: number | string): Chat;
	/** A new chat, closed, that no operator answered; the visitor's contact in its fields (default), a message, or none. */
	addMissedChat(contact?: MissedContact): Chat;
	/** n random update/close mutations, deterministic from the seed. */
	mutateRandomChats(n: number): Chat[];
	getChat(id: number | string): Chat | undefined;
	/** The n (default 10) chats changed last, the latest first: id, created_at and latest state. */
	recentChats(n?: number): RecentChat[];
	chatCount(): number;
	/** `${id}:${messages.length}:${state_history.length}`: identifies a version. */
	fingerprint(chat: Chat): string;
	/** The fingerprint of every chat version that existed since reset, initial versions included. */
	allVersions(): string[];
	/** The regular visitor's chats (option regularVisitor) with their change cursors, as /chats orders them. */
	regularVisitorChats(): Array<{ chat: Chat; last_ts: number }>;
	/** The cursor of the latest change: what /chats gives as last_ts once everything was read. */
	latestCursor(): number;
	/** Sets the status of the operator with this id or e-mail. */
	setOperatorStatus(who: number | string, status: string): Operator;
	getOperators(): Operator[];
	/** A new operator with the next free id (status offline and role operator unless given). */
	addOperator(fields: {
		email: string;
		full_name?: string;
		status?: string;
		roles?: string[];
	}): Operator;
	/** Stops a cycle and puts the seeded operators back in their seeded statuses. */
	restoreOperators(): Operator[];
	/** Removes the operator with this id or e-mail from GET /operators. */
	removeOperator(who: number | string): Operator;
	/**
	 * Moves every operator (or those named by id or e-mail) to the status after its own in `statuses`, once now; with
	 * `everyMs`, again every everyMs until a cycle with everyMs 0, a reset or stop().
	 */
	cycleOperators(cycle: {
		statuses: string[];
		operators?: Array<number | string>;
		everyMs?: number;
	}): Operator[];
	setSettings(partial: Partial<SandboxSettings>): SandboxSettings;
	getSettings(): SandboxSettings;
	/** Every accepted send_broadcast with its full request data. */
	broadcasts(): BroadcastRecord[];
	/** token -> visitor_fields currently stored. */
	pairings(): Record<string, Record<string, string>>;
	injectFault(fault: FaultSpec): void;
	clearFaults(): void;
	/** Every API request (not control routes), in order. */
	requestLog(): RequestLogEntry[];
	/** The failed logins of an e-mail (any case) within the lockout window now, and whether it is locked out. */
	failedLogins(email: string): { email: string; failures: number; locked: boolean };
	/**
	 * Changes an operator's password, as an admin rotating it does: the old one is refused from the next login; with
	 * `afterNextLogin`, right after the next API request whose login is accepted (its reply still to come, as a change
	 * that lands mid-burst).
	 */
	setPassword(email: string, password: string, afterNextLogin?: boolean): { email: string };
}

/** `timers`: the sandbox's timers, which stop() clears; the operator cycle's is one of them. */
export function createControl(
	state: SandboxState,
	faults: FaultInjector,
	timers: Set<NodeJS.Timeout>,
): SandboxControl {
	let cycleTimer: NodeJS.Timeout | undefined;
	const stopCycle = () => {
		if (cycleTimer) timers.delete(cycleTimer);
		clearInterval(cycleTimer);
		cycleTimer = undefined;
	};
	return {
		reset: () => {
			stopCycle();
			state.reset();
			faults.clear();
		},
		addChats: (n) => state.addChats(requireCount(n)),
		updateChat: (id) => state.updateChat(id),
		closeChat: (id) => state.closeChat(id),
		rateChat: (id, rating) => state.rateChat(id, rating),
		visitorWaits: (id) => state.visitorWaits(id),
		answerChat: (id) => state.answerChat(id),
		addMissedChat: (contact = 'fields') => state.addChats(1, contact)[0],
		mutateRandomChats: (n) => state.mutateRandomChats(requireCount(n)),
		getChat: (id) => state.getChat(id),
		recentChats: (n = 10) => state.recentChats(requireCount(n)),
		chatCount: () => state.chatCount(),
		fingerprint: (chat) => fingerprint(chat),
		allVersions: () => state.allVersions(),
		latestCursor: () => state.latestTs(),
		regularVisitorChats: () => state.regularChats(),
		setOperatorStatus: (who, status) => {
			if (typeof status !== 'string' || status === '')
				throw new Error('status must be a non-empty string');
			return state.setOperatorStatus(who, status);
		},
		getOperators: () => state.publicOperators(),
		addOperator: (fields) => state.addOperator(fields),
		removeOperator: (who) => state.removeOperator(who),
		restoreOperators: () => (stopCycle(), state.restoreOperatorStatuses()),
		cycleOperators: ({ statuses, operators, everyMs = 0 }) => {
			if (
				!Array.isArray(statuses) ||
				!statuses.length ||
				statuses.some((one) => !one || typeof one !== 'string')
			)
				throw new Error('statuses must be a list of non-empty strings');
			if (!Number.isInteger(everyMs) || everyMs < 0)
				throw new Error('everyMs must be a non-negative integer');
			stopCycle();
			const moved = state.cycleOperators(statuses, operators);
			if (everyMs > 0) {
				cycleTimer = setInterval(() => state.cycleOperators(statuses, operators), everyMs);
				// A running cycle never keeps a test process or the CLI alive on its own.
				cycleTimer.unref();
				timers.add(cycleTimer);
			}
			return moved;
		},
		setSettings: (partial) => state.setSettings(partial),
		getSettings: () => structuredClone(state.settings),
		broadcasts: () => structuredClone(state.broadcasts),
		pairings: () =>
			Object.fromEntries([...state.pairings].map(([token, fields]) => [token, { ...fields }])),
		injectFault: (fault) => faults.inject(fault),
		clearFaults: () => faults.clear(),
		requestLog: () => state.requestLog.map((entry) => ({ ...entry, query: { ...entry.query } })),
		failedLogins: (email) => {
			if (typeof email !== 'string' || !email) throw new Error('email must be a non-empty string');
			const since = state.now().getTime() - state.settings.lockoutWindowMs;
			const failures = (state.failedLogins.get(email.toLowerCase()) ?? []).filter(
				(at) => at > since,
			).length;
			return { email, failures, locked: failures >= state.settings.lockoutThreshold };
		},
		setPassword: (email, password, afterNextLogin = false) => {
			const operator = state.findOperator(String(email));
			if (!operator) throw new Error(`No operator with the e-mail ${String(email)}`);
			if (typeof password !== 'string' || !password)
				throw new Error('password must be a non-empty string');
			if (typeof afterNextLogin !== 'boolean')
				throw new Error('afterNextLogin must be true or false');
			const change = () => (operator.password = password);
			if (afterNextLogin) state.afterNextLogin = change;
			else change();
			return { email: operator.email };
		},
	};
}

function requireCount(n: unknown): number {
	if (!Number.isInteger(n) || (n as number) < 0)
		throw new Error('n must be a non-negative integer');
	return n as number;
}

export const CONTROL_PREFIX = '/__control/';

export interface ControlReply {
	status: number;
	body: unknown;
}

type Route = (input: { body: Record<string, unknown>; query: URLSearchParams }) => unknown;

/** The HTTP control routes: JSON in, JSON out, no auth (the sandbox listens on loopback only). See README.md. */
function routes(control: SandboxControl): Record<string, Route> {
	return {
		'POST reset': () => (control.reset(), { result: 'ok' }),
		'POST chats/add': ({ body }) => control.addChats(body.n as number),
		'POST chats/update': ({ body }) => control.updateChat(body.id as string),
		'POST chats/close': ({ body }) => control.closeChat(body.id as string),
		'POST chats/rate': ({ body }) =>
			control.rateChat(body.id as string, body as Parameters<SandboxControl['rateChat']>[1]),
		'POST chats/missed': ({ body }) => control.addMissedChat(body.contact as MissedContact),
		'POST chats/wait': ({ body }) => control.visitorWaits(body.id as string | undefined),
		'POST chats/answer': ({ body }) => control.answerChat(body.id as string),
		'POST chats/mutate': ({ body }) => control.mutateRandomChats(body.n as number),
		'GET chat': ({ query }) => {
			const chat = control.getChat(query.get('id') ?? '');
			if (!chat) throw new ChatNotFoundError(query.get('id'));
			return chat;
		},
		'GET chats/count': () => ({ count: control.chatCount() }),
		'GET chats/recent': ({ query }) => control.recentChats(Number(query.get('n') ?? 10)),
		'POST fingerprint': ({ body }) => ({
			fingerprint: control.fingerprint(body as unknown as Chat),
		}),
		'GET versions': () => control.allVersions(),
		'GET cursor': () => ({ last_ts: control.latestCursor() }),
		'GET chats/regular': () => control.regularVisitorChats(),
		'GET operators': () => control.getOperators(),
		'POST operators/status': ({ body }) =>
			control.setOperatorStatus((body.id ?? body.email) as string, body.status as string),
		'POST operators/add': ({ body }) =>
			control.addOperator(body as Parameters<SandboxControl['addOperator']>[0]),
		'POST operators/restore': () => control.restoreOperators(),
		'POST operators/remove': ({ body }) =>
			control.removeOperator((body.id ?? body.email) as string),
		'POST operators/cycle': ({ body }) =>
			control.cycleOperators(body as Parameters<SandboxControl['cycleOperators']>[0]),
		'GET settings': () => control.getSettings(),
		'POST settings': ({ body }) => control.setSettings(body),
		'GET broadcasts': () => control.broadcasts(),
		'GET pairings': () => control.pairings(),
		'POST faults': ({ body }) => (
			control.injectFault(body as unknown as FaultSpec),
			{ result: 'ok' }
		),
		'DELETE faults': () => (control.clearFaults(), { result: 'ok' }),
		'POST faults/clear': () => (control.clearFaults(), { result: 'ok' }),
		'GET requests': () => control.requestLog(),
		'GET logins/failed': ({ query }) => control.failedLogins(query.get('email') ?? ''),
		'POST operators/password': ({ body }) =>
			control.setPassword(
				body.email as string,
				body.password as string,
				body.afterNextLogin as boolean | undefined,
			),
	};
}

export function createControlHandler(control: SandboxControl) {
	const table = routes(control);
	return (method: string, path: string, query: URLSearchParams, rawBody: string): ControlReply => {
		const route = table[`${method} ${path.slice(CONTROL_PREFIX.length)}`];
		if (!route)
			return {
				status: 404,
				body: { error: `No control route ${method} ${path}`, routes: Object.keys(table) },
			};
		let body: Record<string, unknown> = {};
		if (rawBody.trim() !== '') {
			try {
				body = JSON.parse(rawBody);
			} catch {
				return { status: 400, body: { error: 'The control request body is not valid JSON' } };
			}
		}
		try {
			return { status: 200, body: route({ body, query }) };
		} catch (error) {
			const message = error instanceof Error ? error.message : String(error);
			return { status: error instanceof ChatNotFoundError ? 404 : 400, body: { error: message } };
		}
	};
}
