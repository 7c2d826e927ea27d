// Operator events on n8n's engine, both lines, poll by poll: every operator offline and back, and unpublished meanwhile.
import type { IDataObject } from 'n8n-workflow';

import type { OperatorEvent } from '../../nodes/SvcChat/trigger/description';
import { OPERATOR_STATE_KEY } from '../../nodes/SvcChat/trigger/poll';
import type { Operator } from '../../nodes/SvcChat/types';
import { FLAVOURS } from '../../scripts/runtime';
import { ISO_UTC } from '../e2e/environment';
import { useEngine } from '../harness/engine';
import { publishTrigger, type PublishedTrigger } from './publishedTrigger';

/** An operator as the items show one: the API's fields without created_at. */
const shown = ({ id, email, full_name, roles, status }: Operator) => ({
	id,
	email,
	full_name,
	roles,
	status,
});

const byId = <T extends { id?: unknown }>(items: T[]) =>
	[...items].sort((a, b) => Number(a.id) - Number(b.id));

const stamps = { changed_after: expect.any(String), detected_at: expect.any(String) };

/** Every item says the change happened between changed_after and detected_at, which hold `changedAt`. */
function expectBounds(items: IDataObject[], changedAt: number): void {
	for (const item of items) {
		expect(item.changed_after).toMatch(ISO_UTC);
		expect(item.detected_at).toMatch(ISO_UTC);
		expect(Date.parse(item.changed_after as string)).toBeLessThanOrEqual(changedAt);
		expect(Date.parse(item.detected_at as string)).toBeGreaterThanOrEqual(changedAt);
	}
}

