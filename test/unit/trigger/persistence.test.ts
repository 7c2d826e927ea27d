// The trigger's state under n8n's persistence: bound to its server and account by a digest, kept across edits, harmless to lose in a null poll, within the poll budget.
import nock from 'nock';
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import {
	BOUND,
	busyForFiveSeconds,
	chatRange,
	digestOf,
	fromBeginning,
	makeChat,
	microsAt,
	PLAIN_BOUND,
	replyPage,
	triggerHarness,
} from './fixtures';
import { SvcChatTrigger } from '../../../nodes/SvcChat/SvcChatTrigger.node';
import { testCredentials, triggerUnderTest } from '../../harness/contexts';
import { BASE_URL, HOST, ids, instantPauses } from '../../harness/fixtures';
import { dropUnrequestedMocks } from '../../harness/nockSetup';
import { TEST_PASSWORD } from '../../harness/core';
import { serverBinding } from '../../../nodes/SvcChat/trigger/poll';

const PRODUCTION = 'chat.production.example';
/** The log line of a trigger whose credential now points at PRODUCTION, started from Beginning of History. */
const MOVED_TO_PRODUCTION = `Svc Chat Trigger: the credential now points at another server or account than the saved position was read from (the server is now https://${PRODUCTION}); starting again from the Beginning of History`;

afterEach(() => jest.restoreAllMocks());

/** A stored Beginning of History state at `cursor`, bound by the digest (or, with PLAIN_BOUND, saved in clear). */
const storedAt = (cursor: string, binding: IDataObject = BOUND): IDataObject => ({
	...binding,
	startedFrom: 'beginning',
	cursor,
	catchingUp: false,
});

/** One poll with the credential pointing at `host` as `email` (the trigger's static data kept by the caller). */
function pollAs(host: string, email: string, parameters: INodeParameters, staticData: IDataObject) {
	const { context, logger } = triggerUnderTest({
		parameters,
		credentials: testCredentials(host, { email }),
		staticData,
	});
	return {
		context,
		logger,
		poll: async () => {
			instantPauses();
			return (await new SvcChatTrigger().poll.call(context))?.[0].map((item) => item.json) ?? null;
		},
	};
}

