// The one nock set-up (setupFilesAfterEnv): only loopback is reachable, every mock is used, all is clean after; and
// the nock helpers the unit and integration tests share, so that nothing else loads nock.
import nock from 'nock';
import type { IHttpRequestMethods } from 'n8n-workflow';

import { forgetAccounts } from '../../nodes/SvcChat/transport/loginGuard';
import { BASE_URL } from './fixtures';

beforeAll(() => {
	// A file before this one in the worker handed the interception back; take it again.
	if (!nock.isActive()) nock.activate();
	// Only loopback is reached for real: the sandbox and the local servers of the network-error tests listen there.
	nock.disableNetConnect();
	nock.enableNetConnect('127.0.0.1');
});

afterEach(() => {
	// The login guard is the process's: each test starts with no account paused.
	forgetAccounts();
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

/**
 * An API path of the mocked host that answers every request, whatever its query, with what `.reply` is given.
 * It stays pending, so the test fails, until at least one request reaches it; the tests count the requests themselves.
 */
export function everyRequestTo(method: IHttpRequestMethods, apiPath: string): nock.Interceptor {
	const scope = nock(BASE_URL).persist();
	const path = `/api/v2/${apiPath}`;
	return (method === 'GET' ? scope.get(path) : scope.post(path)).query(true);
}

/**
 * Drops the mocks that a test leaves unrequested on purpose, after it has asserted so; the nock set-up fails any
 * test that leaves a mock unused.
 */
export function dropUnrequestedMocks(): void {
	nock.cleanAll();
}
