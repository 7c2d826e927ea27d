// The sandbox's stricter and optional behaviour: Content-Type on real-time commands, equal timestamps, last_ts of an
// empty page, a share of minimal list entries and GET /chat's code for an unknown id; each off by default where the
// spec is silent.
import { startSandbox, type Sandbox } from '../../sandbox';
import { DEFAULT_SETTINGS } from '../../sandbox/state';
import type { Chat, ChatsReply } from '../../nodes/SvcChat/types';
import { get, rt } from './client';

let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox({ seed: 3, chats: 400 });
});
afterAll(async () => await sandbox.stop());
beforeEach(() => sandbox.control.reset());

async function chats(since: string | number): Promise<ChatsReply & Record<string, unknown>> {
	const reply = await get(sandbox, 'chats', { since: String(since) });
	expect(reply.status).toBe(200);
	return reply.json as ChatsReply & Record<string, unknown>;
}

test('the spec-silent switches are off by default; the Content-Type check is on', () => {
	expect(DEFAULT_SETTINGS).toEqual(
		expect.objectContaining({
			minimalChatsInLists: false,
			equalTimestamps: false,
			emptyPageLastTs: 'latest',
			requireJsonContentType: true,
			unknownChatError: 'chat-not-found',
		}),
	);
});

describe("GET /chat's code for an unknown id (unknownChatError)", () => {
	test.each([['chat-not-found'], ['unknown']])(
		'answers %s, and a known id still gives the chat',
		async (code) => {
			if (code !== 'chat-not-found') sandbox.control.setSettings({ unknownChatError: code });
			const missing = await get(sandbox, 'chat', { id: 'no-such-chat' });
			expect(missing.status).toBe(200);
			expect(missing.json).toEqual({ error: code });
			const [first] = (await chats(0)).chats;
			expect(
				((await get(sandbox, 'chat', { id: String(first.id) })).json as { chat: Chat }).chat.id,
			).toBe(first.id);
		},
	);

	test('refuses an empty code', () => {
		expect(() => sandbox.control.setSettings({ unknownChatError: '' })).toThrow(
			'unknownChatError must be a non-empty string',
		);
	});
});

describe('real-time commands take a JSON body (spec 4)', () => {
	const body = { email: 'anna@svc.test', status: 'dinner' };

	test.each([['text/plain'], ['application/x-www-form-urlencoded']])(
		'a body sent as %s is refused and changes nothing',
		async (type) => {
			const reply = await rt(sandbox, 'agent_status', body, { headers: { 'Content-Type': type } });
			expect(reply.json).toEqual({ error: 'request-body-is-not-valid-json' });
			expect(
				sandbox.control.getOperators().find((operator) => operator.email === 'anna@svc.test')
					?.status,
			).toBe('online');
		},
	);

	test('application/json with a charset is accepted', async () => {
		const reply = await rt(sandbox, 'agent_status', body, {
			headers: { 'Content-Type': 'application/json; charset=utf-8' },
		});
		expect(reply.json).toEqual({ result: 'ok' });
	});

	test('the check can be switched off', async () => {
		sandbox.control.setSettings({ requireJsonContentType: false });
		const reply = await rt(sandbox, 'agent_status', body, {
			headers: { 'Content-Type': 'text/plain' },
		});
		expect(reply.json).toEqual({ result: 'ok' });
	});
});

describe('last_ts of an empty page (emptyPageLastTs)', () => {
	const beyond = () => sandbox.control.latestCursor() + 1000;

	test.each([
		['latest', (latest: number) => ({ last_ts: latest })],
		['zero', () => ({ last_ts: 0 })],
		['null', () => ({ last_ts: null })],
		['missing', () => ({})],
		['since', (_latest: number, since: number) => ({ last_ts: since })],
	] as const)('%s', async (mode, expected) => {
		sandbox.control.setSettings({ emptyPageLastTs: mode });
		const since = beyond();
		const reply = await chats(since);
		const { chats: listed, more_chats_available: more, ...cursor } = reply;
		expect([listed, more]).toEqual([[], false]);
		expect(cursor).toEqual(expected(sandbox.control.latestCursor(), since));
	});

	test('a page with chats always carries last_ts', async () => {
		sandbox.control.setSettings({ emptyPageLastTs: 'missing' });
		expect((await chats(0)).last_ts).toEqual(expect.any(Number));
	});
});

describe('minimal list entries (spec 2.4)', () => {
	const minimalShare = async () => {
		const listed: Chat[] = [];
		for (let since: number | string = 0, more = true; more; ) {
			const reply = await chats(since);
			listed.push(...reply.chats);
			more = reply.more_chats_available;
			since = reply.last_ts;
		}
		return (
			listed.filter((chat) => Object.keys(chat).join() === 'id,created_at').length / listed.length
		);
	};

	test.each([
		[false, 0, 0],
		[true, 0.12, 0.17],
		[30, 0.27, 0.33],
	])('minimalChatsInLists %s sends that share as {id, created_at}', async (setting, low, high) => {
		sandbox.control.setSettings({ minimalChatsInLists: setting });
		const share = await minimalShare();
		expect(share).toBeGreaterThanOrEqual(low);
		expect(share).toBeLessThanOrEqual(high);
	});
});

describe('equal timestamps (equalTimestamps)', () => {
	test('changes share microseconds; a page never ends inside one, so a walk loses nothing', async () => {
		const tied = await startSandbox({ seed: 3, chats: 400, settings: { equalTimestamps: true } });
		try {
			const seen = new Set<string>();
			const cursors: number[] = [];
			let sentTwice = 0;
			for (let since: number = 0, more = true; more; ) {
				const reply = (await get(tied, 'chats', { since: String(since) })).json as ChatsReply;
				for (const chat of reply.chats) {
					if (seen.has(String(chat.id))) sentTwice++;
					seen.add(String(chat.id));
				}
				more = reply.more_chats_available;
				since = reply.last_ts as number;
				cursors.push(since);
			}
			expect(seen.size).toBe(400);
			// 100 is not a multiple of the tie size (3), so page ends fall inside ties and their chats come again.
			expect(sentTwice).toBeGreaterThan(0);
			expect(cursors).toEqual([...cursors].sort((a, b) => a - b));
			// Later changes tie too, while the clock stands still.
			const changed = [...tied.control.mutateRandomChats(3), ...tied.control.mutateRandomChats(3)];
			expect(changed).toHaveLength(6);
			const after = (await get(tied, 'chats', { since: String(cursors[cursors.length - 1]) }))
				.json as ChatsReply;
			expect(after.chats.length).toBeGreaterThan(0);
		} finally {
			await tied.stop();
		}
	});
});
