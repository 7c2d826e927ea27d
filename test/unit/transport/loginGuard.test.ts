// The login guard (issue 57): one pause per account (host and e-mail) in the process, under every request of both
// nodes: triggers skip their polls, runs no person started fail at once, a person's run tries and counts.
import nock from 'nock';
import type { IDataObject, INodeParameters, WorkflowActivateMode } from 'n8n-workflow';

import { SvcChat } from '../../../nodes/SvcChat/SvcChat.node';
import { SvcChatTrigger } from '../../../nodes/SvcChat/SvcChatTrigger.node';
import { forgetAccounts, LoginPaused } from '../../../nodes/SvcChat/transport/loginGuard';
import type { SvcCredentials } from '../../../nodes/SvcChat/transport/request';
import { createExecuteContext, testCredentials, triggerUnderTest } from '../../harness/contexts';
import { BASE_URL, HOST, instantPauses } from '../../harness/fixtures';
import { dropUnrequestedMocks } from '../../harness/nockSetup';
import { makeChat, OPERATORS } from '../trigger/fixtures';
import { NOW } from '../trigger/clock';

const MINUTE = 60_000;
let now = NOW;
beforeEach(() => {
	now = NOW;
	jest.spyOn(Date, 'now').mockImplementation(() => now);
	instantPauses();
});
afterEach(() => jest.restoreAllMocks());

const EVERY_CHANGE = { emit: 'everyChange', startFrom: 'beginning', output: 'raw' };
const OPERATOR_STATUS = { emit: 'operatorStatusChanged' };
const CORRECTED = testCredentials(HOST, { password: 'Corrected-pw-1' });

/** A server that answers every read of `host` with `status` and counts the requests and the passwords it was sent. */
function server(status: number, host = BASE_URL) {
	const seen = { requests: 0, passwords: [] as string[] };
	const reply = (path: string, body: unknown) =>
		nock(host)
			.persist()
			.get(path)
			.query(true)
			.optionally()
			.reply(function () {
				seen.requests++;
				const basic = String(this.req.headers.authorization).replace('Basic ', '');
				seen.passwords.push(Buffer.from(basic, 'base64').toString().split(':')[1]);
				return status === 200 ? [200, body] : [status, 'Refused'];
			});
	reply('/api/v2/chats', { chats: [makeChat(1)], more_chats_available: false, last_ts: 100 });
	reply('/api/v2/operators', OPERATORS);
	return seen;
}

type Outcome = { emitted: boolean } | { error: Error & { description?: string } };
const settle = async (run: Promise<unknown>): Promise<Outcome> =>
	await run.then(
		(result) => ({ emitted: result !== null }),
		(error: Error & { description?: string }) => ({ error }),
	);

function trigger(
	parameters: INodeParameters = EVERY_CHANGE,
	{
		staticData = {},
		credentials = testCredentials(HOST),
		activation = 'init',
		mode = 'trigger',
	}: {
		staticData?: IDataObject;
		credentials?: SvcCredentials;
		activation?: WorkflowActivateMode;
		mode?: 'trigger' | 'manual';
	} = {},
) {
	const { context } = triggerUnderTest({ parameters, credentials, staticData, activation, mode });
	return async () => await settle(new SvcChatTrigger().poll.call(context));
}

function action({ credentials = testCredentials(HOST), manual = false } = {}) {
	const node = new SvcChat();
	const context = createExecuteContext({
		description: node.description,
		parameters: { resource: 'operator', operation: 'getMany', returnAll: true },
		credentials,
		mode: manual ? 'manual' : 'trigger',
	});
	return async () => await settle(node.execute.call(context));
}

const errorOf = (outcome: Outcome) => {
	if (!('error' in outcome)) throw new Error(`expected an error, got ${JSON.stringify(outcome)}`);
	return outcome.error;
};
const iso = (ms: number) => new Date(ms).toISOString();

