// The operator events of Svc Chat Trigger in a real n8n (issue 25): every operator offline and back, asserted exactly;
// a change made while the workflows were unpublished, reported late and saying so (issue 42).
import type { OperatorEvent } from '../../nodes/SvcChat/trigger/description';
import { OPERATOR_STATE_KEY } from '../../nodes/SvcChat/trigger/poll';
import type { Operator } from '../../nodes/SvcChat/types';
import { pollEvery } from '../../scripts/examples';
import { nodeOutput, type StoredExecution } from '../../scripts/executions';
import type { Workflow } from '../../scripts/n8n';
import { waitUntil } from '../../scripts/processes';
import {
	ISO_UTC,
	POLL_EVERY_SECONDS,
	POLL_WAIT_MS,
	QUIET_POLLS,
	runtimeFlavour,
	setPublished,
	sandboxCredentialOf,
	usePolls,
	type E2eEnvironment,
} from './environment';

const TRIGGER_NODES: Record<OperatorEvent, string> = {
	operatorStatusChanged: 'Operator status',
	operatorAvailabilityChanged: 'Operator availability',
};

/** A workflow of one trigger, as the editor saves a new one: n8n gives it its ID. */
function triggerWorkflow(
	event: OperatorEvent,
	index: number,
	credentials: Workflow['nodes'][number]['credentials'],
): Omit<Workflow, 'id'> {
	const node = TRIGGER_NODES[event];
	return {
		name: `Operator events e2e: ${node}`,
		nodes: [
			{
				id: `e2e25000-0000-4000-8000-00000000000${index}`,
				name: node,
				type: 'n8n-nodes-svc.svcChatTrigger',
				typeVersion: 1,
				position: [0, 0],
				// Every few seconds, so the scenario takes polls rather than minutes; the filters keep their defaults.
				parameters: { pollTimes: pollEvery(POLL_EVERY_SECONDS), emit: event },
				credentials,
			},
		],
		connections: {},
		settings: { executionOrder: 'v1' },
		// n8n 1.x stores the field as sent and refuses a workflow without it; the scenario publishes it after.
		active: false,
	};
}

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

/**
 * Defines the scenario's tests for the file's n8n flavour (n8n 2.x unless the file chose 1.x) on one running n8n, where
 * it creates and publishes both triggers through REST, as the editor does: activation, every operator offline, quiet
 * polls, every operator back, then unpublished, every operator offline and published again. It runs on `env`, an
 * environment whose n8n runs by the time its tests start and whose sandbox has no other reader of GET /operators while
 * they run (the chat scenario's Transcript reads it, so it comes after).
 */
