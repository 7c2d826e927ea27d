// The operator events of the trigger: the diff of statuses between polls, the filters, availability, the state's rules
// (first poll, failed poll, binding, an edit of the event, when a change happened) and Fetch Test Event, against nock'd
// GET /operators replies.
import nock from 'nock';
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import {
	BOUND,
	busyForFiveSeconds,
	digestOf,
	fromBeginning,
	makeChat,
	replyPage,
	triggerHarness,
} from './fixtures';
import { freezeClock, NOW } from './clock';
import { SvcChatTrigger } from '../../../nodes/SvcChat/SvcChatTrigger.node';
import type { Operator } from '../../../nodes/SvcChat/types';
import { testCredentials, triggerUnderTest } from '../../harness/contexts';
import { BASE_URL, instantPauses } from '../../harness/fixtures';
import { dropUnrequestedMocks } from '../../harness/nockSetup';

freezeClock();

const DETECTED_AT = new Date(NOW).toISOString();
/** The clock reads `ms` from now on (freezeClock undoes it after the test). */
const clockAt = (ms: number) => jest.spyOn(Date, 'now').mockReturnValue(ms);
const iso = (ms: number) => new Date(ms).toISOString();
const STATUS: INodeParameters = { emit: 'operatorStatusChanged' };
const AVAILABILITY: INodeParameters = { emit: 'operatorAvailabilityChanged' };

const operator = (id: number, status: string, roles = ['operator']): Operator => ({
	id,
	email: `Op${id}@Svc.Test`,
	full_name: `Operator ${id}`,
	status,
	roles,
	created_at: '2024-01-01T00:00:00.000Z',
});
const TEAM = [
	operator(1, 'online', ['admin', 'operator']),
	operator(2, 'online'),
	operator(3, 'offline'),
	operator(4, 'dinner', ['operator', 'supervisor']),
];
/** What the trigger remembers of an operator list: id, status and roles, nothing else. */
const remembered = (operators: Operator[]) =>
	operators.map(({ id, status, roles }) => ({ id, status, roles }));
/** The state a poll at `checkedAt` (the frozen clock unless told) leaves. */
const stateOf = (event: string, operators: Operator[], checkedAt = DETECTED_AT) => ({
	operatorEvents: { event, boundTo: BOUND.boundTo, operators: remembered(operators), checkedAt },
});

/** Answers the next GET /operators with this list. */
const replyOperators = (operators: unknown[]) =>
	nock(BASE_URL).get('/api/v2/operators').reply(200, operators);

/** The item of an operator in the Status Changed output; the earlier state was seen at `changedAfter`. */
const changed = (
	from: Operator,
	previous: string | null,
	changedAfter: string | null = DETECTED_AT,
) => ({
	id: from.id,
	email: from.email,
	full_name: from.full_name,
	roles: from.roles,
	status: from.status,
	previous_status: previous,
	changed_after: changedAfter,
	detected_at: DETECTED_AT,
});

/** Two polls sharing static data: the first records TEAM, the second sees `now`; gives the second's items. */
async function changesTo(now: Operator[], parameters: INodeParameters = STATUS) {
	const staticData: IDataObject = {};
	replyOperators(TEAM);
	expect(await triggerHarness(parameters, staticData).poll()).toBeNull();
	replyOperators(now);
	return { items: await triggerHarness(parameters, staticData).poll(), staticData };
}