test('one account, one pause: two trigger states and a scheduled action all stop after one refused login', async () => {
	const refusing = server(401);
	const first = errorOf(await trigger()());
	expect(first.message).toBe('Wrong email or password');
	expect(first.description).toContain(
		`make no request with this password until ${iso(NOW + MINUTE)}`,
	);
	expect(refusing.requests).toBe(1);
	now = NOW + 10_000;
	expect(await trigger(OPERATOR_STATUS)()).toEqual({ emitted: false });
	const paused = errorOf(await action()());
	expect(paused).toBeInstanceOf(LoginPaused);
	expect(paused.message).toMatch(`Svc logins of this account pause until ${iso(NOW + MINUTE)}`);
	expect(paused.description).toMatch(/A login was refused \(HTTP 401 or 403\)/);
	expect(paused.description).toContain(
		'To retry at once: correct the credential, run the step by hand, or publish the workflow again.',
	);
	expect(refusing.requests).toBe(1);
	dropUnrequestedMocks();
});

test("a person's run always tries, and its refusal counts for the account", async () => {
	const refusing = server(401);
	await trigger()();
	now = NOW + 10_000;
	for (const run of [action({ manual: true }), trigger(EVERY_CHANGE, { mode: 'manual' })])
		expect(errorOf(await run()).message).toMatch(/^Wrong email or password/);
	expect(refusing.requests).toBe(3);
	// Three refusals in a row: the next pause is 4 minutes from the last attempt.
	expect(errorOf(await action()()).message).toContain(iso(NOW + 10_000 + 4 * MINUTE));
	expect(refusing.requests).toBe(3);
	dropUnrequestedMocks();
});

test('a corrected password tries at once and works for every workflow; the refused one stays paused', async () => {
	server(401);
	await trigger()();
	nock.cleanAll();
	const answering = server(200);
	now = NOW + 5_000;
	expect(await trigger(EVERY_CHANGE, { credentials: CORRECTED })()).toEqual({ emitted: true });
	expect(await action({ credentials: CORRECTED })()).toEqual({ emitted: true });
	// A stale credential with the refused password keeps its pause.
	expect(errorOf(await action()())).toBeInstanceOf(LoginPaused);
	expect(answering.passwords).toEqual([CORRECTED.password, CORRECTED.password]);
	dropUnrequestedMocks();
});

test('a corrected password answered after the pause ended restarts it: runs that read the credential before the correction do not try the refused one', async () => {
	server(401);
	await trigger()();
	nock.cleanAll();
	const answering = server(200);
	now = NOW + MINUTE + 5_000;
	expect(await trigger(EVERY_CHANGE, { credentials: CORRECTED })()).toEqual({ emitted: true });
	const stale = errorOf(await action()());
	expect(stale).toBeInstanceOf(LoginPaused);
	expect(stale.message).toContain(iso(now + MINUTE));
	expect(answering.passwords).toEqual([CORRECTED.password]);
	dropUnrequestedMocks();
});

test("a new publication's first poll tries at once; its next polls keep the pause", async () => {
	const refusing = server(401);
	await trigger()();
	now = NOW + 5_000;
	const published = trigger(EVERY_CHANGE, { activation: 'activate' });
	expect(errorOf(await published()).description).toContain('refused logins in a row: 2');
	expect(await published()).toEqual({ emitted: false });
	expect(refusing.requests).toBe(2);
	dropUnrequestedMocks();
});

test('another account (another e-mail, another host) is not paused', async () => {
	server(401);
	await trigger()();
	const otherHost = server(200, 'https://other.svc.example');
	expect(await action({ credentials: testCredentials('other.svc.example') })()).toEqual({
		emitted: true,
	});
	nock.cleanAll();
	const otherEmail = server(200);
	expect(
		await trigger(EVERY_CHANGE, {
			credentials: testCredentials(HOST, { email: 'second.admin@svc.test' }),
		})(),
	).toEqual({ emitted: true });
	expect([otherHost.requests, otherEmail.requests]).toEqual([1, 1]);
	dropUnrequestedMocks();
});

