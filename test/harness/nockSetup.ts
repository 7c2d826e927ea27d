// The one nock set-up (setupFilesAfterEnv): only loopback is reachable, every mock is used, all is clean after.
import nock from 'nock';

beforeAll(() => {
	// A file before this one in the worker handed the interception back; take it again.
	if (!nock.isActive()) nock.activate();
	// Only loopback is reached for real: the sandbox and the local servers of the network-error tests listen there.
	nock.disableNetConnect();
	nock.enableNetConnect('127.0.0.1');
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