describe('the state is bound to the server and account it was read from', () => {
	test('a credential moved from a test server to production starts again from Beginning of History and logs why', async () => {
		const staticData = storedAt('1748778000000000');
		const production = nock(`https://${PRODUCTION}`)
			.get('/api/v2/chats')
			.query({ since: '0' })
			.reply(200, { chats: [makeChat(1), makeChat(2)], more_chats_available: false, last_ts: 20 });
		const moved = pollAs(PRODUCTION, 'admin@svc.test', fromBeginning, staticData);

		expect(ids(await moved.poll())).toEqual([1, 2]);
		expect(production.isDone()).toBe(true);
		expect(staticData).toEqual({
			boundTo: digestOf(`https://${PRODUCTION}`, 'admin@svc.test'),
			startedFrom: 'beginning',
			cursor: '20',
			catchingUp: false,
		});
		expect(moved.logger.warn).toHaveBeenCalledWith(MOVED_TO_PRODUCTION);
	});

	test('another account on the same host starts again too; the log names neither e-mail nor the password', async () => {
		const staticData = storedAt('900');
		replyPage(0, [makeChat(3)], 30);
		const other = pollAs(BASE_URL, 'Ops@Svc.Test', fromBeginning, staticData);
		expect(ids(await other.poll())).toEqual([3]);
		expect(staticData).toEqual({
			boundTo: digestOf(BASE_URL, 'ops@svc.test'),
			startedFrom: 'beginning',
			cursor: '30',
			catchingUp: false,
		});
		expect(other.logger.warn).toHaveBeenCalledWith(
			`Svc Chat Trigger: the credential now points at another server or account than the saved position was read from (the server is now ${BASE_URL}); starting again from the Beginning of History`,
		);
		const logged = JSON.stringify(other.logger.warn.mock.calls).toLowerCase();
		expect(logged).not.toContain('ops@svc.test');
		expect(logged).not.toContain('admin@svc.test');
		expect(logged).not.toContain('pw-');
	});

	test('started from a Start Date, a moved credential starts again from that date, and the log says which', async () => {
		const startDate = '2024-03-01T00:00:00.000Z';
		const dateCursor = String(Date.parse(startDate) * 1000);
		const staticData: IDataObject = {
			...BOUND,
			startedFrom: `date:${dateCursor}`,
			cursor: '1748778000000000',
			catchingUp: false,
			newChatsFrom: startDate,
		};
		const production = nock(`https://${PRODUCTION}`)
			.get('/api/v2/chats')
			.query({ since: dateCursor })
			.reply(200, { chats: [], more_chats_available: false, last_ts: dateCursor });
		const parameters = { startFrom: 'date', startDate, emit: 'everyChange', output: 'raw' };
		const moved = pollAs(PRODUCTION, 'admin@svc.test', parameters, staticData);
		expect(await moved.poll()).toBeNull();
		expect(production.isDone()).toBe(true);
		expect(moved.logger.warn).toHaveBeenCalledWith(
			MOVED_TO_PRODUCTION.replace('the Beginning of History', `the Start Date ${startDate}`),
		);
	});

	test('the same server typed another way (scheme, case, trailing slash, e-mail case) keeps the cursor, silently', async () => {
		const staticData = storedAt('900');
		const kept = replyPage(900, [makeChat(4)], 950);
		const same = pollAs('ACME.svc.example/', ' Admin@SVC.test ', fromBeginning, staticData);
		expect(ids(await same.poll())).toEqual([4]);
		expect(kept.isDone()).toBe(true);
		expect(staticData).toEqual({
			...BOUND,
			startedFrom: 'beginning',
			cursor: '950',
			catchingUp: false,
		});
		expect(same.logger.warn).not.toHaveBeenCalled();
	});

	test('a state saved before the binding existed is adopted: the cursor is kept and the binding recorded', async () => {
		const staticData: IDataObject = { startedFrom: 'beginning', cursor: '700', catchingUp: false };
		const kept = replyPage(700, [makeChat(5)], 750);
		const { logger, poll } = pollAs(BASE_URL, 'admin@svc.test', fromBeginning, staticData);
		expect(ids(await poll())).toEqual([5]);
		expect(kept.isDone()).toBe(true);
		expect(staticData).toEqual({
			...BOUND,
			startedFrom: 'beginning',
			cursor: '750',
			catchingUp: false,
		});
		expect(logger.warn).not.toHaveBeenCalled();
	});

	test('Start From "Now" on the new server anchors on its present and emits nothing old', async () => {
		const now = Date.UTC(2025, 5, 1, 12);
		jest.spyOn(Date, 'now').mockReturnValue(now);
		const staticData: IDataObject = {
			...BOUND,
			startedFrom: 'now',
			cursor: '1748778000000000',
			catchingUp: false,
		};
		const recent = nock(`https://${PRODUCTION}`)
			.get('/api/v2/chats')
			.query({ since: microsAt(now - 3_600_000) })
			.reply(200, {
				chats: [makeChat(8)],
				more_chats_available: false,
				last_ts: '1748779000000001',
			});
		const { poll } = pollAs(
			PRODUCTION,
			'admin@svc.test',
			{ startFrom: 'now', emit: 'everyChange', output: 'raw' },
			staticData,
		);
		expect(await poll()).toBeNull();
		expect(recent.isDone()).toBe(true);
		expect(staticData).toEqual({
			boundTo: digestOf(`https://${PRODUCTION}`, 'admin@svc.test'),
			startedFrom: 'now',
			cursor: '1748779000000001',
			catchingUp: false,
			newChatsFrom: makeChat(8).created_at,
		});
	});

	test('the binding keeps no secret, and a state that records no binding has not moved', () => {
		const credentials = {
			host: 'https://Acme.svc.example:8443/api',
			email: 'A@B.c',
			password: 'secret',
		};
		const binding = { boundTo: digestOf('https://acme.svc.example:8443', 'a@b.c') };
		expect(serverBinding(credentials)).toEqual(binding);
		expect(serverBinding(credentials, { startedFrom: 'now' })).toEqual(binding);
	});
});

