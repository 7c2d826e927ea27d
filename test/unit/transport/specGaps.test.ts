// What the spec permits and the transport must survive: minimal list entries, odd last_ts values, whole-page limits.
import nock from 'nock';

import {
	FULL_CHAT_CONCURRENCY,
	walkChats,
	type ChatPage,
	type WalkOptions,
} from '../../../nodes/SvcChat/transport/chats';
import type { Chat } from '../../../nodes/SvcChat/types';
import { ORIGIN, rejectionOf, transportContext } from './support';
import { instantPauses } from '../../harness/fixtures';
import { dropUnrequestedMocks } from '../../harness/nockSetup';

const full = (id: number): Chat => ({
	id,
	created_at: '2024-05-01T10:00:00Z',
	visitor: { id: `v${id}` },
	messages: [],
});
const minimal = (id: number): Chat => ({ id, created_at: '2024-05-01T10:00:00Z' });

/** Serves one GET /chats reply, serialised by hand so a member can be left out or a cursor kept a string. */
function page(since: string, body: Record<string, unknown>) {
	return nock(ORIGIN)
		.get('/api/v2/chats')
		.query({ since })
		.reply(200, JSON.stringify(body), { 'Content-Type': 'application/json' });
}

async function pages(since: string | number, options: WalkOptions = {}): Promise<ChatPage[]> {
	const collected: ChatPage[] = [];
	await walkChats(transportContext(), since, {
		...options,
		onPage: (one) => void collected.push(one),
	});
	return collected;
}

/** What Chat > Get Many takes from a walk: the chats and the cursor to continue from. */
async function getChats(since: string | number, options: WalkOptions = {}) {
	const { chats, lastTs } = await walkChats(transportContext(), since, options);
	return { chats, lastTs };
}

describe('minimal list entries (spec 2.4)', () => {
	test('are replaced by GET /chat, in place, with at most FULL_CHAT_CONCURRENCY requests at once', async () => {
		const listed = [
			full(1),
			minimal(2),
			minimal(3),
			full(4),
			...Array.from({ length: 10 }, (_, i) => minimal(10 + i)),
		];
		page('0', { chats: listed, more_chats_available: false, last_ts: 50 });
		let inFlight = 0;
		let mostInFlight = 0;
		nock(ORIGIN)
			.get('/api/v2/chat')
			.query(true)
			.times(12)
			.reply(function (_uri, _body, callback) {
				const id = Number(new URL(this.req.path, ORIGIN).searchParams.get('id'));
				inFlight++;
				mostInFlight = Math.max(mostInFlight, inFlight);
				// Answered a little later, so the requests sent meanwhile show how many run at once.
				setTimeout(() => {
					inFlight--;
					callback(null, [200, { chat: full(id) }]);
				}, 20);
			});
		const [only] = await pages(0);
		expect(only.chats).toEqual(listed.map((chat) => full(Number(chat.id))));
		expect(mostInFlight).toBeGreaterThan(1);
		expect(mostInFlight).toBeLessThanOrEqual(FULL_CHAT_CONCURRENCY);
	});

	test('a chat that cannot be read stops the walk before its page: that page is never seen', async () => {
		page('0', { chats: [full(1)], more_chats_available: true, last_ts: 10 });
		page('10', { chats: [full(2), minimal(3)], more_chats_available: false, last_ts: 20 });
		// 502 four times: the first try and the transport's three retries.
		nock(ORIGIN).get('/api/v2/chat').query({ id: '3' }).times(4).reply(502, 'Bad Gateway');
		const seen: ChatPage[] = [];
		instantPauses();
		const error = await rejectionOf(
			walkChats(transportContext(), 0, { onPage: (one) => void seen.push(one) }),
		);
		expect(error.message).toContain(
			'Chat 3 was listed with only its id and created_at, and reading it in full failed',
		);
		expect(error.message).toContain('502');
		expect(seen.map((one) => one.lastTs)).toEqual([10]);
		expect(nock.isDone()).toBe(true);
	});

	test('are left as they are when the caller asks for list entries only', async () => {
		page('0', { chats: [minimal(1)], more_chats_available: false, last_ts: 5 });
		const collected = await pages(0, { fullChats: false });
		expect(collected[0].chats).toEqual([minimal(1)]);
	});
});

describe('last_ts values the spec does not rule out', () => {
	test.each([
		['0 (would replay history)', 0],
		['below since, as a string', '99'],
	])('a last_ts below since, %s, is ignored and since is kept', async (_case, lastTs) => {
		page('100', { chats: [], more_chats_available: false, last_ts: lastTs });
		expect((await pages('100')).map((one) => one.lastTs)).toEqual(['100']);
	});

	test.each([
		['null', { last_ts: null }],
		['missing', {}],
	])('a %s last_ts on a reply with no chats keeps since', async (_case, cursor) => {
		page('100', { chats: [], more_chats_available: false, ...cursor });
		await expect(getChats('100')).resolves.toEqual({
			chats: [],
			lastTs: '100',
		});
	});

	test.each([
		['null', { last_ts: null }],
		['missing', {}],
	])('a %s last_ts on a reply with chats is an error that names it', async (_case, cursor) => {
		page('100', { chats: [full(1)], more_chats_available: false, ...cursor });
		const error = await rejectionOf(getChats('100'));
		expect(error.message).toBe('The server listed 1 changed chat(s) without a last_ts cursor');
		expect((error as unknown as { context: { svcError: string } }).context.svcError).toBe(
			'missing-last-ts',
		);
	});

	test('a last_ts is passed on exactly as received, number or string, also beyond 2^53', async () => {
		page('100', { chats: [full(1)], more_chats_available: true, last_ts: '18446744073709551615' });
		page('18446744073709551615', {
			chats: [full(2)],
			more_chats_available: false,
			last_ts: 18446744073709,
		});
		// The second cursor is a number below since: ignored, so the string since is kept as it was.
		const walked = await pages('100');
		expect(walked.map((one) => one.lastTs)).toEqual([
			'18446744073709551615',
			'18446744073709551615',
		]);
	});
});

describe('a limit met in whole pages', () => {
	test('takes the page on which the limit is reached whole, with its end cursor', async () => {
		page('0', { chats: [full(1), full(2), full(3)], more_chats_available: true, last_ts: 30 });
		const pending = page('30', { chats: [full(4)], more_chats_available: false, last_ts: 40 });
		const result = await getChats(0, { limit: 1, wholePages: true });
		expect(result).toEqual({ chats: [full(1), full(2), full(3)], lastTs: 30 });
		expect(pending.isDone()).toBe(false);
		dropUnrequestedMocks();
	});
});
