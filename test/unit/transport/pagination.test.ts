// Paging over GET /chats: last_ts passed back exactly (number or string), limits, the returned cursor and the loop guards.
import nock from 'nock';
import { NodeApiError } from 'n8n-workflow';

import { walkChats, type ChatPage } from '../../../nodes/SvcChat/transport/chats';
import type { Chat, Cursor } from '../../../nodes/SvcChat/types';
import { ORIGIN, rejectionOf, transportContext } from './support';
import { dropUnrequestedMocks } from '../../harness/nockSetup';

interface Page {
	chats: Chat[];
	more_chats_available: boolean;
	last_ts: unknown;
}

const chat = (id: number | string, version = 1): Chat => ({
	id,
	created_at: '2024-05-01T10:00:00Z',
	version,
});

// Cursors as numbers, and as strings too long for a JavaScript number: only exact passing keeps their digits.
const NUMBER_CURSORS = [1714557600000001, 1714557600000002, 1714557600000003];
const STRING_CURSORS = ['17145576000000000001', '17145576000000000002', '17145576000000000003'];

/**
 * Serves GET /chats: the n-th request gets pages[n]. Records the raw `since` of every request, as it appeared in
 * the URL, and leaves unrequested pages pending so a test can tell that they were never asked for.
 */
function servePages(pages: Page[]) {
	const sinces: string[] = [];
	const scope = nock(ORIGIN);
	for (const page of pages) {
		scope
			.get('/api/v2/chats')
			.query(true)
			.reply(function () {
				sinces.push(new URL(this.req.path, ORIGIN).searchParams.get('since') ?? '(none)');
				// Serialised by hand so a string cursor stays a string and a number stays a number.
				return [200, JSON.stringify(page), { 'Content-Type': 'application/json' }];
			});
	}
	return { sinces, scope };
}

function threePages(cursors: Cursor[]): Page[] {
	return [
		{ chats: [chat(1), chat(2)], more_chats_available: true, last_ts: cursors[0] },
		{ chats: [chat(3), chat(4)], more_chats_available: true, last_ts: cursors[1] },
		{ chats: [chat(5)], more_chats_available: false, last_ts: cursors[2] },
	];
}

/** Every page the walk reads from `since`, as it sees them. */
async function collect(since: Cursor): Promise<ChatPage[]> {
	const collected: ChatPage[] = [];
	await walkChats(transportContext(), since, { onPage: (page) => void collected.push(page) });
	return collected;
}

/** What Chat > Get Many takes from a walk: the chats and the cursor to continue from. */
async function getChats(since: Cursor, options: Parameters<typeof walkChats>[2] = {}) {
	const { chats, lastTs } = await walkChats(transportContext(), since, options);
	return { chats, lastTs };
}

describe.each([
	['numbers', NUMBER_CURSORS as Cursor[]],
	['strings', STRING_CURSORS as Cursor[]],
])('three pages with last_ts as %s', (_kind, cursors) => {
	test('the walk follows last_ts exactly as received while more_chats_available is true', async () => {
		const { sinces, scope } = servePages(threePages(cursors));

		const pages = await collect(0);

		expect(sinces).toEqual(['0', String(cursors[0]), String(cursors[1])]);
		expect(pages.map((page) => page.since)).toEqual([0, cursors[0], cursors[1]]);
		expect(pages.map((page) => page.lastTs)).toEqual(cursors);
		pages.forEach((page, index) => expect(typeof page.lastTs).toBe(typeof cursors[index]));
		expect(pages.map((page) => page.chats.map((c) => c.id))).toEqual([[1, 2], [3, 4], [5]]);
		expect(pages.map((page) => page.moreChatsAvailable)).toEqual([true, true, false]);
		expect(scope.isDone()).toBe(true);
	});

	test('the walk returns every chat and the final cursor, unchanged', async () => {
		const { sinces } = servePages(threePages(cursors));

		const result = await getChats('0');

		expect(sinces).toEqual(['0', String(cursors[0]), String(cursors[1])]);
		expect(result.chats.map((c) => c.id)).toEqual([1, 2, 3, 4, 5]);
		expect(result.lastTs).toBe(cursors[2]);
	});
});

test('a walk reads the credentials once, for every page and every chat read in full', async () => {
	const pages = threePages(NUMBER_CURSORS);
	pages[1].chats.push({ id: 9, created_at: '2024-05-01T10:00:00Z' });
	servePages(pages);
	nock(ORIGIN)
		.get('/api/v2/chat')
		.query({ id: '9' })
		.reply(200, { chat: chat(9) });
	const context = transportContext();

	const walk = await walkChats(context, 0);

	expect(walk.chats.map((c) => c.id)).toEqual([1, 2, 3, 4, 9, 5]);
	expect(context.helpers.httpRequestWithAuthentication).toHaveBeenCalledTimes(4);
	expect(context.getCredentials).toHaveBeenCalledTimes(1);
});