test('requests already on their way: eight triggers and two actions started together cost one wrong login', async () => {
	const refusing = server(401);
	const runs = [
		...Array.from({ length: 8 }, (_, index) =>
			trigger(index % 2 ? OPERATOR_STATUS : EVERY_CHANGE)(),
		),
		action()(),
		action()(),
	];
	const outcomes = await Promise.all(runs);
	expect(refusing.requests).toBe(1);
	const refused = outcomes.filter(
		(outcome) => 'error' in outcome && !(outcome.error instanceof LoginPaused),
	);
	expect(refused).toHaveLength(1);
	// The others made no request: the triggers skipped their polls, the actions failed at once.
	expect(outcomes.filter((outcome) => 'emitted' in outcome && outcome.emitted)).toEqual([]);
	dropUnrequestedMocks();
});

test('a healthy account: the first request goes alone, then the others side by side', async () => {
	const answering = server(200);
	const outcomes = await Promise.all(
		Array.from({ length: 8 }, (_, index) => trigger(index % 2 ? OPERATOR_STATUS : EVERY_CHANGE)()),
	);
	expect(outcomes.every((outcome) => 'emitted' in outcome)).toBe(true);
	expect(answering.requests).toBeGreaterThanOrEqual(8);
	dropUnrequestedMocks();
});

test('a success proves the password as of when its request left: a slow answer does not let the next burst go side by side', async () => {
	nock(BASE_URL)
		.get('/api/v2/operators')
		.query(true)
		.reply(() => {
			now += 1_500; // a loaded machine: the answer comes 1.5 s after the request left
			return [200, OPERATORS];
		});
	expect(await trigger(OPERATOR_STATUS)()).toEqual({ emitted: false });
	// The password changes on the server; the next burst comes 0.1 s after that slow answer.
	const refusing = server(401);
	now += 100;
	await Promise.all(
		Array.from({ length: 8 }, (_, index) => trigger(index % 2 ? OPERATOR_STATUS : EVERY_CHANGE)()),
	);
	expect(refusing.requests).toBe(1);
	dropUnrequestedMocks();
});

test('a 403 right after a corrected password may be the server’s lock: it does not grow the pause', async () => {
	server(401);
	for (const at of [0, 1, 3]) {
		now = NOW + at * MINUTE;
		await action({ manual: true })();
	}
	nock.cleanAll();
	const locked = server(403);
	now = NOW + 3 * MINUTE + 5_000;
	const afterFix = errorOf(await trigger(EVERY_CHANGE, { credentials: CORRECTED })());
	expect(afterFix.description).toContain('The server may still be blocking logins');
	expect(afterFix.description).toContain('up to a minute');
	expect(afterFix.description).toContain(`until ${iso(now + MINUTE)}`);
	expect(afterFix.description).toContain('refused logins in a row: 3');
	// The same password refused again after that pause is a refusal like any other.
	now += MINUTE;
	expect(errorOf(await trigger(EVERY_CHANGE, { credentials: CORRECTED })()).description).toContain(
		'refused logins in a row: 4',
	);
	expect(locked.requests).toBe(2);
	dropUnrequestedMocks();
});

test('a pause ends on time: with polls every minute, a 1-minute pause skips one poll, even one due a little early', async () => {
	const refusing = server(401);
	const poll = trigger();
	now = NOW + 40; // n8n's tick, then the request
	await poll();
	now = NOW + 30_000;
	expect(await poll()).toEqual({ emitted: false });
	now = NOW + MINUTE - 3; // the next tick, a few milliseconds early
	expect(await poll()).toHaveProperty('error');
	expect(refusing.requests).toBe(2);
	dropUnrequestedMocks();
});

