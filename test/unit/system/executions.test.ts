// scripts/executions.ts: a finished execution's run data is read from n8n once, a running or changed one every time.
import { readExecutions, type FinishedRunData, type RestCall } from '../../../scripts/executions';
import type { N8nRuntime } from '../../../scripts/runtime';

// The n8n runtime is only asked for flatted, n8n's encoding of run data; plain JSON stands in for it here.
const runtime = { require: () => ({ parse: JSON.parse }) } as unknown as N8nRuntime;

type Summary = { id: string; status: string; stoppedAt?: string };

/** n8n's REST API over `summaries`: the list, and each execution's run data (its status in it), counting those reads. */
function fakeN8n(summaries: Summary[]) {
	const dataReads: string[] = [];
	const rest: RestCall = async (_method, route) => {
		const one = /^executions\/(\d+)$/.exec(route);
		if (!one) return { results: summaries, count: summaries.length } as never;
		dataReads.push(one[1]);
		const { status } = summaries.find(({ id }) => id === one[1])!;
		return { data: JSON.stringify({ resultData: { runData: {}, lastNodeExecuted: status } }) };
	};
	return { rest, dataReads };
}

test('finished executions are read once; a running one every time, and again once it finished', async () => {
	const summaries: Summary[] = [
		{ id: '1', status: 'success', stoppedAt: '2026-11-27T03:00:00.000Z' },
		{ id: '2', status: 'running' },
	];
	const n8n = fakeN8n(summaries);
	const finished: FinishedRunData = new Map();
	const read = async () => await readExecutions(n8n.rest, runtime, 'w1', { all: true }, finished);

	await read();
	const second = await read();
	expect(n8n.dataReads).toEqual(['1', '2', '2']);
	expect(second.map(({ data }) => data.resultData.lastNodeExecuted)).toEqual([
		'success',
		'running',
	]);

	summaries[1] = { id: '2', status: 'error', stoppedAt: '2026-11-27T03:00:05.000Z' };
	const third = await read();
	await read();
	expect(n8n.dataReads).toEqual(['1', '2', '2', '2']);
	expect(third[1].data.resultData.lastNodeExecuted).toBe('error');
});

test('a finished execution that n8n changes (a crashed one that Bull then fails) is read again', async () => {
	const summaries: Summary[] = [
		{ id: '7', status: 'crashed', stoppedAt: '2026-11-27T03:00:00.000Z' },
	];
	const n8n = fakeN8n(summaries);
	const finished: FinishedRunData = new Map();
	await readExecutions(n8n.rest, runtime, 'w1', { all: true }, finished);
	summaries[0] = { id: '7', status: 'error', stoppedAt: '2026-11-27T03:00:22.000Z' };
	const [execution] = await readExecutions(n8n.rest, runtime, 'w1', { all: true }, finished);
	expect(n8n.dataReads).toEqual(['7', '7']);
	expect(execution.data.resultData.lastNodeExecuted).toBe('error');
});

test('without run data, no execution is read one by one', async () => {
	const n8n = fakeN8n([{ id: '1', status: 'success' }]);
	const [execution] = await readExecutions(n8n.rest, runtime, 'w1', { withData: false }, new Map());
	expect(n8n.dataReads).toEqual([]);
	expect(execution.id).toBe(1);
});

test('a count one ahead of the page (n8n counts in a query of its own) is no error; a count over 100 is', async () => {
	const summaries: Summary[] = [
		{ id: '1', status: 'success', stoppedAt: '2026-11-27T03:00:00.000Z' },
	];
	const countedAs =
		(count: number): RestCall =>
		async () =>
			({ results: summaries, count }) as never;
	const read = async (count: number) =>
		await readExecutions(
			countedAs(count),
			runtime,
			'w1',
			{ all: true, withData: false },
			new Map(),
		);
	expect((await read(2)).map(({ id }) => id)).toEqual([1]);
	await expect(read(101)).rejects.toThrow('Workflow w1 has 101 executions; only 100 are read');
});
