// test/sequencer.js: with Jest's three workers, the longest files first, and the n8n 1.x files only once their runtime can be installed.
import path from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const LongestFirstSequencer = require('../../sequencer.js') as new (options: object) => {
	sort(tests: FakeTest[]): FakeTest[];
};

type FakeTest = { path: string; context: { hasteFS: { getSize(file: string): number } } };

const root = path.resolve(__dirname, '../..');
const sizes = new Map<string, number>();
const fakeTest = (relative: string, size = 10_000): FakeTest => {
	sizes.set(path.join(root, relative), size);
	return {
		path: path.join(root, relative),
		context: { hasteFS: { getSize: (file) => sizes.get(file)! } },
	};
};
const order = (tests: FakeTest[]) =>
	new LongestFirstSequencer({ contexts: [], globalConfig: { maxWorkers: 3 } })
		.sort(tests)
		.map((test) => path.relative(path.join(root, 'test'), test.path));

test('each free worker takes the longest file it may start: the longest first, by their measured times', () => {
	const tests = [
		'test/unit/a.test.ts',
		'test/e2e/credential.test.ts',
		'test/e2e/browser.test.ts',
		'test/e2e/queue.test.ts',
		'test/e2e/trigger-events.test.ts',
		'test/e2e/demo.test.ts',
	].map((file) => fakeTest(file));
	expect(order(tests).slice(0, 4)).toEqual([
		'e2e/queue.test.ts',
		'e2e/browser.test.ts',
		'e2e/demo.test.ts',
		'e2e/trigger-events.test.ts',
	]);
});

test('a file without a measured time counts by its size, so a large unknown file goes before a small one', () => {
	const tests = [
		fakeTest('test/unit/small.test.ts', 2_000),
		fakeTest('test/unit/large.test.ts', 60_000),
	];
	expect(order(tests)).toEqual(['unit/large.test.ts', 'unit/small.test.ts']);
});

test('the n8n 1.x files wait until their runtime could be installed (120 s), though they are among the longest', () => {
	const files = [
		'test/e2e/queue.test.ts',
		'test/e2e/trigger-events.test.ts',
		'test/e2e/browser.test.ts',
		'test/e2e/n8n1.test.ts',
		'test/engine/networkFaults.test.ts',
		'test/engine/actions.test.ts',
		'test/e2e/demo.test.ts',
		'test/e2e/trigger-persistence.default.test.ts',
		'test/e2e/trigger-persistence.durable.test.ts',
		'test/e2e/credential.test.ts',
		'test/package/package.test.ts',
		'test/e2e/trigger-budget.test.ts',
	];
	const sorted = order(files.map((file) => fakeTest(file)));
	const runsN8n1 = (file: string) => /n8n1|^engine\//.test(file);
	const firstN8n1 = sorted.findIndex(runsN8n1);
	// Before it: what keeps three workers busy for the first 120 s, by the measured times.
	expect(sorted.slice(0, firstN8n1)).toEqual([
		'e2e/queue.test.ts',
		'e2e/browser.test.ts',
		'e2e/demo.test.ts',
		'e2e/trigger-events.test.ts',
		'e2e/trigger-persistence.default.test.ts',
	]);
	// Then, among the others, the longest first.
	expect(sorted.filter(runsN8n1)).toEqual([
		'e2e/n8n1.test.ts',
		'engine/networkFaults.test.ts',
		'engine/actions.test.ts',
	]);
});

test('with nothing else left, a 1.x file is started rather than a worker left idle', () => {
	expect(order([fakeTest('test/e2e/n8n1.test.ts')])).toEqual(['e2e/n8n1.test.ts']);
});
