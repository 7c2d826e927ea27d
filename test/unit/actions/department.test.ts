// Department resource: Get Many with Return All / Limit, and API errors.
import { NodeApiError } from 'n8n-workflow';

import { items, runNode, runNodeError, svc } from './runNode';

const getMany = { resource: 'department', operation: 'getMany' };
const DEPARTMENTS = [
	{ id: 1, name: 'Sales', order: 1 },
	{ id: 2, name: 'Support', order: 2 },
	{ id: 3, name: 'Billing', order: 3 },
];

test('Return All gives every department, paired with its input item', async () => {
	svc().get('/api/v2/departments').times(2).reply(200, DEPARTMENTS);
	const output = await runNode({ ...getMany, returnAll: true }, { items: items(2) });
	expect(output).toEqual(
		[0, 1].flatMap((item) => DEPARTMENTS.map((json) => ({ json, pairedItem: { item } }))),
	);
});

test('a limit keeps the first departments', async () => {
	svc().get('/api/v2/departments').reply(200, DEPARTMENTS);
	expect((await runNode({ ...getMany, limit: 2 })).map((item) => item.json.name)).toEqual([
		'Sales',
		'Support',
	]);
});

test('403 is a NodeApiError; continue-on-fail makes it an error item', async () => {
	svc().get('/api/v2/departments').reply(403, '');
	const error = await runNodeError(getMany);
	expect(error).toBeInstanceOf(NodeApiError);
	expect(error.message).toContain('not an administrator');

	svc().get('/api/v2/departments').reply(200, { error: 'unknown' });
	const output = await runNode(getMany, { continueOnFail: true });
	expect(output).toEqual([
		{
			json: { error: expect.stringContaining('gave no reason'), description: expect.any(String) },
			pairedItem: { item: 0 },
		},
	]);
});