describe.each([FLAVOURS['n8n-2'], FLAVOURS['n8n-1']])('operator events on $name', (flavour) => {
	// Only GET /operators is read: the chats are few.
	const env = useEngine(flavour, { seed: 25, chats: 5 });
	let status: PublishedTrigger;
	let availability: PublishedTrigger;
	let both: PublishedTrigger[];
	/** The operators as seeded, before the scenario changes any status. */
	let seeded: Operator[];
	/** The last poll that reported a change before the workflows were unpublished: its items, and its static data. */
	const reported = new Map<PublishedTrigger, { items: IDataObject[]; staticData: IDataObject }>();

	const events: Record<OperatorEvent, string> = {
		operatorStatusChanged: 'Operator status',
		operatorAvailabilityChanged: 'Operator availability',
	};
	/** What each trigger emits when every operator goes offline, with these stamps: nobody available, and who was not offline. */
	const unavailableItems = (stamp: IDataObject) => [
		{ available: false, count: 0, operators: [], ...stamp },
	];
	const wentOfflineItems = (stamp: IDataObject) =>
		byId(seeded)
			.filter((operator) => operator.status !== 'offline')
			.map((operator) => ({
				...shown(operator),
				status: 'offline',
				previous_status: operator.status,
				...stamp,
			}));
	const operatorState = (trigger: PublishedTrigger, staticData = trigger.staticData()) =>
		staticData[OPERATOR_STATE_KEY] as { event: string; checkedAt?: string } & IDataObject;

	beforeAll(() => {
		seeded = env.sandbox.control.getOperators();
		// The filters keep their defaults.
		status = publishTrigger(env, events.operatorStatusChanged, { emit: 'operatorStatusChanged' });
		availability = publishTrigger(env, events.operatorAvailabilityChanged, {
			emit: 'operatorAvailabilityChanged',
		});
		both = [status, availability];
	});

	test('activation: the first poll records every operator in static data and emits nothing', async () => {
		// The seed has operators online and in other statuses, so both directions below have something to show.
		expect(seeded.filter((operator) => operator.status === 'online').length).toBeGreaterThan(0);
		expect(seeded.filter((operator) => operator.status !== 'offline').length).toBeGreaterThan(
			seeded.filter((operator) => operator.status === 'online').length,
		);
		for (const [event, node] of Object.entries(events)) {
			const trigger = both.find((one) => one.node === node)!;
			expect(await trigger.poll()).toEqual({ emitted: null, run: null });
			// n8n saves a trigger's static data once it has started it with that poll.
			const state = operatorState(trigger, trigger.savedState());
			expect(state.event).toBe(event);
			expect(state.boundTo).toMatch(/^[0-9a-f]{64}$/);
			expect(byId(state.operators as Operator[])).toEqual(
				byId(seeded).map(({ id, status, roles }) => ({ id, status, roles })),
			);
		}
		// Later polls with nothing changed emit nothing either.
		for (const trigger of both) await trigger.quiet(2);
	});

	test('every operator offline: one "available: false" execution, and a Status Changed item per operator who was not offline', async () => {
		const changedAt = Date.now();
		env.sandbox.control.cycleOperators({ statuses: ['offline'] });
		const unavailable = await availability.emits();
		expect(unavailable).toEqual(unavailableItems(stamps));
		const changes = await status.emits();
		expect(byId(changes)).toEqual(wentOfflineItems(stamps));
		expectBounds([...unavailable, ...changes], changedAt);
	});

	test('a few polls later, nothing was reported twice', async () => {
		for (const trigger of both) await trigger.quiet();
	});

	test('every operator back: one more execution, "available: true" with the online operators, and items from offline', async () => {
		const changedAt = Date.now();
		// One synchronous loop in this process: no poll can see half of it.
		for (const operator of seeded)
			env.sandbox.control.setOperatorStatus(operator.id, operator.status);
		const online = byId(seeded).filter((operator) => operator.status === 'online');
		const available = await availability.emits();
		expect(available).toEqual([
			{ available: true, count: online.length, operators: online.map(shown), ...stamps },
		]);
		const changes = await status.emits();
		expect(byId(changes)).toEqual(
			byId(seeded)
				.filter((operator) => operator.status !== 'offline')
				.map((operator) => ({ ...shown(operator), previous_status: 'offline', ...stamps })),
		);
		expectBounds([...available, ...changes], changedAt);
		for (const [trigger, items] of [
			[availability, available],
			[status, changes],
		] as const) {
			reported.set(trigger, { items, staticData: trigger.staticData() });
			// n8n saved the statuses and the time of the poll that reported.
			expect(trigger.savedState()).toEqual(trigger.staticData());
		}
		for (const trigger of both) await trigger.quiet();
	});

	test('unpublished, every operator offline, published again: the first poll reports the change, late, and says since when', async () => {
		// Quiet polls before unpublishing: they read the statuses again, in memory only; n8n saves static data only with a
		// poll that emits.
		const quietFrom = Date.now();
		for (const trigger of both) await trigger.quiet(2);
		// What n8n kept of each trigger: the statuses and time of the poll that reported, not of the quiet polls after it.
		const kept = new Map(
			both.map((trigger) => [trigger, operatorState(trigger, trigger.savedState())]),
		);
		for (const [trigger, state] of kept) {
			const { items, staticData } = reported.get(trigger)!;
			expect(trigger.savedState()).toEqual(staticData);
			expect(Date.parse(operatorState(trigger).checkedAt!)).toBeGreaterThanOrEqual(quietFrom);
			expect(state.checkedAt).toMatch(ISO_UTC);
			expect(Date.parse(state.checkedAt!)).toBeLessThanOrEqual(quietFrom);
			// What changed_after will be (docs/trigger.md, "When it happened"): the start of the poll that reported the last
			// change before unpublishing, between that report's own bounds.
			const [last] = items;
			expect(Date.parse(state.checkedAt!)).toBeGreaterThanOrEqual(
				Date.parse(last.changed_after as string),
			);
			expect(Date.parse(state.checkedAt!)).toBeLessThanOrEqual(
				Date.parse(last.detected_at as string),
			);
		}
		// Unpublished: nothing polls while every operator goes offline.
		const changedAt = Date.now();
		env.sandbox.control.cycleOperators({ statuses: ['offline'] });
		const publishedAt = Date.now();
		for (const trigger of both) trigger.republish();

		// Since when: the start of the poll that reported before unpublishing.
		const unavailable = await availability.emits();
		expect(unavailable).toEqual(
			unavailableItems({ ...stamps, changed_after: kept.get(availability)!.checkedAt }),
		);
		const changes = await status.emits();
		expect(byId(changes)).toEqual(
			wentOfflineItems({ ...stamps, changed_after: kept.get(status)!.checkedAt }),
		);
		expectBounds([...unavailable, ...changes], changedAt);
		// Reported late: noticed after publishing, about a change after a poll before unpublishing.
		for (const item of [...unavailable, ...changes])
			expect(Date.parse(item.detected_at as string)).toBeGreaterThanOrEqual(publishedAt);
		for (const trigger of both) await trigger.quiet();
	});
});