describe('only a digest of the server and account is stored', () => {
	const digestFor = (host: string, email: string) => serverBinding({ host, email }).boundTo;

	test('the same server and account typed another way give the same digest: SHA-256 of origin and e-mail, in hex', () => {
		const digest = digestFor(HOST, 'admin@svc.test');
		expect(digest).toBe(BOUND.boundTo);
		expect(digest).toMatch(/^[0-9a-f]{64}$/);
		for (const [host, email] of [
			[`https://${HOST}`, 'admin@svc.test'],
			['HTTPS://ACME.SVC.EXAMPLE/', 'Admin@SVC.test'],
			[` ${HOST}/ `, ' admin@svc.test '],
			[`${HOST}:443`, 'ADMIN@SVC.TEST'],
			[`https://${HOST}/api/v2/`, 'admin@svc.test'],
		])
			expect(digestFor(host, email)).toBe(digest);
	});

	test('another host, port, scheme or account gives another digest', () => {
		const digests = [
			digestFor(HOST, 'admin@svc.test'),
			digestFor(PRODUCTION, 'admin@svc.test'),
			digestFor(`${HOST}:8443`, 'admin@svc.test'),
			digestFor(HOST, 'ops@svc.test'),
			digestFor('http://localhost:8080', 'admin@svc.test'),
			digestFor('https://localhost:8080', 'admin@svc.test'),
			// The separator keeps host and account apart: moving characters between them is another binding.
			digestFor('https://a.example', 'b@c'),
			digestFor('https://a.exampleb', '@c'),
		];
		expect(new Set(digests).size).toBe(digests.length);
	});

	test('a fresh state holds no credential field: neither the host (in any spelling) nor the e-mail', async () => {
		const staticData: IDataObject = {};
		replyPage(0, [makeChat(1)], 10);
		const { poll } = pollAs(
			`HTTPS://ACME.svc.example/`,
			'Admin@Svc.Test',
			fromBeginning,
			staticData,
		);
		expect(ids(await poll())).toEqual([1]);
		expect(staticData).toEqual({
			...BOUND,
			startedFrom: 'beginning',
			cursor: '10',
			catchingUp: false,
		});
		const stored = JSON.stringify(staticData).toLowerCase();
		for (const field of [HOST, 'admin@svc.test', 'svc.test', TEST_PASSWORD.toLowerCase()])
			expect(stored).not.toContain(field);
	});

	test('a state saved with host and e-mail in clear, of the same server typed another way, keeps its cursor and is rewritten as the digest', async () => {
		const staticData = storedAt('900', PLAIN_BOUND);
		const kept = replyPage(900, [makeChat(4)], 950);
		const first = pollAs('ACME.svc.example/', ' Admin@SVC.test ', fromBeginning, staticData);
		expect(ids(await first.poll())).toEqual([4]);
		expect(kept.isDone()).toBe(true);
		expect(staticData).toEqual({
			...BOUND,
			startedFrom: 'beginning',
			cursor: '950',
			catchingUp: false,
		});
		expect(first.logger.warn).not.toHaveBeenCalled();

		// Read once: from then on the digest binds it, and still to the same server.
		const next = replyPage(950, [makeChat(5)], 960);
		const second = pollAs(HOST, 'admin@svc.test', fromBeginning, staticData);
		expect(ids(await second.poll())).toEqual([5]);
		expect(next.isDone()).toBe(true);
		expect(staticData).toEqual({
			...BOUND,
			startedFrom: 'beginning',
			cursor: '960',
			catchingUp: false,
		});
	});

	test('a "Now" state in clear that is still catching up is rewritten too, with nothing emitted', async () => {
		const staticData: IDataObject = {
			...PLAIN_BOUND,
			startedFrom: 'now',
			cursor: '400',
			catchingUp: true,
		};
		const kept = replyPage(400, [makeChat(6)], 450);
		const { poll } = pollAs(
			HOST,
			'admin@svc.test',
			{ startFrom: 'now', emit: 'everyChange', output: 'raw' },
			staticData,
		);
		expect(await poll()).toBeNull();
		expect(kept.isDone()).toBe(true);
		expect(staticData).toEqual({
			...BOUND,
			startedFrom: 'now',
			cursor: '450',
			catchingUp: false,
			newChatsFrom: makeChat(6).created_at,
		});
	});

	test.each([
		['another host', PRODUCTION, 'admin@svc.test', `https://${PRODUCTION}`],
		['another account', HOST, 'ops@svc.test', BASE_URL],
	])(
		'a state in clear read from %s starts again from Start From, is rewritten as the digest, and the log names no e-mail',
		async (_, host, email, origin) => {
			const staticData = storedAt('900', PLAIN_BOUND);
			const restarted = nock(origin)
				.get('/api/v2/chats')
				.query({ since: '0' })
				.reply(200, { chats: [makeChat(7)], more_chats_available: false, last_ts: 70 });
			const moved = pollAs(host, email, fromBeginning, staticData);
			expect(ids(await moved.poll())).toEqual([7]);
			expect(restarted.isDone()).toBe(true);
			expect(staticData).toEqual({
				boundTo: digestOf(origin, email),
				startedFrom: 'beginning',
				cursor: '70',
				catchingUp: false,
			});
			expect(moved.logger.warn).toHaveBeenCalledWith(
				`Svc Chat Trigger: the credential now points at another server or account than the saved position was read from (the server is now ${origin}); starting again from the Beginning of History`,
			);
			const logged = JSON.stringify(moved.logger.warn.mock.calls).toLowerCase();
			expect(logged).not.toContain('admin@svc.test');
			expect(logged).not.toContain('ops@svc.test');
		},
	);

	test('a state saved before any binding is adopted and gets the digest, not the host and e-mail', async () => {
		const staticData: IDataObject = { startedFrom: 'now', cursor: '300', catchingUp: false };
		const kept = replyPage(300, [makeChat(9)], 310);
		const { logger, poll } = pollAs(
			HOST,
			'admin@svc.test',
			{ startFrom: 'now', emit: 'everyChange', output: 'raw' },
			staticData,
		);
		expect(ids(await poll())).toEqual([9]);
		expect(kept.isDone()).toBe(true);
		expect(staticData).toEqual({ ...BOUND, startedFrom: 'now', cursor: '310', catchingUp: false });
		expect(logger.warn).not.toHaveBeenCalled();
	});

	test('the reason shows no host the transport refuses: what was typed there may be a password', () => {
		const credentials = { host: 'admin:Pw-secret@acme.svc.example', email: 'a@b.c' };
		expect(serverBinding(credentials, { ...BOUND }).moved).toBe(
			'the credential now points at another server or account than the saved position was read from',
		);
	});
});

