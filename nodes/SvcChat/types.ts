// The Svc Integration API v2 data shapes, transcribed from spec section 2; unknown kinds and fields pass through.
import type { IDataObject } from 'n8n-workflow';

/** 2.2 */
export interface Operator extends IDataObject {
	id: number;
	email: string;
	full_name: string;
	status: string;
	roles: string[];
	created_at: string;
}

/** 2.3 */
export interface Department extends IDataObject {
	id: number;
	name: string;
	order: number;
}

/** 2.5: `message` is an object for kind `contacts`; `data` varies by kind (files, keyboards). */
export interface ChatMessage extends IDataObject {
	id: string;
	created_at: string;
	kind: string;
	message?: string | { name?: string; phone?: string; email?: string };
	operator_id?: number;
	data?: IDataObject;
}

/** 2.6 */
export interface StateEntry extends IDataObject {
	state: string;
	operator_id: number | null;
	at: string;
	department_id: number | null;
}

/** 2.7 */
export interface Rate extends IDataObject {
	rate: number;
	operator_id: number;
	created_at: string;
}

/** 2.4 with 2.8 and 2.9 inline. In lists a chat may carry only id and created_at, so the rest is optional. */
export interface Chat extends IDataObject {
	id: number | string;
	created_at: string;
	category?: string | null;
	subcategory?: string | null;
	operator_id?: number;
	operator_comment?: string | null;
	rates?: Rate[];
	messages?: ChatMessage[];
	state_history?: StateEntry[] | null;
	visitor?: { id: string; fields?: Record<string, string> };
	visit_session?: { ip?: string | null; landing_page?: { url?: string | null } | null };
	start_page?: { url?: string } | null;
}

/** 4.6: `last_ts` comes as a number or a string; it is passed back exactly as received. */
export type Cursor = number | string;

export interface ChatsReply {
	chats: Chat[];
	more_chats_available: boolean;
	last_ts: Cursor;
}

/** A /chats reply as the transport lets it through: last_ts may be absent or null (judged by transport/chats.ts). */
export type ChatsReplyAsSent = Omit<ChatsReply, 'last_ts'> & { last_ts?: Cursor | null };

/** 2.10 */
export interface Tariff extends IDataObject {
	key: string;
	name: string;
	description: string;
	discounts: Record<string, number> | null;
	partner_prices: { per_operator_price: number; base_price: number };
	public_prices: { per_operator_price: number; base_price: number };
}

/** 2.11 */
export interface UsageStats extends IDataObject {
	contacts: number;
	missed: number;
	chats: number;
	offlines: number;
	avg_waiting_time: number;
}

/** 2.12 (`chating_time` is the API's own spelling) */
export interface OperatorStatsRow extends IDataObject {
	operator_id: number;
	online_time: number;
	chating_time: number;
	avg_chating_time: number;
	busy_messages: number;
	chats: number;
}

/** 4.3 entry of `data.data.entries`: `body` is one template part or a list of them */
export interface BroadcastEntry extends IDataObject {
	phone_number: string;
	language_code: string;
	body?: TemplatePart | TemplatePart[];
}

interface TemplatePart extends IDataObject {
	type: 'header' | 'body' | 'footer';
	parameters: IDataObject[];
}

/** 4.1 to 4.3: the reply of every real-time command that succeeded. */
export type RealTimeReply = { result: 'ok' };
