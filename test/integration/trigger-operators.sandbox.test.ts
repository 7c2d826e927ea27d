// The trigger's operator events over real HTTP against the sandbox: statuses changed through its control, polls in a row.
import type { IDataObject, ILoadOptionsFunctions, INodeParameters } from 'n8n-workflow';

import { triggerUnderTest } from '../harness/contexts';
import { instantPauses } from '../harness/fixtures';
import { useSandbox } from '../harness/sandboxSuite';

const sandbox = useSandbox({ seed: 5, chats: 3 });

/** A trigger whose polls share `staticData`, as n8n keeps it; each poll gives its items' json, or null. */
function trigger(parameters: INodeParameters, staticData: IDataObject = {}, mode?: 'manual') {
	return async () => {
		const { trigger, context } = triggerUnderTest({
			parameters,
			credentials: sandbox.credentials(),
			staticData,
			mode,
		});
		return (await trigger.poll.call(context))?.[0].map((item) => item.json) ?? null;
	};
}

const byId = (items: IDataObject[] | null) =>
	(items ?? []).map(({ id, status, previous_status }) => [id, status, previous_status]);

test('Status Changed: a sequence of changes, additions and removals, each reported once with its previous status', async () => {
	const poll = trigger({ emit: 'operatorStatusChanged' });
	const { control } = sandbox;
	expect(await poll()).toBeNull();

	control.setOperatorStatus('boris@svc.test', 'online');
	control.setOperatorStatus(4, 'offline');
	const changes = await poll();
	expect(byId(changes)).toEqual([
		[3, 'online', 'offline'],
		[4, 'offline', 'dinner'],
	]);
	expect(changes?.[0]).toMatchObject({
		email: 'boris@svc.test',
		full_name: 'Boris Ivanov',
		roles: ['operator'],
		detected_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
	});
	expect(await poll()).toBeNull();

	// Changed and changed back between two polls: not seen, as docs/trigger.md says.
	control.setOperatorStatus(2, 'dinner');
	control.setOperatorStatus(2, 'online');
	const added = control.addOperator({ email: 'fiona@svc.test', status: 'online' });
	control.removeOperator('elena@svc.test');
	expect(byId(await poll())).toEqual([
		[added.id, 'online', null],
		[6, null, 'pre-dinner'],
	]);

	// Every operator offline, then a failed poll: nothing is emitted and nothing is lost.
	control.cycleOperators({ statuses: ['offline'] });
	control.injectFault({ kind: '502', count: 4, path: '/api/v2/operators' });
	instantPauses();
	await expect(poll()).rejects.toThrow();
	expect(byId(await poll())).toEqual([
		[1, 'offline', 'online'],
		[2, 'offline', 'online'],
		[3, 'offline', 'online'],
		[5, 'offline', 'invisible'],
		[added.id, 'offline', 'online'],
	]);
});

test('Availability Changed: exactly one item when everyone goes offline, one when someone is back', async () => {
	const poll = trigger({ emit: 'operatorAvailabilityChanged', roles: ['operator'] });
	const { control } = sandbox;
	expect(await poll()).toBeNull();

	control.cycleOperators({ statuses: ['offline'] });
	expect(await poll()).toEqual([
		{
			available: false,
			count: 0,
			operators: [],
			changed_after: expect.any(String),
			detected_at: expect.any(String),
		},
	]);
	expect(await poll()).toBeNull();

	control.setOperatorStatus('anna@svc.test', 'online');
	const back = await poll();
	expect(back).toEqual([
		{
			available: true,
			count: 1,
			operators: [expect.objectContaining({ id: 2, email: 'anna@svc.test', status: 'online' })],
			changed_after: expect.any(String),
			detected_at: expect.any(String),
		},
	]);
	control.setOperatorStatus('boris@svc.test', 'online');
	expect(await poll()).toBeNull();
});

test('Fetch Test Event shows the operators now and leaves the state alone; the From List search gives their IDs', async () => {
	const staticData: IDataObject = {};
	const sample = await trigger({ emit: 'operatorStatusChanged' }, staticData, 'manual')();
	expect(byId(sample)).toEqual(
		sandbox.control
			.getOperators()
			.map((operator) => [operator.id, operator.status, operator.status]),
	);
	expect(staticData).toEqual({});

	const { trigger: node, context } = triggerUnderTest({
		parameters: { emit: 'operatorStatusChanged' },
		credentials: sandbox.credentials(),
		staticData,
	});
	const list = await node.methods.listSearch.searchOperators.call(
		context as unknown as ILoadOptionsFunctions,
		'carla',
	);
	expect(list.results).toEqual([{ name: 'Carla Gomez (carla@svc.test)', value: '4' }]);
});