test('edits that keep Start From (Emit, Output, Max Chats per Poll, Include Cursor) keep the cursor', async () => {
	const staticData = storedAt('500');
	const edits: INodeParameters[] = [
		{ ...fromBeginning, emit: 'finishedChats' },
		{ ...fromBeginning, output: 'simplified' },
		{ ...fromBeginning, options: { maxChatsPerPoll: 10, includeCursor: true } },
	];
	for (const [index, parameters] of edits.entries()) {
		const cursor = String(500 + index);
		const scope = replyPage(cursor, [], String(500 + index + 1));
		expect(await triggerHarness(parameters, staticData).poll()).toBeNull();
		expect(scope.isDone()).toBe(true);
		expect(staticData.cursor).toBe(String(500 + index + 1));
	}
});

/**
 * n8n on default settings saves the trigger's static data only when a poll emits (n8n-core's poll executor); a poll
 * that returns null changes it in memory only. These tests replay a restart that loses every null-poll change
 * (the state goes back to what the last emitting poll saved) and compare with the run that kept them.
 */
describe('losing the changes of a poll that emitted nothing is harmless (Beginning of History, Specific Date)', () => {
	async function run(emit: string, restartLosesNullPolls: boolean) {
		let staticData: IDataObject = {};
		let saved: IDataObject = {};
		const emitted: IDataObject[] = [];
		const parameters = { startFrom: 'beginning', emit, output: 'raw' };
		const pollOnce = async () => {
			const items = await triggerHarness(parameters, staticData).poll();
			if (items) {
				emitted.push(...items);
				saved = structuredClone(staticData);
			}
		};
		replyPage(0, [makeChat(1, { states: ['chatting', 'closed'] }), makeChat(2)], 100);
		await pollOnce();
		// Chat 2 changes without closing: Finished Chats and New Chats emit nothing, and the cursor moves in memory.
		replyPage(100, [makeChat(2, { messages: 2 })], 200);
		await pollOnce();
		if (restartLosesNullPolls) staticData = structuredClone(saved);
		// The server answers from wherever the cursor is: with the latest versions since then.
		replyPage(
			String(staticData.cursor),
			[makeChat(2, { messages: 3, states: ['chatting', 'closed'] }), makeChat(3)],
			300,
		);
		await pollOnce();
		expect(nock.pendingMocks()).toEqual([]);
		return {
			emitted: emitted.map((chat) => `${chat.id}:${(chat.messages as unknown[]).length}`),
			staticData,
		};
	}

	for (const emit of ['finishedChats', 'newChats', 'everyChange']) {
		test(`${emit}: a restart after a null poll emits the same chats, and ends in the same state, as no restart`, async () => {
			const kept = await run(emit, false);
			const lost = await run(emit, true);
			expect(lost.emitted).toEqual(kept.emitted);
			expect(lost.staticData).toEqual(kept.staticData);
			expect(kept.emitted.length).toBeGreaterThan(0);
		});
	}
});

