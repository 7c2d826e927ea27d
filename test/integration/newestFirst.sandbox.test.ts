// Newest First on a busy account: 20,000 chats over 30 days, one visitor's 12 spread across them (the sandbox's
// regularVisitor), read over loopback HTTP with n8n's real request stack; with the server's clock ahead and behind.
import type { INodeParameters } from 'n8n-workflow';

import { SvcChat } from '../../nodes/SvcChat/SvcChat.node';
import type { Chat } from '../../nodes/SvcChat/types';
import { REGULAR_VISITOR } from '../../sandbox/data';
import { createExecuteContext } from '../harness/contexts';
import { useSandbox } from '../harness/sandboxSuite';

const HOUR = 3_600_000;
const CHATS = 20_000;
const sandbox = useSandbox({ seed: 58, chats: CHATS, regularVisitor: true });

async function run(parameters: INodeParameters) {
	const node = new SvcChat();
	const context = createExecuteContext({
		description: node.description,
		parameters: { resource: 'chat', operation: 'getMany', output: 'raw', ...parameters },
		credentials: sandbox.credentials(),
	});
	const before = sandbox.control.requestLog().length;
	const [output] = await node.execute.call(context);
	const sent = sandbox.control.requestLog().slice(before);
	return { json: output.map((item) => item.json), sent };
}

/** The regular visitor's chats by the API's times: their change cursors, oldest first. */
let theirs: Chat[];
beforeAll(() => {
	const changes = sandbox.control.regularVisitorChats();
	expect(changes.map((one) => one.last_ts)).toEqual(
		[...changes.map((one) => one.last_ts)].sort((a, b) => a - b),
	);
	theirs = changes.map((one) => one.chat);
	expect(theirs).toHaveLength(12);
});

/**
 * The bound this file holds the requests to: per window, one /chats request per 100 chats changed in it, plus one (the
 * page that crosses into the newer window); plus one when the clocks differ. The 5 newest lie in the last day, so the
 * windows are the last hour and the rest of that day: at most 2 + 8 + 1 with 20,000 chats over 30 days.
 */
const perWindow = (hours: number) => Math.ceil((CHATS * hours) / (30 * 24) / 100) + 1;
const BOUND = perWindow(1) + perWindow(23) + 1;

describe.each([
	["the server's clock as n8n's", 0],
	["the server's clock 5 h ahead of n8n's", 5 * HOUR],
	["the server's clock 5 h behind n8n's", -5 * HOUR],
])('%s', (_, offset) => {
	beforeEach(() => {
		const realNow = Date.now.bind(Date);
		jest.spyOn(Date, 'now').mockImplementation(() => realNow() - offset);
	});
	afterEach(() => jest.restoreAllMocks());

	// Each way of matching once; with the clocks apart, by e-mail (the windows are the same for every way).
	test.each(offset ? (['email'] as const) : (['email', 'phone', 'name', 'visitorId'] as const))(
		"by %s: the visitor's 5 newest chats, newest first as the API orders them, in a bounded number of requests",
		async (by) => {
			const wanted = {
				email: 'ROSA.regular@mail.example',
				phone: '+44 (20) 7946-0958',
				name: 'rosa regular',
				visitorId: REGULAR_VISITOR.id,
			}[by];
			const { json, sent } = await run({
				order: 'newestFirst',
				limit: 5,
				visitor: wanted,
				visitorMatch: by,
			});
			const ids = json.map((chat) => chat.id);
			expect(ids).toEqual(
				theirs
					.slice(-5)
					.reverse()
					.map((chat) => chat.id),
			);
			// No older chat before a newer one: creation times fall too.
			const created = json.map((chat) => Date.parse(String(chat.created_at)));
			expect(created).toEqual([...created].sort((a, b) => b - a));
			const pages = sent.filter((entry) => entry.path === '/api/v2/chats').length;
			expect(pages).toBeLessThanOrEqual(BOUND);
			expect(sent.length).toBe(pages);
			expect(new Set(json.map((chat) => chat.searched_back_to)).size).toBe(1);
		},
	);

	test('with fewer than Limit in the look-back, all of them, and how far it looked', async () => {
		const { json, sent } = await run({
			order: 'newestFirst',
			limit: 50,
			lookBackDays: 1,
			visitor: REGULAR_VISITOR.emails[0],
		});
		const presentMs = Date.now() + offset;
		const within = theirs.filter((chat) => Date.parse(chat.created_at) > presentMs - 24 * HOUR);
		expect(within).toHaveLength(5);
		expect(json.map((chat) => chat.id)).toEqual(within.reverse().map((chat) => chat.id));
		const lookedTo = Date.parse(String(json[0].searched_back_to));
		expect(Math.abs(lookedTo - (presentMs - 24 * HOUR))).toBeLessThan(2 * 60_000);
		expect(sent.length).toBeLessThanOrEqual(BOUND);
	});
});