describe('Operator Status Changed', () => {
	test('the first poll records each operator (id, status and roles only, no email or name) and emits nothing', async () => {
		const staticData: IDataObject = {};
		const scope = replyOperators(TEAM);
		expect(await triggerHarness(STATUS, staticData).poll()).toBeNull();
		expect(scope.isDone()).toBe(true);
		expect(staticData).toEqual(stateOf('operatorStatusChanged', TEAM));
		expect(JSON.stringify(staticData)).not.toMatch(/@|Operator \d/i);
	});

	test('emits each operator whose status differs, one who appears and one who is gone; the rest is silent', async () => {
		const now = [TEAM[0], operator(2, 'dinner'), operator(3, 'online'), operator(5, 'invisible')];
		const { items, staticData } = await changesTo(now);
		expect(items).toEqual([
			changed(now[1], 'online'),
			changed(now[2], 'offline'),
			changed(now[3], null),
			{
				id: 4,
				email: null,
				full_name: null,
				roles: ['operator', 'supervisor'],
				status: null,
				previous_status: 'dinner',
				changed_after: DETECTED_AT,
				detected_at: DETECTED_AT,
			},
		]);
		expect(staticData).toEqual(stateOf('operatorStatusChanged', now));

		// The same statuses again, a minute later: nothing to emit; the state says when they were seen last.
		clockAt(NOW + 60_000);
		replyOperators(now);
		expect(await triggerHarness(STATUS, staticData).poll()).toBeNull();
		expect(staticData).toEqual(stateOf('operatorStatusChanged', now, iso(NOW + 60_000)));
	});

	test('Operators keeps the chosen ones, from the list or by ID (an ID) or by email (any case)', async () => {
		const now = TEAM.map((one) => ({ ...one, status: 'invisible' }));
		const pick = (mode: string, value: string) => ({ operator: { __rl: true, mode, value } });
		const { items } = await changesTo(now, {
			...STATUS,
			operators: {
				operator: [pick('list', '1'), pick('email', ' op3@svc.test '), pick('id', '4')],
			},
		});
		expect(items?.map((item) => item.id)).toEqual([1, 3, 4]);
	});

	test('an operator who is gone is matched by ID, by email (through the ids chosen at the last poll) and by roles', async () => {
		const pick = (value: string) => ({ operator: { __rl: true, mode: 'id', value } });
		const byId = await changesTo(TEAM.slice(0, 3), {
			...STATUS,
			operators: { operator: [pick('4')] },
		});
		expect(byId.items?.map((item) => [item.id, item.status])).toEqual([[4, null]]);
		const byEmail = await changesTo(TEAM.slice(0, 3), {
			...STATUS,
			operators: { operator: [{ operator: 'op4@svc.test' }, { operator: 'OP2@svc.test' }] },
		});
		expect(byEmail.items?.map((item) => [item.id, item.status])).toEqual([[4, null]]);
		// The state keeps the ids the filter chose now (op2 only, as op4 is gone), and still no email.
		expect(byEmail.staticData.operatorEvents).toMatchObject({ chosenIds: ['2'] });
		expect(JSON.stringify(byEmail.staticData)).not.toMatch(/@/);
		// An operator the filter did not choose at the last poll stays out when gone.
		const other = await changesTo(TEAM.slice(0, 3), {
			...STATUS,
			operators: { operator: [{ operator: 'op3@svc.test' }] },
		});
		expect(other.items).toBeNull();
		const byRole = await changesTo(TEAM.slice(0, 3), { ...STATUS, roles: ['supervisor'] });
		expect(byRole.items?.map((item) => item.id)).toEqual([4]);
	});

	test('To Status keeps changes to the chosen statuses, a typed one too; Roles keeps operators with one of them', async () => {
		const now = [
			operator(1, 'dinner', ['admin', 'operator']),
			operator(2, 'busy'),
			operator(3, 'online'),
			operator(4, 'offline', ['operator', 'supervisor']),
		];
		const toStatus = await changesTo(now, { ...STATUS, toStatuses: ['dinner', 'online'] });
		expect(toStatus.items?.map((item) => item.id)).toEqual([1, 3]);
		// An expression may give any status, as a list or one text (the harness gives what it resolved to).
		const typed = await changesTo(now, { ...STATUS, toStatuses: 'busy' });
		expect(typed.items?.map((item) => item.id)).toEqual([2]);
		const roles = await changesTo(now, { ...STATUS, roles: ['admin', 'supervisor'] });
		expect(roles.items?.map((item) => item.id)).toEqual([1, 4]);
		const all = await changesTo(now, { ...STATUS, toStatuses: ['offline'], roles: ['admin'] });
		expect(all.items).toBeNull();
	});

	test('an Operators entry without an operator is refused, naming the field', async () => {
		await expect(
			triggerHarness(
				{
					...STATUS,
					operators: { operator: [{ operator: { __rl: true, mode: 'list', value: '' } }] },
				},
				{},
			).poll(),
		).rejects.toThrow("'Operators', entry 1 has no operator");
	});

	// By Email and By ID have no `validation` regex (n8n runs one at every execution): the trigger checks each entry.
	test('an Operators entry that is neither an email nor an ID is refused, naming the entry and the fix', async () => {
		const pick = (mode: string, value: string) => ({ operator: { __rl: true, mode, value } });
		const operators = { operator: [pick('id', '4'), pick('id', 'op 7'), pick('email', 'anna')] };
		const poll = triggerHarness({ ...STATUS, operators }, {}).poll();
		await expect(poll).rejects.toThrow(
			'\'Operators\', entry 2 is neither an email nor an ID ("op 7")',
		);
		await expect(poll).rejects.toMatchObject({
			description: expect.stringContaining('enter their email or ID'),
		});
	});

	test('a filter that is not a list of texts is refused, naming the field', async () => {
		await expect(triggerHarness({ ...STATUS, roles: 7 }, {}).poll()).rejects.toThrow(
			"The 'Roles' filter must be a list of texts",
		);
	});
});

