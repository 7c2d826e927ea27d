// Orders the test files for Jest's workers: the longest first, and the n8n 1.x files once their runtime can be ready.
// Jest's own order needs a cache of earlier runs, which a fresh clone (and CI) has not: it then sorts by file size,
// which put a 20-second file before a 3-minute one and left a worker idle at the end.
const Sequencer = require('@jest/test-sequencer').default;

/**
 * Seconds each long file takes in a fresh clone's `npm test` on this 2-core machine, three workers, the n8n 1.x runtime
 * installing beside them (issue 63's runs; test/README.md, "Where the time goes"); any other file is estimated from
 * its size. Only the order depends on these: a wrong figure costs time, never a test.
 */
const EXPECTED_SECONDS = {
	'e2e/queue.test.ts': 200,
	'e2e/browser.test.ts': 164,
	'e2e/trigger-events.test.ts': 70,
	'e2e/n8n1.test.ts': 60,
	'e2e/demo.test.ts': 90,
	'e2e/trigger-persistence.default.test.ts': 62,
	'e2e/trigger-persistence.durable.test.ts': 57,
	'package/package.test.ts': 47,
	'e2e/credential.test.ts': 40,
	'engine/networkFaults.test.ts': 35,
	'hardening/secrets.test.ts': 34,
	'e2e/trigger-budget.test.ts': 28,
	'hardening/fuzz.test.ts': 22,
	'package/verification.test.ts': 22,
	'engine/broadcast-stop.test.ts': 20,
	'engine/trigger-chat-events.test.ts': 20,
	'engine/trigger-operators.test.ts': 15,
	'engine/trigger-visitor-waiting.test.ts': 12,
	'e2e/agent.test.ts': 20,
	'integration/newestFirst.sandbox.test.ts': 20,
	'hardening/hostile.test.ts': 19,
	'integration/trigger.soak.test.ts': 19,
	'integration/specGaps.sandbox.test.ts': 18,
	'package/runtime-install.test.ts': 16,
	'engine/actions.test.ts': 13,
	'engine/examples.test.ts': 10,
	'engine/harness.test.ts': 10,
	'e2e/browser-harness.test.ts': 9,
	'sandbox/latency.test.ts': 7,
	'unit/actions/statistics.test.ts': 7,
};
/**
 * Files that run n8n 1.x, whose runtime the set-up installs in the background: in a fresh clone's CI its npm install
 * took 105 s beside the tests in r13 (it takes sqlite3's binding from the 2.x runtime instead of compiling one). Every
 * file of the engine project runs both lines.
 */
const needsN8n1 = (relative) => relative.startsWith('engine/') || relative === 'e2e/n8n1.test.ts';
const N8N_1_INSTALL_SECONDS = 120;

const relative = (test) => test.path.slice(test.path.lastIndexOf('/test/') + '/test/'.length);

class LongestFirstSequencer extends Sequencer {
	/**
	 * Plays Jest's scheduling (each free worker takes the next file) with the expected times: a free worker takes the
	 * longest file it may start, a 1.x file only once its runtime could be installed, unless nothing else is left.
	 */
	sort(tests) {
		const workers = Array(Math.max(1, this.workers)).fill(0);
		const expected = (test) =>
			EXPECTED_SECONDS[relative(test)] ?? (test.context.hasteFS.getSize(test.path) ?? 0) / 2000;
		const waiting = [...tests].sort((a, b) => expected(b) - expected(a));
		const order = [];
		while (waiting.length) {
			const now = Math.min(...workers);
			const may = waiting.findIndex(
				(test) => !needsN8n1(relative(test)) || now >= N8N_1_INSTALL_SECONDS,
			);
			const [next] = waiting.splice(may === -1 ? 0 : may, 1);
			workers[workers.indexOf(now)] = now + expected(next);
			order.push(next);
		}
		return order;
	}

	constructor(options) {
		super(options);
		this.workers = options.globalConfig.maxWorkers;
	}
}

module.exports = LongestFirstSequencer;
