// Chat > Get Many, Newest First and the visitor filter: the windows and their edges, repeats, minimal entries, clocks.
import { visitorMatcher } from '../../../nodes/SvcChat/helpers/chat';
import type { Chat } from '../../../nodes/SvcChat/types';
import { everyRequestTo } from '../../harness/nockSetup';
import { DAY, freezeClock, HOUR, NOW } from '../trigger/clock';
import { runNode, svc } from './runNode';

freezeClock();

const getMany = { resource: 'chat', operation: 'getMany', order: 'newestFirst', output: 'raw' };
const µs = (ms: number) => ms * 1000;

const chat = (id: number, email = `v${id}@mail.example`, version = 1): Chat => ({
	id,
	created_at: new Date(NOW - 40 * DAY).toISOString(),
	messages: Array.from({ length: version }, (_, i) => ({
		id: `${id}-${i}`,
		created_at: '2025-05-01T00:00:00Z',
		kind: 'visitor',
		message: 'Hello',
	})),
	state_history: null,
	visitor: { id: `v-${id}`, fields: { email } },
});

/**
 * A change log served as spec 4.6 says (each chat at its latest change, 100 a page, last_ts the page's last change),
 * with the server's clock at `serverNowMs` in its Date header (none when null). Records each `since` asked for.
 */
function serveLog(log: Array<[ageMs: number, chat: Chat]>, serverNowMs: number | null = NOW) {
	const sinces: number[] = [];
	const entries = log.map(([ageMs, one]) => ({ ts: µs(serverNowMs ?? NOW) - µs(ageMs), one }));
	const latest = new Map(entries.map((entry) => [entry.one.id, entry.ts]));
	everyRequestTo('GET', 'chats').reply((uri) => {
		const since = Number(new URL(uri, 'http://x').searchParams.get('since'));
		sinces.push(since);
		const after = entries
			.filter(({ ts, one }) => ts > since && latest.get(one.id) === ts)
			.sort((a, b) => a.ts - b.ts);
		const page = after.slice(0, 100);
		const body = {
			chats: page.map(({ one }) => one),
			more_chats_available: after.length > 100,
			last_ts: page.at(-1)?.ts ?? Math.max(0, ...entries.map(({ ts }) => ts)),
		};
		const headers = serverNowMs === null ? {} : { Date: new Date(serverNowMs).toUTCString() };
		return [200, body, headers];
	});
	return sinces;
}

const ids = (output: Array<{ json: Record<string, unknown> }>) => output.map(({ json }) => json.id);

describe('Newest First', () => {
	test('reads back in windows (1 hour, 1 day, 1 week, 30 days), newest first; a chat on a window edge comes once', async () => {
		const sinces = serveLog([
			[40 * DAY, chat(1)],
			[10 * DAY, chat(2)],
			[2 * DAY, chat(3)],
			[2 * HOUR, chat(4)],
			[HOUR, chat(5)], // exactly on the edge of the first window: in the second
			[30 * 60_000, chat(6)],
		]);
		const output = await runNode({ ...getMany, limit: 10 });
		expect(ids(output)).toEqual([6, 5, 4, 3, 2]);
		expect(sinces).toEqual([NOW - HOUR, NOW - DAY, NOW - 7 * DAY, NOW - 30 * DAY].map(µs));
		const searched = new Date(NOW - 30 * DAY).toISOString();
		expect(output.every(({ json }) => json.searched_back_to === searched)).toBe(true);
	});

	test('stops at the window in which Limit chats are found, and says how far it read', async () => {
		const sinces = serveLog([
			[3 * DAY, chat(1)],
			[5 * HOUR, chat(2)],
			[3 * HOUR, chat(3)],
			[30 * 60_000, chat(4)],
		]);
		const output = await runNode({ ...getMany, limit: 2 });
		expect(ids(output)).toEqual([4, 3]);
		expect(sinces).toEqual([µs(NOW - HOUR), µs(NOW - DAY)]);
		expect(output[0].json.searched_back_to).toBe(new Date(NOW - DAY).toISOString());
	});

	test('Look Back At Most bounds the search; none found is one item that says how far it looked', async () => {
		const sinces = serveLog([[5 * DAY, chat(1, 'jane@mail.example')]]);
		const output = await runNode({
			...getMany,
			limit: 5,
			lookBackDays: 3,
			visitor: 'jane@mail.example',
		});
		expect(output.map(({ json }) => json)).toEqual([
			{ chats_found: 0, searched_back_to: new Date(NOW - 3 * DAY).toISOString() },
		]);
		expect(sinces).toEqual([NOW - HOUR, NOW - DAY, NOW - 3 * DAY].map(µs));
	});

	test('a chat changed twice inside a window, and across two windows, comes once in its latest version', async () => {
		// Window 1 holds 8 v2 (changed twice: the server sends it again at its second change); window 2 sends 9 v1 again
		// on the page that crosses into window 1, where 9 v2 was.
		const page = (chats: Chat[], lastTs: number, more = false) => ({
			chats,
			more_chats_available: more,
			last_ts: lastTs,
		});
		const date = { Date: new Date(NOW).toUTCString() };
		svc()
			.get('/api/v2/chats')
			.query({ since: µs(NOW - HOUR) })
			.reply(200, page([chat(8), chat(7)], µs(NOW - 50 * 60_000), true), date);
		svc()
			.get('/api/v2/chats')
			.query({ since: µs(NOW - 50 * 60_000) })
			.reply(200, page([chat(9, undefined, 2), chat(8, undefined, 2)], µs(NOW - 60_000)), date);
		svc()
			.get('/api/v2/chats')
			.query({ since: µs(NOW - DAY) })
			.reply(200, page([chat(10), chat(9)], µs(NOW - 30 * 60_000), true), date);
		const output = await runNode({ ...getMany, limit: 4 });
		expect(output.map(({ json }) => [json.id, (json.messages as unknown[]).length])).toEqual([
			[8, 2],
			[9, 2],
			[7, 1],
			[10, 1],
		]);
	});

	test('a minimal list entry is read in full, and the visitor filter sees the full chat', async () => {
		serveLog([
			[2 * HOUR, { id: 21, created_at: '2025-05-01T00:00:00Z' }],
			[30 * 60_000, chat(22)],
		]);
		svc()
			.get('/api/v2/chat')
			.query({ id: 21 })
			.reply(200, { chat: chat(21, 'Jane@Mail.example') });
		const output = await runNode({ ...getMany, limit: 5, visitor: 'jane@mail.EXAMPLE' });
		expect(ids(output)).toEqual([21]);
	});

	test.each([
		['5 hours ahead', 5 * HOUR],
		['5 hours behind', -5 * HOUR],
	])(
		"the server's clock %s of n8n's: the first page is read again from the server's hour ago, the windows are its",
		async (_, offset) => {
			const server = NOW + offset;
			const sinces = serveLog(
				[
					[2 * DAY, chat(1)],
					[3 * HOUR, chat(2)],
					[30 * 60_000, chat(3)],
				],
				server,
			);
			const output = await runNode({ ...getMany, limit: 2 });
			expect(ids(output)).toEqual([3, 2]);
			expect(sinces).toEqual([NOW - HOUR, server - HOUR, server - DAY].map(µs));
			expect(output[0].json.searched_back_to).toBe(new Date(server - DAY).toISOString());
		},
	);

	test("without a Date header, the server's latest change stands for its present", async () => {
		// The latest change is 30 minutes before n8n's now: the later windows are measured from it.
		const latest = NOW - 30 * 60_000;
		const sinces = serveLog(
			[
				[30 * 60_000, chat(1)],
				[2 * HOUR, chat(2)],
			],
			null,
		);
		const output = await runNode({ ...getMany, limit: 2, lookBackDays: 1 });
		expect(ids(output)).toEqual([1, 2]);
		expect(sinces).toEqual([NOW - HOUR, latest - HOUR, latest - DAY].map(µs));
	});

	test.each(['simplified', 'transcript', 'messages'])(
		'every Output works, with searched_back_to on each item (%s)',
		async (output) => {
			serveLog([
				[2 * HOUR, chat(31, 'a@mail.example')],
				[HOUR / 2, chat(32, 'b@mail.example')],
			]);
			svc().get('/api/v2/operators').optionally().reply(200, []);
			const result = await runNode({ ...getMany, output, limit: 5, visitor: 'A@mail.example' });
			expect(result.length).toBeGreaterThan(0);
			for (const { json } of result) {
				expect(json.searched_back_to).toBe(new Date(NOW - 30 * DAY).toISOString());
				// Simplified and Transcript give the id as text; One Item per Message's chat_id as the server sent it.
				expect(json.chat_id ?? json.id).toBe(output === 'messages' ? 31 : '31');
			}
		},
	);
});