// Issue 64: an empty filter never widens to every operator. The harness's node holds what the expressions gave; n8n's
// holds the expressions, as here.
describe.each([
	['roles', 'Roles', STATUS],
	['roles', 'Roles', AVAILABILITY],
	['toStatuses', 'To Status', STATUS],
])('%s (%s) given by an expression', (name, label, event) => {
	const byExpression = (value: unknown) => {
		const harness = triggerHarness({ ...event, [name]: value } as INodeParameters, {});
		const node = harness.context.getNode();
		const stored = { ...node.parameters, [name]: '={{ $json.wanted }}' };
		harness.context.getNode.mockReturnValue({ ...node, parameters: stored });
		return harness;
	};

	test.each([[[]], [''], [[' ']]])(
		'that gave %j fails the poll, naming the field and the expression (no item); nothing is requested',
		async (value) => {
			// No mock: a request would fail with nock's refusal instead.
			await expect(byExpression(value).poll()).rejects.toMatchObject({
				message: `'${label}' is empty: the expression \`{{ $json.wanted }}\` gave no value`,
				description: expect.stringContaining(`leave '${label}' empty in the editor`),
			});
		},
	);

	test('that gave a list polls as before; left empty in the editor, it means every operator', async () => {
		replyOperators(TEAM);
		expect(await byExpression(['operator', 'online']).poll()).toBeNull();
		replyOperators(TEAM);
		expect(await triggerHarness({ ...event, [name]: [] }, {}).poll()).toBeNull();
	});
});

describe('Operator Availability Changed', () => {
	const allOffline = TEAM.map((one) => ({ ...one, status: 'offline' }));

	test('one item when nobody is left online, none while it stays so, one when someone is back', async () => {
		const staticData: IDataObject = {};
		const poll = () => triggerHarness(AVAILABILITY, staticData).poll();
		replyOperators(TEAM);
		expect(await poll()).toBeNull();
		expect(staticData).toEqual(stateOf('operatorAvailabilityChanged', TEAM));

		replyOperators([{ ...TEAM[0], status: 'dinner' }, ...allOffline.slice(1)]);
		expect(await poll()).toEqual([
			{
				available: false,
				count: 0,
				operators: [],
				changed_after: DETECTED_AT,
				detected_at: DETECTED_AT,
			},
		]);
		replyOperators(allOffline);
		expect(await poll()).toBeNull();

		const back = [allOffline[0], operator(2, 'online'), ...allOffline.slice(2)];
		replyOperators(back);
		expect(await poll()).toEqual([
			{
				available: true,
				count: 1,
				operators: [
					{
						id: 2,
						email: 'Op2@Svc.Test',
						full_name: 'Operator 2',
						roles: ['operator'],
						status: 'online',
					},
				],
				changed_after: DETECTED_AT,
				detected_at: DETECTED_AT,
			},
		]);
		// One more operator online: still available, nothing to say.
		replyOperators(TEAM);
		expect(await poll()).toBeNull();
	});

	test('Available Statuses and Roles decide who counts', async () => {
		// Only the admin (who has the role operator too) and a supervisor on dinner are left.
		const now = [TEAM[0], ...allOffline.slice(1, 3), TEAM[3]];
		const supervisors = await changesTo(now, { ...AVAILABILITY, roles: ['supervisor'] });
		expect(supervisors.items).toBeNull();
		const admins = await changesTo(allOffline, { ...AVAILABILITY, roles: ['admin'] });
		expect(admins.items).toEqual([expect.objectContaining({ available: false, count: 0 })]);
		const onDinner = await changesTo(allOffline.slice(0, 3).concat(TEAM[3]), {
			...AVAILABILITY,
			availableStatuses: ['online', 'dinner'],
		});
		expect(onDinner.items).toBeNull();
	});

	test('an empty Available Statuses is refused, naming the field', async () => {
		await expect(
			triggerHarness({ ...AVAILABILITY, availableStatuses: [] }, {}).poll(),
		).rejects.toThrow("'Available Statuses' is empty");
	});
});