export function testOperatorEvents(env: E2eEnvironment): void {
	describe(`operator events in real n8n (${runtimeFlavour().name})`, () => {
		const triggers = Object.fromEntries(
			Object.entries(TRIGGER_NODES).map(([event, node]) => [event, { node, workflowId: '' }]),
		) as Record<OperatorEvent, { node: string; workflowId: string }>;
		const STATUS = triggers.operatorStatusChanged;
		const AVAILABILITY = triggers.operatorAvailabilityChanged;
		/** The operators as seeded, before the scenario changes any status. */
		let seeded: Operator[];

		beforeAll(async () => {
			seeded = env.sandbox.control.getOperators();
			const rest = await env.n8n.rest();
			const credentials = await sandboxCredentialOf(env.n8n);
			for (const [index, [event, trigger]] of Object.entries(triggers).entries()) {
				const created = await rest(
					'POST',
					'workflows',
					triggerWorkflow(event as OperatorEvent, index + 1, credentials),
				);
				trigger.workflowId = String(created.id);
				expect(await setPublished(env, trigger.workflowId, true)).toMatchObject({ active: true });
			}
		});

		const polls = usePolls(env, '/api/v2/operators', () => Object.keys(triggers).length);
		// Their polls would only load the n8n that the file's later tests share.
		afterAll(async () => {
			for (const { workflowId } of Object.values(triggers))
				if (workflowId) await setPublished(env, workflowId, false);
		});

		/**
		 * Every execution of a trigger's workflow, whatever its status, with the items the trigger gave it; but a poll
		 * n8n failed itself, which the items then show lost or repeated nothing.
		 */
		async function executionsOf(trigger: { workflowId: string; node: string }) {
			return polls
				.withoutFailedByN8n(await env.n8n.readExecutions(trigger.workflowId, { all: true }))
				.map((execution: StoredExecution) => ({
					execution,
					items: nodeOutput(execution.data, trigger.node),
				}));
		}

		/** Waits for the executions a change should give, then for quiet polls, and returns every execution. */
		async function executionsAfterChange(expected: { status: number; availability: number }) {
			for (const [trigger, count] of [
				[STATUS, expected.status],
				[AVAILABILITY, expected.availability],
			] as const)
				await waitUntil(async () => (await executionsOf(trigger)).length >= count, {
					what: `${count} executions of "${trigger.node}"`,
					timeoutMs: POLL_WAIT_MS,
					everyMs: 500,
				});
			await polls.after(QUIET_POLLS);
			return { status: await executionsOf(STATUS), availability: await executionsOf(AVAILABILITY) };
		}

		/**
		 * Asserts what every execution of the scenario must be: a successful trigger run whose items say the change
		 * happened between changed_after and detected_at, which holds `changedAt`, the moment the test made it.
		 */
		function expectTriggerRuns(
			runs: Array<{ execution: StoredExecution; items: Array<Record<string, unknown>> }>,
			changedAt: number,
		): void {
			for (const { execution, items } of runs) {
				expect({ mode: execution.mode, status: execution.status }).toEqual({
					mode: 'trigger',
					status: 'success',
				});
				for (const item of items) {
					expect(item.changed_after).toMatch(ISO_UTC);
					expect(item.detected_at).toMatch(ISO_UTC);
					expect(Date.parse(item.changed_after as string)).toBeLessThanOrEqual(changedAt);
					expect(Date.parse(item.detected_at as string)).toBeGreaterThanOrEqual(changedAt);
				}
			}
		}

		/** The time of the trigger's last poll that n8n saved with the statuses it saw (static data, checkedAt). */
		async function savedCheckedAt(trigger: { workflowId: string; node: string }) {
			const staticData = await env.n8n.staticData(trigger.workflowId);
			const state = staticData?.[`node:${trigger.node}`]?.[OPERATOR_STATE_KEY] as
				| { checkedAt?: unknown }
				| undefined;
			return state?.checkedAt;
		}

		test('activation: the first poll records every operator in static data and emits nothing', async () => {
			// The seed has operators online and in other statuses, so both directions below have something to show.
			expect(seeded.filter((operator) => operator.status === 'online').length).toBeGreaterThan(0);
			expect(seeded.filter((operator) => operator.status !== 'offline').length).toBeGreaterThan(
				seeded.filter((operator) => operator.status === 'online').length,
			);
			for (const [event, trigger] of Object.entries(triggers)) {
				// n8n saves a trigger's static data once its activation poll has run.
				const state = await waitUntil(
					async () => {
						const staticData = await env.n8n.staticData(trigger.workflowId);
						return staticData?.[`node:${trigger.node}`]?.[OPERATOR_STATE_KEY] as
							| { event: string; boundTo: string; operators: unknown[] }
							| undefined;
					},
					{
						what: `the static data of ${trigger.node}`,
						timeoutMs: POLL_WAIT_MS,
						output: () => env.n8n.serverOutput.slice(-4_000),
						everyMs: 500,
					},
				);
				expect(state.event).toBe(event);
				expect(state.boundTo).toMatch(/^[0-9a-f]{64}$/);
				expect(byId(state.operators as Operator[])).toEqual(
					byId(seeded).map(({ id, status, roles }) => ({ id, status, roles })),
				);
			}
			// Later polls with nothing changed emit nothing either.
			await polls.after(2);
			expect(await executionsOf(STATUS)).toEqual([]);
			expect(await executionsOf(AVAILABILITY)).toEqual([]);
		});

		test('every operator offline: one "available: false" execution, and a Status Changed item per operator who was not offline', async () => {
			const changedAt = Date.now();
			env.sandbox.control.cycleOperators({ statuses: ['offline'] });
			const { status, availability } = await executionsAfterChange({
				status: 1,
				availability: 1,
			});
			expect(availability.map((run) => run.items)).toEqual([
				[
					{
						available: false,
						count: 0,
						operators: [],
						changed_after: expect.any(String) as string,
						detected_at: expect.any(String) as string,
					},
				],
			]);
			const items = status.flatMap((run) => run.items);
			expect(byId(items)).toEqual(
				byId(seeded)
					.filter((operator) => operator.status !== 'offline')
					.map((operator) => ({
						...shown(operator),
						status: 'offline',
						previous_status: operator.status,
						changed_after: expect.any(String) as string,
						detected_at: expect.any(String) as string,
					})),
			);
			expectTriggerRuns([...status, ...availability], changedAt);
		});

		test('a few polls later, nothing was reported twice', async () => {
			const before = (await executionsOf(STATUS)).length;
			await polls.after(QUIET_POLLS);
			expect(await executionsOf(AVAILABILITY)).toHaveLength(1);
			expect(await executionsOf(STATUS)).toHaveLength(before);
		});

		test('every operator back: one more execution, "available: true" with the online operators, and items from offline', async () => {
			const statusRunsBefore = (await executionsOf(STATUS)).length;
			const changedAt = Date.now();
			// One synchronous loop in this process: no poll can see half of it.
			for (const operator of seeded)
				env.sandbox.control.setOperatorStatus(operator.id, operator.status);
			const { status, availability } = await executionsAfterChange({
				status: statusRunsBefore + 1,
				availability: 2,
			});
			expect(availability).toHaveLength(2);
			const online = byId(seeded).filter((operator) => operator.status === 'online');
			expect(availability[1].items).toEqual([
				{
					available: true,
					count: online.length,
					operators: online.map(shown),
					changed_after: expect.any(String) as string,
					detected_at: expect.any(String) as string,
				},
			]);
			const newRuns = status.slice(statusRunsBefore);
			expect(byId(newRuns.flatMap((run) => run.items))).toEqual(
				byId(seeded)
					.filter((operator) => operator.status !== 'offline')
					.map((operator) => ({
						...shown(operator),
						previous_status: 'offline',
						changed_after: expect.any(String) as string,
						detected_at: expect.any(String) as string,
					})),
			);
			expectTriggerRuns([...newRuns, availability[1]], changedAt);
		});

		test('unpublished, every operator offline, published again: the first poll reports the change, late, and says since when', async () => {
			// Quiet polls from here on: they see the old statuses, but n8n saves static data only with a poll that emits.
			const quietFrom = Date.now();
			await polls.after(2);
			const runsBefore = {
				status: await executionsOf(STATUS),
				availability: await executionsOf(AVAILABILITY),
			};
			const before = {
				status: runsBefore.status.length,
				availability: runsBefore.availability.length,
			};
			const unpublishedAt = Date.now();
			for (const { workflowId } of Object.values(triggers))
				expect(await setPublished(env, workflowId, false)).toMatchObject({ active: false });
			// What n8n kept of each trigger: the statuses of a poll before unpublishing, and that poll's time.
			const kept = {
				status: await savedCheckedAt(STATUS),
				availability: await savedCheckedAt(AVAILABILITY),
			};
			for (const [event, checkedAt] of Object.entries(kept)) {
				expect(checkedAt).toMatch(ISO_UTC);
				expect(Date.parse(checkedAt as string)).toBeLessThan(unpublishedAt);
				// What changed_after will be (docs/trigger.md, "When it happened"): the start of the last poll that reported a change
				// before unpublishing, between that report's own bounds; not a quiet poll after it.
				const [last] = runsBefore[event as keyof typeof runsBefore].at(-1)!.items;
				expect(Date.parse(checkedAt as string)).toBeGreaterThan(
					Date.parse(last.changed_after as string),
				);
				expect(Date.parse(checkedAt as string)).toBeLessThanOrEqual(
					Date.parse(last.detected_at as string),
				);
				expect(Date.parse(checkedAt as string)).toBeLessThan(quietFrom);
			}
			const changedAt = Date.now();
			env.sandbox.control.cycleOperators({ statuses: ['offline'] });
			const publishedAt = Date.now();
			for (const { workflowId } of Object.values(triggers))
				expect(await setPublished(env, workflowId, true)).toMatchObject({ active: true });

			const { status, availability } = await executionsAfterChange({
				status: before.status + 1,
				availability: before.availability + 1,
			});
			const newRuns = [...status.slice(before.status), ...availability.slice(before.availability)];
			expect(availability.slice(before.availability).map((run) => run.items)).toEqual([
				[
					{
						available: false,
						count: 0,
						operators: [],
						changed_after: kept.availability,
						detected_at: expect.any(String) as string,
					},
				],
			]);
			expect(byId(status.slice(before.status).flatMap((run) => run.items))).toEqual(
				byId(seeded)
					.filter((operator) => operator.status !== 'offline')
					.map((operator) => ({
						...shown(operator),
						status: 'offline',
						previous_status: operator.status,
						changed_after: kept.status,
						detected_at: expect.any(String) as string,
					})),
			);
			expectTriggerRuns(newRuns, changedAt);
			// Reported late: noticed after publishing, about a change after a poll before unpublishing.
			for (const item of newRuns.flatMap((run) => run.items))
				expect(Date.parse(item.detected_at as string)).toBeGreaterThanOrEqual(publishedAt);
		});
	});
}
