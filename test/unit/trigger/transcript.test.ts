// Outputs Transcript and Simplified in the trigger's chat events: operator names read once per poll (not once per activation), only
// when a poll has chats to emit, and a failed GET /operators fails the poll without moving the stored place.
import nock from 'nock';
import type { IDataObject } from 'n8n-workflow';

import { SvcChatTrigger } from '../../../nodes/SvcChat/SvcChatTrigger.node';
import { testCredentials, triggerUnderTest } from '../../harness/contexts';
import { BASE_URL } from '../../harness/fixtures';
import { dropUnrequestedMocks, everyRequestTo } from '../../harness/nockSetup';
import { everyOperatorsRequest, HOST, makeChat, replyPage, triggerHarness } from './fixtures';

const transcript = (emit = 'everyChange') => ({
	startFrom: 'beginning',
	emit,
	output: 'transcript',
});

/** GET /operators answering with Anna as operator 7, under `name`; counts the requests. */
function operatorsReply(seen: { requests: number }, name = 'Anna Petrova') {
	nock(BASE_URL)
		.get('/api/v2/operators')
		.reply(() => {
			seen.requests++;
			return [200, [{ id: 7, full_name: name }]];
		});
}

afterEach(() => jest.restoreAllMocks());

test('each emitted chat is the simplified record plus its transcript, in the workflow time zone', async () => {
	const seen = { requests: 0 };
	replyPage(0, [makeChat(1, { messages: 2 }), makeChat(2, { messages: 1 })], 100);
	operatorsReply(seen);
	const { context } = triggerUnderTest({
		parameters: transcript(),
		credentials: testCredentials(HOST),
		staticData: {},
		timezone: 'Asia/Tokyo',
	});
	const [items] = (await new SvcChatTrigger().poll.call(context)) ?? [];
	expect(items.map((item) => item.json)).toEqual([
		expect.objectContaining({
			id: '1',
			operator_name: 'Anna Petrova',
			message_count: 2,
			final_state: 'chatting',
			transcript: [
				'Chat 1, times in Asia/Tokyo',
				'[2024-01-01 09:01:00] Visitor: message 1',
				'[2024-01-01 09:01:00] Anna Petrova (operator): message 2',
			].join('\n'),
		}),
		expect.objectContaining({
			id: '2',
			transcript: 'Chat 2, times in Asia/Tokyo\n[2024-01-01 09:02:00] Visitor: message 1',
		}),
	]);
	expect(seen.requests).toBe(1);
});

test('is read once per poll, also when n8n polls again with the same context: a renamed operator shows', async () => {
	const seen = { requests: 0 };
	const staticData: IDataObject = {};
	// n8n builds one poll context per activation and polls with it every time.
	const harness = triggerHarness(transcript(), staticData);
	replyPage(0, [makeChat(1, { messages: 2 }), makeChat(2, { messages: 2 })], 100);
	operatorsReply(seen);
	const first = await harness.poll();
	expect(first?.map((item) => String(item.transcript).split('\n')[2])).toEqual([
		'[2023-12-31 19:01:00] Anna Petrova (operator): message 2',
		'[2023-12-31 19:02:00] Anna Petrova (operator): message 2',
	]);
	replyPage(100, [makeChat(1, { messages: 2 })], 200);
	operatorsReply(seen, 'Anna Ivanova');
	const second = await harness.poll();
	expect(String(second?.[0].transcript)).toContain('Anna Ivanova (operator): message 2');
	expect(seen.requests).toBe(2);
});

test('a poll with nothing to emit asks for no operator names', async () => {
	const staticData: IDataObject = {};
	replyPage(0, [makeChat(1, { states: ['chatting'] })], 100);
	const seen = everyOperatorsRequest();
	expect(await triggerHarness(transcript('finishedChats'), staticData).poll()).toBeNull();
	expect(staticData.cursor).toBe('100');
	expect(seen.requests).toBe(0);
	dropUnrequestedMocks();
});