test('a chat delivered twice is kept once, in its latest version and position', async () => {
	servePages([
		{ chats: [chat(1), chat(2)], more_chats_available: true, last_ts: 10 },
		{ chats: [chat(3), chat(1, 2)], more_chats_available: false, last_ts: 20 },
	]);
	const result = await getChats(0);
	expect(result.chats).toEqual([chat(2), chat(3), chat(1, 2)]);
});

describe('a limit', () => {
	test('that a page fills exactly stops paging: no request for the next page', async () => {
		const { sinces, scope } = servePages(threePages(NUMBER_CURSORS));

		const result = await getChats(0, { limit: 2 });

		expect(result.chats.map((c) => c.id)).toEqual([1, 2]);
		expect(result.lastTs).toBe(NUMBER_CURSORS[0]);
		expect(sinces).toEqual(['0']);
		expect(scope.isDone()).toBe(false);
		dropUnrequestedMocks();
	});

	test("that cuts inside a page returns that page's own cursor, so its other chats come again", async () => {
		const { sinces, scope } = servePages(threePages(STRING_CURSORS));

		const result = await getChats('0', { limit: 3 });

		expect(result.chats.map((c) => c.id)).toEqual([1, 2, 3]);
		expect(result.lastTs).toBe(STRING_CURSORS[0]);
		expect(sinces).toEqual(['0', STRING_CURSORS[0]]);
		expect(scope.isDone()).toBe(false);
		dropUnrequestedMocks();
	});

	test('above the number of chats reads every page', async () => {
		const { sinces } = servePages(threePages(NUMBER_CURSORS));
		const result = await getChats(0, { limit: 50 });
		expect(result.chats).toHaveLength(5);
		expect(result.lastTs).toBe(NUMBER_CURSORS[2]);
		expect(sinces).toHaveLength(3);
	});

	test('of 0 sends no request at all', async () => {
		const { sinces } = servePages(threePages(NUMBER_CURSORS));
		await expect(getChats(7, { limit: 0 })).resolves.toEqual({
			chats: [],
			lastTs: 7,
		});
		expect(sinces).toEqual([]);
		dropUnrequestedMocks();
	});
});

describe('loop guards', () => {
	test('more_chats_available with an unchanged last_ts stops with a clear error', async () => {
		const { sinces } = servePages([
			{ chats: [chat(1)], more_chats_available: true, last_ts: '500' },
			{ chats: [chat(2)], more_chats_available: true, last_ts: '500' },
			{ chats: [chat(3)], more_chats_available: false, last_ts: '600' },
		]);
		const seen: ChatPage[] = [];

		const error = await rejectionOf(
			walkChats(transportContext(), 0, { onPage: (page) => void seen.push(page) }),
		);

		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toBe(
			'The server keeps reporting more chats, but its cursor stopped moving (last_ts 500)',
		);
		expect(error.description).toBe(
			'Stopped to avoid an endless loop. Try again later; if it persists, contact Svc support.',
		);
		expect(error.context.svcError).toBe('cursor-stalled');
		expect(seen).toHaveLength(2);
		expect(sinces).toEqual(['0', '500']);
		dropUnrequestedMocks();
	});

	test('three empty pages in a row that still promise more stop with a clear error', async () => {
		const { sinces, scope } = servePages([
			{ chats: [], more_chats_available: true, last_ts: 1 },
			{ chats: [], more_chats_available: true, last_ts: 2 },
			{ chats: [], more_chats_available: true, last_ts: 3 },
			{ chats: [chat(1)], more_chats_available: false, last_ts: 4 },
		]);

		const error = await rejectionOf(getChats(0));

		expect(error.message).toBe(
			'The server keeps reporting more chats, but sent none in 3 pages in a row (last_ts 3)',
		);
		expect(sinces).toEqual(['0', '1', '2']);
		expect(scope.isDone()).toBe(false);
		dropUnrequestedMocks();
	});

	test('empty pages between full ones are fine', async () => {
		servePages([
			{ chats: [], more_chats_available: true, last_ts: 1 },
			{ chats: [], more_chats_available: true, last_ts: 2 },
			{ chats: [chat(1)], more_chats_available: true, last_ts: 3 },
			{ chats: [], more_chats_available: true, last_ts: 4 },
			{ chats: [], more_chats_available: false, last_ts: 5 },
		]);
		await expect(getChats(0)).resolves.toEqual({
			chats: [chat(1)],
			lastTs: 5,
		});
	});
});

test('a failing later page throws after the earlier pages were seen', async () => {
	const scope = nock(ORIGIN)
		.get('/api/v2/chats')
		.query({ since: '0' })
		.reply(200, { chats: [chat(1)], more_chats_available: true, last_ts: 9 })
		.get('/api/v2/chats')
		.query({ since: '9' })
		.reply(401);
	const seen: ChatPage[] = [];

	const error = await rejectionOf(
		walkChats(transportContext(), 0, { onPage: (page) => void seen.push(page) }),
	);

	expect(error.message).toBe('Wrong email or password');
	expect(seen.map((page) => page.lastTs)).toEqual([9]);
	expect(scope.isDone()).toBe(true);
});