test('the bound: 10 triggers and a scheduled action every minute for 5 hours log in wrong 6 times in the first hour, then once an hour', async () => {
	const refusing = server(401);
	const runs = [
		...Array.from({ length: 10 }, (_, index) =>
			trigger(index % 2 ? OPERATOR_STATUS : EVERY_CHANGE),
		),
		action(),
	];
	const perHour = [0, 0, 0, 0, 0];
	for (let minute = 0; minute < 5 * 60; minute++) {
		now = NOW + minute * MINUTE + 7;
		const before = refusing.requests;
		for (const run of runs) await run();
		perHour[Math.floor(minute / 60)] += refusing.requests - before;
	}
	expect(perHour).toEqual([6, 1, 1, 1, 1]);
	dropUnrequestedMocks();
}, 180_000); // 3,300 runs: a loaded machine needs more than the default 30 s

test('nothing derived from the password is kept in static data; an earlier per-trigger pause is dropped', async () => {
	server(401);
	const staticData: IDataObject = {
		loginPause: { refusals: 3, until: iso(NOW + 60 * MINUTE), boundTo: 'x' },
	};
	await trigger(EVERY_CHANGE, { staticData })();
	expect(staticData).not.toHaveProperty('loginPause');
	const text = JSON.stringify(staticData);
	expect(text).not.toContain(testCredentials(HOST).password);
	expect(text.match(/[0-9a-f]{64}/g) ?? []).toEqual([]);
	dropUnrequestedMocks();
});

test('any other failure (502) pauses nothing', async () => {
	const failing = server(502);
	expect(errorOf(await action()()).message).toContain('502');
	const tries = failing.requests;
	expect(errorOf(await action()()).message).toContain('502');
	expect(failing.requests).toBe(2 * tries);
	dropUnrequestedMocks();
});

/**
 * A server that answers each read a little later (a slow link), accepts the first `acceptedBeforeChange` requests and
 * refuses every later one (its password changed), and counts the refusals and the most requests it held at once.
 */
function changingServer(acceptedBeforeChange: number) {
	const seen = { accepted: 0, refused: 0, inFlight: 0, mostInFlight: 0 };
	const reply = (path: string, body: object) =>
		nock(BASE_URL)
			.persist()
			.get(path)
			.query(true)
			.optionally()
			.reply((_uri, _body, callback) => {
				const accepted = seen.accepted < acceptedBeforeChange;
				seen[accepted ? 'accepted' : 'refused']++;
				seen.mostInFlight = Math.max(seen.mostInFlight, ++seen.inFlight);
				setTimeout(() => {
					seen.inFlight--;
					callback(null, accepted ? [200, body] : [401, 'Refused']);
				}, 5);
			});
	reply('/api/v2/chats', { chats: [makeChat(1)], more_chats_available: false, last_ts: 100 });
	reply('/api/v2/operators', OPERATORS);
	return seen;
}

const burst = async (size: number) =>
	await Promise.all(
		Array.from({ length: size }, (_, index) =>
			trigger(index % 2 ? OPERATOR_STATUS : EVERY_CHANGE)(),
		),
	);

test('a password changed mid-burst, right after the server accepted the first request: ten triggers cost at most 2 wrong logins, one refusal in a row', async () => {
	const changing = changingServer(1);
	await burst(10);
	expect(changing.refused).toBeGreaterThanOrEqual(1);
	expect(changing.refused).toBeLessThanOrEqual(2);
	// The refusals of one change count once: the pause is the first one, a minute.
	expect(errorOf(await action()()).message).toContain(`pause until ${iso(NOW + MINUTE)}`);
	now = NOW + 30_000;
	await burst(10);
	expect(changing.refused).toBeLessThanOrEqual(2);
	dropUnrequestedMocks();
});