test('Simplified names the operators from one GET /operators per poll; null for an id the account no longer has', async () => {
	const gone = { ...makeChat(2, { messages: 2 }), operator_id: 99 };
	replyPage(0, [makeChat(1, { messages: 2 }), gone], 100);
	const seen = everyOperatorsRequest();
	const items = await triggerHarness({ ...transcript(), output: 'simplified' }, {}).poll();
	expect(items?.map((item) => [item.id, item.operator_id, item.operator_name])).toEqual([
		['1', 7, 'Anna Petrova'],
		['2', 99, null],
	]);
	expect(items?.[0]).not.toHaveProperty('transcript');
	expect(seen.requests).toBe(1);
});

test('a failed GET /operators fails the poll and keeps the stored place: the next poll emits the same chats', async () => {
	const seen = { requests: 0 };
	const staticData: IDataObject = { startedFrom: 'beginning', cursor: '50', catchingUp: false };
	const before = structuredClone(staticData);
	replyPage(50, [makeChat(1, { messages: 2 })], 100);
	// The first try and its 3 retries (pauses take no time here).
	nock(BASE_URL)
		.get('/api/v2/operators')
		.times(4)
		.reply(() => {
			seen.requests++;
			return [502, 'Bad Gateway'];
		});
	const error = await triggerHarness(transcript(), staticData)
		.poll()
		.then(
			() => undefined,
			(thrown: Error & { description?: string }) => thrown,
		);
	expect(error?.message).toBe('The server cannot process the request (502)');
	expect(error?.description).toMatch(/Transcript names the operators from Get many operators/);
	expect(staticData).toEqual(before);

	replyPage(50, [makeChat(1, { messages: 2 })], 100);
	operatorsReply(seen);
	const items = await triggerHarness(transcript(), staticData).poll();
	expect(items?.map((item) => item.id)).toEqual(['1']);
	expect(staticData.cursor).toBe('100');
	expect(seen.requests).toBe(5);
});

test('Fetch Test Event shows transcripts too', async () => {
	const seen = { requests: 0 };
	// Each look-back step finds this one chat; the test event shows it once.
	everyRequestTo('GET', 'chats').reply(200, {
		chats: [makeChat(1, { messages: 2 })],
		more_chats_available: false,
		last_ts: 9,
	});
	operatorsReply(seen);
	const items = await triggerHarness(transcript(), {}, 'manual').poll();
	expect(items?.map((item) => item.transcript)).toEqual([
		'Chat 1, times in America/New_York\n[2023-12-31 19:01:00] Visitor: message 1\n[2023-12-31 19:01:00] Anna Petrova (operator): message 2',
	]);
	expect(seen.requests).toBe(1);
});

test('New Rating and Missed Chat carry the chat as a transcript; a failed GET /operators keeps their memory and place', async () => {
	const seen = { requests: 0 };
	const rated = {
		...makeChat(1, { messages: 2 }),
		rates: [{ rate: 1, operator_id: 7, created_at: '2025-05-01T10:00:00.000Z' }],
	};
	const newRating = { startFrom: 'beginning', emit: 'newRating', chatOutput: 'transcript' };
	const staticData: IDataObject = { startedFrom: 'beginning', cursor: '50', catchingUp: false };
	const before = structuredClone(staticData);
	replyPage(50, [rated], 100);
	nock(BASE_URL).get('/api/v2/operators').times(4).reply(502, 'Bad Gateway');
	await expect(triggerHarness(newRating, staticData).poll()).rejects.toThrow('(502)');
	expect(staticData).toEqual(before);

	replyPage(50, [rated], 100);
	operatorsReply(seen);
	const [item] = (await triggerHarness(newRating, staticData).poll()) ?? [];
	expect(item).toMatchObject({ chat_id: 1, rating: 1, chat: { id: '1', message_count: 2 } });
	expect((item.chat as IDataObject).transcript).toMatch(/Anna Petrova \(operator\)/);
	expect(staticData.cursor).toBe('100');
	expect(seen.requests).toBe(1);
});
