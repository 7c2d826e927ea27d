// The one nock set-up (jest setupFilesAfterEnv): no real network, every mock used by its test, a clean state after.
import nock from 'nock';

/** Hosts a project may reach for real (its `globals.nockAllowedHost`): loopback for the sandbox-backed tests. */
const allowedHost = (globalThis as { nockAllowedHost?: string }).nockAllowedHost;

beforeAll(() => {
	// A file before this one in the worker handed the interception back; take it again.
	if (!nock.isActive()) nock.activate();
	nock.disableNetConnect();
	if (allowedHost) nock.enableNetConnect(allowedHost);
});

afterEach(() => {
	const pending = nock.pendingMocks();
	nock.cleanAll();
	if (pending.length > 0) {
		throw new Error(
			`The test left ${pending.length} nock mock(s) unused: ${pending.join(', ')}. A mock that may go ` +
				'unrequested takes .optionally(); one left unrequested on purpose is asserted, then dropUnrequestedMocks().',
		);
	}
});

// Hand the request interception back, so the next test file in this worker starts clean.
afterAll(() => {
	nock.cleanAll();
	nock.enableNetConnect();
	nock.restore();
});