describe('the state of the operator events', () => {
	test('a failed poll emits nothing and keeps the state; the next good one reports the change once', async () => {
		const staticData: IDataObject = stateOf('operatorStatusChanged', TEAM);
		const saved = structuredClone(staticData);
		const failing = nock(BASE_URL).get('/api/v2/operators').times(4).reply(502, 'Bad Gateway');
		await expect(triggerHarness(STATUS, staticData).poll()).rejects.toThrow();
		expect(failing.isDone()).toBe(true);
		expect(staticData).toEqual(saved);

		const now = [operator(1, 'offline', ['admin', 'operator']), ...TEAM.slice(1)];
		replyOperators(now);
		expect(await triggerHarness(STATUS, staticData).poll()).toEqual([changed(now[0], 'online')]);
		replyOperators(now);
		expect(await triggerHarness(STATUS, staticData).poll()).toBeNull();
	});

	test("GET /operators is not retried past n8n's poll budget: the poll fails at once, says why, and keeps the state", async () => {
		const staticData: IDataObject = stateOf('operatorStatusChanged', TEAM);
		const saved = structuredClone(staticData);
		const busy = busyForFiveSeconds('/api/v2/operators');
		const harness = triggerHarness(STATUS, staticData);
		harness.context.getPollBudgetMs.mockReturnValue(2_000);
		await expect(harness.poll()).rejects.toMatchObject({
			description: expect.stringMatching(/The poll ran out of the time n8n gives it/),
		});
		expect(busy.requests).toBe(1);
		expect(staticData).toEqual(saved);
		dropUnrequestedMocks();
	});

	test('an edit that changes the event starts again: the first poll of the new event records and emits nothing', async () => {
		const staticData: IDataObject = stateOf('operatorStatusChanged', TEAM);
		replyOperators(TEAM.map((one) => ({ ...one, status: 'offline' })));
		expect(await triggerHarness(AVAILABILITY, staticData).poll()).toBeNull();
		expect((staticData.operatorEvents as IDataObject).event).toBe('operatorAvailabilityChanged');
	});

	test('a state that is not one the trigger wrote counts as none: the poll records and emits nothing', async () => {
		for (const broken of [
			'text',
			{ event: 'operatorStatusChanged', boundTo: BOUND.boundTo, operators: [{ id: 1 }] },
			{ event: 'operatorStatusChanged', operators: [] },
			{ ...stateOf('operatorStatusChanged', TEAM).operatorEvents, checkedAt: NOW },
		]) {
			const staticData: IDataObject = { operatorEvents: broken };
			replyOperators(TEAM);
			expect(await triggerHarness(STATUS, staticData).poll()).toBeNull();
			expect(staticData).toEqual(stateOf('operatorStatusChanged', TEAM));
		}
	});

	test('an element of the reply without an id is left out; odd statuses and roles are kept as null and []', async () => {
		const staticData: IDataObject = {};
		replyOperators([null, { email: 'x@svc.test' }, { id: 9, status: 7, roles: 'admin' }]);
		expect(await triggerHarness(STATUS, staticData).poll()).toBeNull();
		expect((staticData.operatorEvents as IDataObject).operators).toEqual([
			{ id: 9, status: null, roles: [] },
		]);
	});

	test('bound to the server and account: another one starts again and logs why, the same one typed another way does not', async () => {
		const pollAs = async (host: string, email: string, staticData: IDataObject) => {
			const { context, logger } = triggerUnderTest({
				parameters: STATUS,
				credentials: testCredentials(host, { email }),
				staticData,
			});
			instantPauses();
			return { items: await new SvcChatTrigger().poll.call(context), logger };
		};
		const staticData: IDataObject = stateOf('operatorStatusChanged', TEAM);
		const moved = TEAM.map((one) => ({ ...one, status: 'offline' }));
		nock('https://chat.production.example').get('/api/v2/operators').reply(200, moved);
		const production = await pollAs('chat.production.example', 'admin@svc.test', staticData);
		expect(production.items).toBeNull();
		expect(production.logger.warn).toHaveBeenCalledWith(
			'Svc Chat Trigger: the credential now points at another server or account than the saved position was read from (the server is now https://chat.production.example); recording the operators again',
		);
		expect(staticData).toEqual({
			operatorEvents: {
				event: 'operatorStatusChanged',
				boundTo: digestOf('https://chat.production.example', 'admin@svc.test'),
				operators: remembered(moved),
				checkedAt: DETECTED_AT,
			},
		});

		const back = stateOf('operatorStatusChanged', TEAM);
		replyOperators(moved);
		const same = await pollAs('ACME.svc.example/', ' Admin@SVC.test ', back);
		expect(same.items?.[0]).toHaveLength(3);
		expect(same.logger.warn).not.toHaveBeenCalled();
	});

	test('the chat state and the operator state live side by side: each poll leaves the other alone', async () => {
		// A chat state saved before the operator events existed loads and saves exactly as it did.
		const chatState = { ...BOUND, startedFrom: 'beginning', cursor: '500', catchingUp: false };
		const staticData: IDataObject = { ...chatState };
		replyPage(500, [makeChat(1)], 600);
		expect(await triggerHarness(fromBeginning, staticData).poll()).toHaveLength(1);
		expect(staticData).toEqual({ ...chatState, cursor: '600' });

		replyOperators(TEAM);
		expect(await triggerHarness(STATUS, staticData).poll()).toBeNull();
		expect(staticData).toEqual({
			...chatState,
			cursor: '600',
			...stateOf('operatorStatusChanged', TEAM),
		});

		replyPage(600, [], 600);
		expect(await triggerHarness(fromBeginning, staticData).poll()).toBeNull();
		expect(staticData).toEqual({
			...chatState,
			cursor: '600',
			...stateOf('operatorStatusChanged', TEAM),
		});
	});
});

