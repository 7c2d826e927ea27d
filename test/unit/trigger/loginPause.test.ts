// After a refused login (401, 403) every event of the trigger pauses its polls, longer each time; a corrected
// credential, a new publication or a good poll ends the pause; other failures keep today's behaviour.
import nock from 'nock';
import type { IDataObject, INodeParameters, WorkflowActivateMode } from 'n8n-workflow';

import { SvcChatTrigger } from '../../../nodes/SvcChat/SvcChatTrigger.node';
import { LOGIN_PAUSE_KEY } from '../../../nodes/SvcChat/trigger/loginPause';
import type { SvcCredentials } from '../../../nodes/SvcChat/transport/request';
import { testCredentials, triggerUnderTest } from '../../harness/contexts';
import { BASE_URL, instantPauses } from '../../harness/fixtures';
import { dropUnrequestedMocks } from '../../harness/nockSetup';
import { HOST, makeChat, OPERATORS } from './fixtures';
import { NOW } from './clock';

const MINUTE = 60_000;
let now = NOW;
beforeEach(() => {
	now = NOW;
	jest.spyOn(Date, 'now').mockImplementation(() => now);
});
afterEach(() => jest.restoreAllMocks());

/** Every event, each reading its first endpoint: what a refused login answers first. */
const EVENTS: Array<[string, INodeParameters, string]> = [
	['everyChange', { emit: 'everyChange', startFrom: 'beginning', output: 'raw' }, 'chats'],
	['newChats', { emit: 'newChats', startFrom: 'now', output: 'raw' }, 'chats'],
	['finishedChats', { emit: 'finishedChats', startFrom: 'beginning', output: 'raw' }, 'chats'],
	['newRating', { emit: 'newRating', startFrom: 'beginning', chatOutput: 'raw' }, 'chats'],
	['missedChat', { emit: 'missedChat', startFrom: 'beginning', chatOutput: 'raw' }, 'chats'],
	['operatorStatusChanged', { emit: 'operatorStatusChanged' }, 'operators'],
	['operatorAvailabilityChanged', { emit: 'operatorAvailabilityChanged' }, 'operators'],
];
const [EVERY_CHANGE] = EVENTS;

/** A server that answers `path` with `status` (401 unless told) and counts what reached it. */
function refusing(path = 'chats', status = 401, body: unknown = 'Unauthorized') {
	const seen = { requests: 0 };
	nock(BASE_URL)
		.persist()
		.get(`/api/v2/${path}`)
		.query(true)
		.optionally()
		.reply(() => {
			seen.requests++;
			return [status, body];
		});
	return seen;
}

/** A server that answers every read well. */
function answering() {
	nock(BASE_URL)
		.persist()
		.get('/api/v2/chats')
		.query(true)
		.reply(200, { chats: [makeChat(1)], more_chats_available: false, last_ts: 100 });
	nock(BASE_URL).persist().get('/api/v2/operators').reply(200, OPERATORS);
}

function poller(
	parameters: INodeParameters,
	staticData: IDataObject,
	{
		credentials = testCredentials(HOST),
		activation = 'init',
	}: { credentials?: SvcCredentials; activation?: WorkflowActivateMode } = {},
) {
	const { context } = triggerUnderTest({ parameters, credentials, staticData, activation });
	return async () => {
		instantPauses();
		return await new SvcChatTrigger().poll.call(context).then(
			(result) => ({ emitted: result !== null }),
			(error: Error & { description?: string; httpCode?: string }) => ({ error }),
		);
	};
}

const pauseOf = (staticData: IDataObject) =>
	staticData[LOGIN_PAUSE_KEY] as { refusals: number; until: string } | undefined;

test.each(EVENTS)(
	'%s: a refused login starts a pause in which polls make no request and emit nothing',
	async (_event, parameters, path) => {
		const staticData: IDataObject = {};
		const server = refusing(path);
		const poll = poller(parameters, staticData);
		const first = await poll();
		expect(first).toMatchObject({ error: { httpCode: '401', message: 'Wrong email or password' } });
		expect((first as { error: Error & { description: string } }).error.description).toContain(
			`makes no request until ${new Date(NOW + MINUTE).toISOString()}`,
		);
		expect(server.requests).toBe(1);
		for (const at of [1_000, 30_000, MINUTE - 1]) {
			now = NOW + at;
			expect(await poll()).toEqual({ emitted: false });
		}
		expect(server.requests).toBe(1);
		now = NOW + MINUTE;
		expect(await poll()).toHaveProperty('error');
		expect(server.requests).toBe(2);
		dropUnrequestedMocks();
	},
);

test('the pauses: 1, 2, 4, 8, 16, 32, then 60 minutes; a published trigger polling every minute logs in wrong at most 6 times an hour', async () => {
	const staticData: IDataObject = {};
	const server = refusing();
	const poll = poller(EVERY_CHANGE[1], staticData);
	const pauses: number[] = [];
	const attemptsPerHour = new Map<number, number>();
	for (let minute = 0; minute < 5 * 60; minute++) {
		now = NOW + minute * MINUTE;
		const before = server.requests;
		await poll();
		if (server.requests === before) continue;
		const hour = Math.floor(minute / 60);
		attemptsPerHour.set(hour, (attemptsPerHour.get(hour) ?? 0) + 1);
		pauses.push((Date.parse(pauseOf(staticData)!.until) - now) / MINUTE);
	}
	expect(pauses.slice(0, 9)).toEqual([1, 2, 4, 8, 16, 32, 60, 60, 60]);
	expect(Math.max(...attemptsPerHour.values())).toBe(6);
	expect([...attemptsPerHour.values()]).toEqual([6, 1, 1, 1, 1]);
	dropUnrequestedMocks();
});