test('whatever the moment the password changes in a burst of ten triggers and two actions, at most 2 wrong logins, and never more than 2 requests in flight', async () => {
	for (let acceptedBeforeChange = 0; acceptedBeforeChange <= 12; acceptedBeforeChange++) {
		forgetAccounts();
		nock.cleanAll();
		const changing = changingServer(acceptedBeforeChange);
		await Promise.all([burst(10), action()(), action()()]);
		expect({ acceptedBeforeChange, refused: Math.min(changing.refused, 3) }).toEqual({
			acceptedBeforeChange,
			refused: Math.min(changing.refused, 2),
		});
		expect(changing.mostInFlight).toBeLessThanOrEqual(2);
	}
	dropUnrequestedMocks();
});

test('a stale success (a request that left before a refusal was answered) does not clear the pause', async () => {
	const changing = changingServer(1);
	await burst(6);
	now = NOW + 10_000;
	expect(errorOf(await action()())).toBeInstanceOf(LoginPaused);
	expect(changing.refused).toBeLessThanOrEqual(2);
	dropUnrequestedMocks();
});

test('a corrected password held for a full pause resets the refusals in a row: a later typo pauses a minute', async () => {
	server(401);
	for (const at of [0, 1, 3]) {
		now = NOW + at * MINUTE;
		await action({ manual: true })();
	}
	nock.cleanAll();
	server(200);
	now = NOW + 3 * MINUTE + 5_000; // the fix; the pause it ended (3 in a row: 4 minutes) is held from here
	expect(await action({ credentials: CORRECTED })()).toEqual({ emitted: true });
	now += 4 * MINUTE;
	expect(await action({ credentials: CORRECTED })()).toEqual({ emitted: true });
	nock.cleanAll();
	server(401);
	now += 10 * MINUTE;
	const typo = testCredentials(HOST, { password: 'Typo-pw-2' });
	expect(errorOf(await action({ credentials: typo })()).description).toContain(
		'refused logins in a row: 1',
	);
	dropUnrequestedMocks();
});

test('a pause extended by a later refusal is not silent: the trigger that skipped its polls reports the new end once', async () => {
	server(401);
	const poll = trigger();
	expect(errorOf(await poll()).description).toContain(`until ${iso(NOW + MINUTE)}`);
	now = NOW + 10_000;
	expect(await poll()).toEqual({ emitted: false });
	await action({ manual: true })(); // a person's run: refused again, 2 in a row
	now = NOW + 20_000;
	const extended = errorOf(await poll());
	expect(extended).toBeInstanceOf(LoginPaused);
	expect(extended.message).toBe(
		`Svc logins of this account pause until ${iso(NOW + 10_000 + 2 * MINUTE)}, later than the ${iso(NOW + MINUTE)} said before`,
	);
	now = NOW + 30_000;
	expect(await poll()).toEqual({ emitted: false });
	dropUnrequestedMocks();
});

test("a request waiting to retry (a 503) leaves its place in flight: the account's other runs go meanwhile", async () => {
	let operatorsAsked = 0;
	let secondSeen = () => {};
	const second = new Promise<void>((resolve) => (secondSeen = resolve));
	nock(BASE_URL)
		.persist()
		.get('/api/v2/operators')
		.query(true)
		.reply(() => {
			if (++operatorsAsked === 2) secondSeen();
			return operatorsAsked === 1 ? [503, 'Busy'] : [200, OPERATORS];
		});
	// The first action's backoff ends once the second action's request has reached the server, or after 200 turns of
	// the event loop: then it went meanwhile, or it waited for the retry.
	let wentDuringBackoff = false;
	const turns = async () => {
		for (let turn = 0; turn < 200; turn++) await new Promise((resolve) => setImmediate(resolve));
	};
	instantPauses({}, async () => {
		let over = false;
		await Promise.race([second.then(() => (wentDuringBackoff = !over)), turns()]);
		over = true;
	});
	const outcomes = await Promise.all([action()(), action()()]);
	expect(outcomes).toEqual([{ emitted: true }, { emitted: true }]);
	expect(wentDuringBackoff).toBe(true);
	expect(operatorsAsked).toBe(3);
});