describe('when a change happened: between changed_after and detected_at', () => {
	const MINUTE = 60_000;
	const offline = [operator(1, 'offline', ['admin', 'operator']), ...TEAM.slice(1)];

	/** Answers the next GET /operators with `operators`, the clock moving on by `ms` while the server answers. */
	const replyTaking = (ms: number, operators: Operator[]) =>
		nock(BASE_URL)
			.get('/api/v2/operators')
			.reply(() => {
				clockAt(Date.now() + ms);
				return [200, operators];
			});

	test('each good poll stores the time before its request; the next change is after it and before the poll that saw it', async () => {
		const staticData: IDataObject = {};
		replyTaking(5_000, TEAM);
		expect(await triggerHarness(STATUS, staticData).poll()).toBeNull();
		expect(staticData).toEqual(stateOf('operatorStatusChanged', TEAM, iso(NOW)));
		clockAt(NOW + MINUTE);
		replyTaking(5_000, TEAM);
		expect(await triggerHarness(STATUS, staticData).poll()).toBeNull();
		expect(staticData).toEqual(stateOf('operatorStatusChanged', TEAM, iso(NOW + MINUTE)));

		clockAt(NOW + 2 * MINUTE);
		replyTaking(5_000, offline);
		expect(await triggerHarness(STATUS, staticData).poll()).toEqual([
			{
				...changed(offline[0], 'online', iso(NOW + MINUTE)),
				detected_at: iso(NOW + 2 * MINUTE + 5_000),
			},
		]);
		expect(staticData).toEqual(stateOf('operatorStatusChanged', offline, iso(NOW + 2 * MINUTE)));
	});

	test('Availability Changed items say it too', async () => {
		const staticData: IDataObject = {};
		replyOperators(TEAM);
		expect(await triggerHarness(AVAILABILITY, staticData).poll()).toBeNull();
		clockAt(NOW + MINUTE);
		replyOperators(TEAM.map((one) => ({ ...one, status: 'offline' })));
		expect(await triggerHarness(AVAILABILITY, staticData).poll()).toEqual([
			{
				available: false,
				count: 0,
				operators: [],
				changed_after: iso(NOW),
				detected_at: iso(NOW + MINUTE),
			},
		]);
	});

	test('a failed poll keeps the time of the last good one', async () => {
		const staticData: IDataObject = stateOf('operatorStatusChanged', TEAM, iso(NOW - MINUTE));
		nock(BASE_URL).get('/api/v2/operators').times(4).reply(502, 'Bad Gateway');
		await expect(triggerHarness(STATUS, staticData).poll()).rejects.toThrow();
		clockAt(NOW + MINUTE);
		replyOperators(offline);
		expect(await triggerHarness(STATUS, staticData).poll()).toEqual([
			{ ...changed(offline[0], 'online', iso(NOW - MINUTE)), detected_at: iso(NOW + MINUTE) },
		]);
	});

	test('after a restart, or unpublish and publish, the change made meanwhile comes at the first poll, with the saved (earlier) time', async () => {
		// n8n saved the state at activation; later polls that emitted nothing changed it in memory only.
		const inMemory: IDataObject = {};
		replyOperators(TEAM);
		expect(await triggerHarness(STATUS, inMemory).poll()).toBeNull();
		const saved = structuredClone(inMemory);
		clockAt(NOW + MINUTE);
		replyOperators(TEAM);
		expect(await triggerHarness(STATUS, inMemory).poll()).toBeNull();
		expect(inMemory).toEqual(stateOf('operatorStatusChanged', TEAM, iso(NOW + MINUTE)));

		// n8n stops; the operator goes offline; hours later n8n starts again from what it saved.
		clockAt(NOW + 3 * 60 * MINUTE);
		replyOperators(offline);
		expect(await triggerHarness(STATUS, saved).poll()).toEqual([
			{ ...changed(offline[0], 'online', iso(NOW)), detected_at: iso(NOW + 3 * 60 * MINUTE) },
		]);
	});

	test('a state saved before checkedAt existed still reports the change, with changed_after null, and is given one', async () => {
		const older = {
			event: 'operatorStatusChanged',
			boundTo: BOUND.boundTo,
			operators: remembered(TEAM),
		};
		const staticData: IDataObject = { operatorEvents: older };
		replyOperators(offline);
		expect(await triggerHarness(STATUS, staticData).poll()).toEqual([
			changed(offline[0], 'online', null),
		]);
		expect(staticData).toEqual(stateOf('operatorStatusChanged', offline, iso(NOW)));
	});

	test('Fetch Test Event: the earlier state is the one it reads, so changed_after is the time before its request', async () => {
		replyTaking(5_000, TEAM);
		const [first] = (await triggerHarness(STATUS, {}, 'manual').poll()) ?? [];
		expect(first).toMatchObject({ changed_after: iso(NOW), detected_at: iso(NOW + 5_000) });
		replyTaking(5_000, TEAM);
		expect(await triggerHarness(AVAILABILITY, {}, 'manual').poll()).toEqual([
			expect.objectContaining({
				changed_after: iso(NOW + 5_000),
				detected_at: iso(NOW + 10_000),
			}),
		]);
	});
});