test('the pause is in static data, so it survives a restart; a publication or an update retries at once', async () => {
	const staticData: IDataObject = {};
	const server = refusing();
	await poller(EVERY_CHANGE[1], staticData)();
	expect(server.requests).toBe(1);
	// What n8n loads after a restart: a copy, in a new process (a new state object), started by 'init'.
	const restarted = structuredClone(staticData);
	now = NOW + 30_000;
	expect(await poller(EVERY_CHANGE[1], restarted)()).toEqual({ emitted: false });
	expect(server.requests).toBe(1);
	for (const activation of ['activate', 'update'] as const) {
		const published = structuredClone(staticData);
		expect(await poller(EVERY_CHANGE[1], published, { activation })()).toHaveProperty('error');
		expect(pauseOf(published)?.refusals).toBe(2);
	}
	expect(server.requests).toBe(3);
	// Only the first poll of a publication retries at once; the next keeps the pause it started.
	const published = structuredClone(staticData);
	const poll = poller(EVERY_CHANGE[1], published, { activation: 'activate' });
	await poll();
	expect(await poll()).toEqual({ emitted: false });
	expect(server.requests).toBe(4);
	dropUnrequestedMocks();
});

test('the stored pause holds nothing of the password, and n8n keeps it beside the events state', async () => {
	const staticData: IDataObject = {};
	refusing();
	await poller(EVERY_CHANGE[1], staticData)();
	const text = JSON.stringify(staticData);
	expect(Object.keys(pauseOf(staticData)!).sort()).toEqual(['boundTo', 'refusals', 'until']);
	const { password } = testCredentials(HOST);
	expect(text).not.toContain(password);
	// Not even a digest of it: the only digest is the binding of host and e-mail the events' state keeps too.
	expect(text.match(/[0-9a-f]{64}/g)).toEqual([
		(staticData[LOGIN_PAUSE_KEY] as IDataObject).boundTo,
	]);
	dropUnrequestedMocks();
});

test('a corrected password or e-mail retries at once; a good poll ends the pause and the next refusal starts at 1 minute', async () => {
	const staticData: IDataObject = {};
	const refused = refusing();
	await poller(EVERY_CHANGE[1], staticData)();
	now = NOW + 10_000;
	// The same wrong credential, read again: still paused.
	expect(await poller(EVERY_CHANGE[1], staticData)()).toEqual({ emitted: false });
	expect(refused.requests).toBe(1);
	for (const change of [{ password: 'Corrected-1' }, { email: 'other@svc.test' }]) {
		const credentials = testCredentials(HOST, change);
		expect(await poller(EVERY_CHANGE[1], staticData, { credentials })()).toHaveProperty('error');
	}
	expect(refused.requests).toBe(3);
	expect(pauseOf(staticData)?.refusals).toBe(3);
	dropUnrequestedMocks();

	answering();
	const credentials = testCredentials(HOST, { password: 'Corrected-2' });
	expect(await poller(EVERY_CHANGE[1], staticData, { credentials })()).toEqual({ emitted: true });
	expect(staticData).not.toHaveProperty(LOGIN_PAUSE_KEY);
	dropUnrequestedMocks();
	refusing();
	await poller(EVERY_CHANGE[1], staticData)();
	expect(pauseOf(staticData)).toEqual(
		expect.objectContaining({ refusals: 1, until: new Date(now + MINUTE).toISOString() }),
	);
	dropUnrequestedMocks();
});

test.each([
	['too many login attempts', 403],
	['not an administrator', 403],
	['wrong e-mail or password', 401],
])('%s (%i) pauses', async (_why, status) => {
	const staticData: IDataObject = {};
	refusing('operators', status, 'Forbidden');
	await poller(EVENTS[5][1], staticData)();
	expect(pauseOf(staticData)?.refusals).toBe(1);
	dropUnrequestedMocks();
});

test('any other failure (502, a network error) keeps today’s behaviour: a failed poll, no pause, the next poll on schedule', async () => {
	const staticData: IDataObject = {};
	const failing = refusing('chats', 502, 'Bad Gateway');
	const poll = poller(EVERY_CHANGE[1], staticData);
	expect(await poll()).toMatchObject({ error: { httpCode: '502' } });
	expect(staticData).not.toHaveProperty(LOGIN_PAUSE_KEY);
	const tries = failing.requests;
	now = NOW + 1_000;
	await poll();
	expect(failing.requests).toBe(2 * tries);
	dropUnrequestedMocks();
});

test('Fetch Test Event is never paused and records no refusal', async () => {
	const staticData: IDataObject = {};
	const server = refusing();
	await poller(EVERY_CHANGE[1], staticData)();
	const { context } = triggerUnderTest({
		parameters: EVERY_CHANGE[1],
		credentials: testCredentials(HOST),
		staticData,
		mode: 'manual',
	});
	await expect(new SvcChatTrigger().poll.call(context)).rejects.toThrow('Wrong email or password');
	expect(server.requests).toBe(2);
	expect(pauseOf(staticData)?.refusals).toBe(1);
	dropUnrequestedMocks();
});
