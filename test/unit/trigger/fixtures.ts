// Shared fixtures for the trigger's unit tests: a poll context with real static data, chats, and nock'd /chats pages.
import { createHash } from 'node:crypto';
import nock from 'nock';
import type { IDataObject, INodeParameters, WorkflowExecuteMode } from 'n8n-workflow';

import { SvcChatTrigger } from '../../../nodes/SvcChat/SvcChatTrigger.node';
import type { Chat, Cursor } from '../../../nodes/SvcChat/types';
import { testCredentials, triggerUnderTest } from '../../harness/contexts';
import { BASE_URL, HOST, instantPauses } from '../../harness/fixtures';

export { HOST };
/** The trigger's parameters for reading the whole history and emitting every change as raw chats. */
export const fromBeginning = { startFrom: 'beginning', emit: 'everyChange', output: 'raw' };
/**
 * What the trigger records about a server (its origin) and account (lower case): the SHA-256 of both, in hex. Built
 * here from the stored format itself, not with the node's code, so a change of that format fails the tests.
 */
export const digestOf = (origin: string, account: string) =>
	createHash('sha256').update(`${origin}\n${account}`).digest('hex');
/** What the trigger records in its state about the server and account of testCredentials(HOST). */
export const BOUND = { boundTo: digestOf(BASE_URL, 'admin@svc.test') };
/** The same binding as states saved before the digest kept it: host and e-mail in clear. */
export const PLAIN_BOUND = { host: BASE_URL, account: 'admin@svc.test' };

type TriggerUnderTest = ReturnType<typeof triggerUnderTest>;

export interface PollHarness {
	context: TriggerUnderTest['context'];
	logger: TriggerUnderTest['logger'];
	poll: () => Promise<IDataObject[] | null>;
}

/** A trigger whose polls share `staticData`, as n8n keeps it between polls. `poll()` gives the items' json, or null. */
export function triggerHarness(
	parameters: INodeParameters,
	staticData: IDataObject,
	mode: WorkflowExecuteMode = 'trigger',
): PollHarness {
	const { context, logger } = triggerUnderTest({
		parameters,
		credentials: testCredentials(HOST),
		staticData,
		mode,
	});
	const poll = async () => {
		// Retries pause for no time here (nock still counts them).
		instantPauses();
		const result = await new SvcChatTrigger().poll.call(context);
		if (result === null) return null;
		expect(result).toHaveLength(1);
		for (const item of result[0]) expect(Object.keys(item)).toEqual(['json']);
		return result[0].map((item) => item.json);
	};
	return { context, logger, poll };
}

export interface ChatShape {
	messages?: number;
	states?: string[];
	createdAt?: string;
}

/** A full chat; its version is told by its message count and its state history. */
export function makeChat(
	id: number | string,
	{ messages = 1, states = ['chatting'], createdAt }: ChatShape = {},
): Chat {
	const minutes = typeof id === 'number' ? id : 0;
	const created = createdAt ?? new Date(Date.UTC(2024, 0, 1) + minutes * 60_000).toISOString();
	return {
		id,
		created_at: created,
		category: null,
		subcategory: null,
		operator_id: 7,
		rates: [],
		messages: Array.from({ length: messages }, (_, index) => ({
			id: `${id}-m${index + 1}`,
			created_at: created,
			kind: index % 2 ? 'operator' : 'visitor',
			message: `message ${index + 1}`,
			...(index % 2 ? { operator_id: 7 } : {}),
		})),
		state_history: states.map((state) => ({
			state,
			operator_id: 7,
			at: created,
			department_id: null,
		})),
		visitor: { id: `visitor-${id}`, fields: {} },
		visit_session: { ip: null, landing_page: { url: null } },
		start_page: { url: 'https://shop.example/' },
	};
}

export function chatRange(from: number, count: number, shape?: ChatShape): Chat[] {
	return Array.from({ length: count }, (_, index) => makeChat(from + index, shape));
}

/** Answers one GET /chats?since=… with a page of the spec's shape. */
export function replyPage(since: Cursor, chats: Chat[], lastTs: Cursor, more = false): nock.Scope {
	return nock(BASE_URL)
		.get('/api/v2/chats')
		.query({ since: String(since) })
		.reply(200, { chats, more_chats_available: more, last_ts: lastTs });
}

/** GET /chats?since=… failing with 502 on the first try and on every retry. */
export function failPage(since: Cursor): nock.Scope {
	return nock(BASE_URL)
		.get('/api/v2/chats')
		.query({ since: String(since) })
		.times(4)
		.reply(502, 'Bad Gateway');
}

/** Answers GET `path` (any query) with a 503 asking to wait 5 s, as often as a request is sent; counts the requests. */
export function busyForFiveSeconds(path: string): { requests: number } {
	const seen = { requests: 0 };
	nock(BASE_URL)
		.get(path)
		.query(true)
		.times(4)
		.reply(() => {
			seen.requests++;
			return [503, '', { 'Retry-After': '5' }];
		});
	return seen;
}

/** The microsecond cursor of a time, as the look-back steps compute it. */
export const microsAt = (ms: number) => String(ms * 1000);

/** The operators GET /operators names in these tests: ratings and transcripts read them. */
export const OPERATORS = [
	{ id: 3, full_name: 'Dmitri Sokolov' },
	{ id: 7, full_name: 'Anna Petrova' },
];

/** GET /operators answered once, as Simplified and Transcript read it once per poll. */
export const replyOperatorNames = (operators: IDataObject[] = OPERATORS) =>
	nock(BASE_URL).get('/api/v2/operators').reply(200, operators);

/** GET /operators answering every request with `operators`, which may get none; counts them. */
export function everyOperatorsRequest(operators: IDataObject[] = OPERATORS) {
	const seen = { requests: 0 };
	nock(BASE_URL)
		.persist()
		.get('/api/v2/operators')
		.optionally()
		.reply(() => {
			seen.requests++;
			return [200, operators];
		});
	return seen;
}