describe('Fetch Test Event', () => {
	const chatState = { startedFrom: 'beginning', cursor: '5', catchingUp: false };

	test('Status Changed: the operators now, each with its status as the previous one; the state is not read or written', async () => {
		const staticData: IDataObject = {
			...chatState,
			...stateOf('operatorStatusChanged', TEAM.slice(1)),
		};
		const saved = structuredClone(staticData);
		replyOperators(TEAM);
		const harness = triggerHarness(STATUS, staticData, 'manual');
		expect(await harness.poll()).toEqual(TEAM.map((one) => changed(one, one.status)));
		expect(harness.context.getWorkflowStaticData).not.toHaveBeenCalled();
		expect(staticData).toEqual(saved);
	});

	test('Status Changed: the filters choose the sample; when they match nobody, every operator is shown', async () => {
		replyOperators(TEAM);
		const supervisors = await triggerHarness(
			{ ...STATUS, roles: ['supervisor'] },
			{},
			'manual',
		).poll();
		expect(supervisors?.map((item) => item.id)).toEqual([4]);
		replyOperators(TEAM);
		const nobody = await triggerHarness(
			{ ...STATUS, toStatuses: ['pre-dinner'] },
			{},
			'manual',
		).poll();
		expect(nobody?.map((item) => item.id)).toEqual([1, 2, 3, 4]);
	});

	test('Availability Changed: the availability now, without touching the state', async () => {
		const staticData: IDataObject = {};
		replyOperators(TEAM);
		const harness = triggerHarness(
			{ ...AVAILABILITY, roles: ['supervisor'] },
			staticData,
			'manual',
		);
		expect(await harness.poll()).toEqual([
			{
				available: false,
				count: 0,
				operators: [],
				changed_after: DETECTED_AT,
				detected_at: DETECTED_AT,
			},
		]);
		replyOperators(TEAM);
		const online = await triggerHarness(AVAILABILITY, staticData, 'manual').poll();
		expect(online?.[0]).toMatchObject({ available: true, count: 2 });
		expect(harness.context.getWorkflowStaticData).not.toHaveBeenCalled();
		expect(staticData).toEqual({});
	});
});