describe("n8n's poll budget (getPollBudgetMs, where n8n has it)", () => {
	test('a "Now" catch-up stops within the budget, keeps what it read, and continues at the next poll', async () => {
		const now = Date.UTC(2025, 5, 1, 12);
		jest.spyOn(Date, 'now').mockReturnValue(now);
		const staticData: IDataObject = {};
		const parameters = { startFrom: 'now', emit: 'everyChange', output: 'raw' };
		// Server cursors move forward from the look-back start (a cursor below 'since' would be ignored).
		const [middle, end] = [String(microsAt(now - 1_800_000)), String(microsAt(now - 60_000))];
		replyPage(microsAt(now - 3_600_000), chatRange(1, 50), middle, true);
		const rest = replyPage(middle, chatRange(51, 50), end, false);

		const first = triggerHarness(parameters, staticData);
		first.context.getPollBudgetMs.mockReturnValue(0);
		expect(await first.poll()).toBeNull();
		expect(rest.isDone()).toBe(false);
		expect(staticData).toMatchObject({ cursor: middle, catchingUp: true });

		const second = triggerHarness(parameters, staticData);
		second.context.getPollBudgetMs.mockReturnValue(36_000);
		expect(await second.poll()).toBeNull();
		expect(rest.isDone()).toBe(true);
		expect(staticData).toMatchObject({ cursor: end, catchingUp: false });
	});

	test('the walk stops once half the budget is spent, at a page boundary', async () => {
		let clock = Date.UTC(2025, 5, 1, 12);
		jest.spyOn(Date, 'now').mockImplementation(() => clock);
		const staticData = storedAt('0');
		// Each page takes 10 s of the 36 s budget n8n's durable scheduler gives by default: the walk stops after page 2.
		for (const page of [0, 1, 2]) {
			nock(BASE_URL)
				.get('/api/v2/chats')
				.query({ since: String(page * 100) })
				.reply(() => {
					clock += 10_000;
					return [
						200,
						{
							chats: chatRange(page * 10 + 1, 10),
							more_chats_available: true,
							last_ts: (page + 1) * 100,
						},
					];
				});
		}
		const harness = triggerHarness(fromBeginning, staticData);
		harness.context.getPollBudgetMs.mockReturnValue(36_000);
		expect(await harness.poll()).toHaveLength(20);
		expect(staticData.cursor).toBe('200');
		expect(nock.pendingMocks()).toHaveLength(1);
		dropUnrequestedMocks();
	});

	test('no request is retried past the budget: the poll fails at once, says why, and keeps its state', async () => {
		const staticData = storedAt('0');
		const saved = structuredClone(staticData);
		const busy = busyForFiveSeconds('/api/v2/chats');
		const harness = triggerHarness(fromBeginning, staticData);
		// A Retry-After of 5 s ends past a 2 s budget; within n8n's default 36 s, the same reply is waited for.
		harness.context.getPollBudgetMs.mockReturnValue(2_000);
		await expect(harness.poll()).rejects.toMatchObject({
			message: 'The server is temporarily unavailable (503)',
			description:
				'Try again later. The poll ran out of the time n8n gives it, so the next poll starts again from the same place.',
		});
		expect(busy.requests).toBe(1);
		expect(staticData).toEqual(saved);
		dropUnrequestedMocks();
	});

	test('n8n without getPollBudgetMs (1.x, older 2.x) reads every page up to Max Chats per Poll', async () => {
		const staticData = storedAt('0');
		replyPage(0, chatRange(1, 10), 100, true);
		replyPage(100, chatRange(11, 10), 200, false);
		const harness = triggerHarness(fromBeginning, staticData);
		(harness.context as { getPollBudgetMs?: unknown }).getPollBudgetMs = undefined;
		expect(await harness.poll()).toHaveLength(20);
		expect(staticData.cursor).toBe('200');
	});
});