describe('the visitor filter: the one contact rule (visitor fields, else the latest contacts message)', () => {
	const withForm = (fields: Record<string, string>, form?: Record<string, string>): Chat => ({
		id: 1,
		created_at: '2025-05-01T00:00:00Z',
		visitor: { id: 'v-77', fields },
		messages: form
			? [{ id: 'm', created_at: '2025-05-01T00:00:00Z', kind: 'contacts', message: form }]
			: [],
	});
	test.each([
		['email', ' JANE@Mail.example ', withForm({ email: 'jane@mail.example' }), true],
		['email', 'jane@mail.example', withForm({}, { email: 'Jane@mail.example' }), true],
		[
			'email',
			'jane@mail.example',
			withForm({ email: 'jo@mail.example' }, { email: 'jane@mail.example' }),
			false,
		],
		['phone', '+44 20 7946 0958', withForm({ phone: '442079460958' }), true],
		['phone', '(020) 7946 0958', withForm({}, { phone: '+44 20 7946 0958' }), false],
		['phone', '', withForm({ phone: '' }), false],
		['name', 'rosa  regular', withForm({ name: 'Rosa Regular' }), true],
		['name', 'Rosa', withForm({ name: 'Rosa Regular' }), false],
		['visitorId', 'v-77', withForm({}), true],
		['visitorId', 'crm-5', withForm({ id: 'crm-5' }), true],
		[
			'emailOrPhone',
			'jane@mail.example',
			withForm({ phone: '1', email: 'JANE@mail.example' }),
			true,
		],
		['emailOrPhone', '+1 555 0100', withForm({ email: 'x@y.z' }, { phone: '15550100' }), true],
	] as const)('%s %j', (by, wanted, one, matches) => {
		expect(visitorMatcher(by, wanted)(one)).toBe(matches);
	});

	test('Oldest First with a visitor and a Limit counts only the matching chats', async () => {
		svc()
			.get('/api/v2/chats')
			.query({ since: '0' })
			.reply(200, {
				chats: [chat(1, 'a@x.io'), chat(2, 'b@x.io'), chat(3, 'a@x.io'), chat(4, 'a@x.io')],
				more_chats_available: false,
				last_ts: 9,
			});
		const output = await runNode({
			resource: 'chat',
			operation: 'getMany',
			since: 'cursor',
			sinceCursor: '0',
			limit: 2,
			output: 'raw',
			visitor: 'a@x.io',
			visitorMatch: 'email',
		});
		expect(ids(output)).toEqual([1, 3]);
	});
});
