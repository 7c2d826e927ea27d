// Hostile servers: every fault kind of the sandbox against every operation ends in a clear, short error (a slow reply in
// its result), within the test's time limit; broadcasts are never retried and warn that they may have gone out.
import http from 'node:http';
import { NodeApiError, type INodeExecutionData } from 'n8n-workflow';

import { testCredentials } from '../harness/contexts';
import { listenLocally, type LocalServer } from '../unit/transport/support';

import { ACTION_OPERATION_NAMES, operationNamed } from './catalogue';
import {
	expectedMessage,
	MATRIX_FAULTS,
	matrixOperations,
	uncoveredFaultKinds,
	type MatrixFault,
	type MatrixOperation,
} from './hostileMatrix';
import { causeChain, runAction, runTrigger, type FuzzRun, type Outcome } from './runner';
import { useHardeningSandbox } from './setup';

/** Every operation of the node (read from the node itself) and the trigger. */
const OPERATION_NAMES = [...ACTION_OPERATION_NAMES, 'trigger'];
/** The transport's default: the first attempt and 3 retries. */
const ATTEMPTS_WHEN_RETRIED = 4;
const MAX_MESSAGE = 300;
const MAX_DESCRIPTION = 1_000;

const env = useHardeningSandbox();

const operation = (name: string) => operationNamed(matrixOperations(env.facts), name);

interface FaultedRun {
	outcome: Outcome;
	requests: number;
	faulted: number;
	staticDataChanged: boolean;
}

async function runUnderFault(
	target: MatrixOperation,
	fault: MatrixFault,
	continueOnFail: boolean,
): Promise<FaultedRun> {
	const { control } = env.sandbox;
	control.reset();
	const apiPath = `/api/v2/${target.path}`;
	control.injectFault({ ...fault.spec, path: apiPath });
	const run: FuzzRun = {
		items: [{ stored: target.parameters, values: {}, hostile: [] }],
		continueOnFail,
		mode: 'trigger',
		staticData: {},
	};
	let outcome: Outcome;
	let staticDataChanged = false;
	if (target.trigger) {
		const polled = await runTrigger(env.credentials, run);
		outcome = polled.outcome;
		staticDataChanged = polled.staticDataAfter !== polled.staticDataBefore;
	} else {
		outcome = await runAction(env.credentials, run);
	}
	const requests = control.requestLog().filter((entry) => entry.path === apiPath);
	return {
		outcome,
		requests: requests.length,
		faulted: requests.filter((entry) => entry.fault).length,
		staticDataChanged,
	};
}

test('the matrix holds every fault kind of the sandbox and every operation', () => {
	expect(uncoveredFaultKinds()).toEqual([]);
	expect(
		matrixOperations(env.facts)
			.map((target) => target.name)
			.sort(),
	).toEqual([...OPERATION_NAMES].sort());
});

const cases = MATRIX_FAULTS.flatMap((fault) =>
	OPERATION_NAMES.map((name) => [fault.name, name] as const),
);

describe.each(cases)('%s against %s', (faultName, name) => {
	const fault = MATRIX_FAULTS.find((candidate) => candidate.name === faultName) as MatrixFault;

	test('a clear error, no hang, the right number of attempts', async () => {
		const target = operation(name);
		const expected = expectedMessage(target, fault);
		const { outcome, requests, faulted, staticDataChanged } = await runUnderFault(
			target,
			fault,
			false,
		);

		if (expected === undefined) {
			expect(outcome).toMatchObject({ ok: true });
			// A slow reply is waited for; a fault meant for /chats never reaches other paths.
			expect(faulted).toBe(fault.chatsOnly ? 0 : requests);
			return;
		}
		expect(outcome.ok).toBe(false);
		const error = (outcome as { error: NodeApiError }).error;
		expect(error).toBeInstanceOf(NodeApiError);
		expect(
			causeChain(error).filter(
				(cause) => cause instanceof TypeError || cause instanceof RangeError,
			),
		).toEqual([]);
		expect(error.message).toMatch(expected);
		expect(error.message.length).toBeLessThanOrEqual(MAX_MESSAGE);
		expect(typeof error.description).toBe('string');
		expect((error.description as string).length).toBeLessThanOrEqual(MAX_DESCRIPTION);
		expect(requests).toBe(fault.retried && !target.broadcast ? ATTEMPTS_WHEN_RETRIED : 1);
		expect(faulted).toBe(requests);
		if (target.broadcast)
			expect(error.description).toMatch(
				/not retried, because a broadcast may already have gone out/,
			);
		if (target.trigger) expect(staticDataChanged).toBe(false);
	});

	if (name !== 'trigger') {
		test('with Continue On Fail: an error item for the input item', async () => {
			const target = operation(name);
			const expected = expectedMessage(target, fault);
			const { outcome } = await runUnderFault(target, fault, true);
			expect(outcome.ok).toBe(true);
			const items = (outcome as { items: INodeExecutionData[] }).items;
			if (expected === undefined) {
				expect(items.every((item) => item.json.error === undefined)).toBe(true);
				return;
			}
			expect(items).toHaveLength(1);
			expect(items[0].pairedItem).toEqual({ item: 0 });
			expect(items[0].json.error).toMatch(expected);
		});
	}
});

describe('a server that redirects elsewhere', () => {
	let elsewhere: LocalServer;
	let redirecting: LocalServer;
	const reachedElsewhere: Array<string | undefined> = [];
	beforeAll(async () => {
		elsewhere = await listenLocally(
			http.createServer((request, response) => {
				reachedElsewhere.push(request.headers.authorization);
				response.end('[]');
			}),
		);
		redirecting = await listenLocally(
			http.createServer((request, response) => {
				response.writeHead(302, { location: `http://${elsewhere.hostPort}${request.url}` });
				response.end();
			}),
		);
	});
	afterAll(async () => {
		await redirecting?.close();
		await elsewhere?.close();
	});
	beforeEach(() => (reachedElsewhere.length = 0));

	test.each(OPERATION_NAMES)('%s is not followed there, and says where it points', async (name) => {
		const target = operation(name);
		const run: FuzzRun = {
			items: [{ stored: target.parameters, values: {}, hostile: [] }],
			continueOnFail: false,
			mode: 'trigger',
			staticData: {},
		};
		const credentials = testCredentials(`http://${redirecting.hostPort}`, env.sandbox.admin);
		const outcome = target.trigger
			? (await runTrigger(credentials, run)).outcome
			: await runAction(credentials, run);
		expect(outcome.ok).toBe(false);
		expect((outcome as { error: Error }).error.message).toMatch(
			new RegExp(`redirects the request to http://${elsewhere.hostPort}/api/v2/.* \\(HTTP 302\\)`),
		);
		expect(reachedElsewhere).toEqual([]);
	});
});
