// Test data that the test layers share: the mocked Svc host, its base URL, pauses that take no time, ids of results.
// It loads no nock: once loaded, nock intercepts every request of the worker, and the sandbox, hardening and e2e
// tests that use these helpers must reach real sockets.
import type { IDataObject } from 'n8n-workflow';

import { retryPolicy } from '../../nodes/SvcChat/transport/request';

/** The Svc host of the unit tests' credentials; nock answers for it, nothing reaches the network. */
export const HOST = 'acme.svc.example';
export const BASE_URL = `https://${HOST}`;

const replacedForThisTest: Array<{ restore(): void }> = [];
afterEach(() => {
	while (replacedForThisTest.length) replacedForThisTest.pop()?.restore();
});

/**
 * Retry pauses that take no time, for the current test only: the transport's one retry setting gets a recorder (to
 * assert the pauses asked for) and, where given, other limits; all is restored after the test. `pause` replaces the
 * recorder's own (say, a short real wait).
 */
export function instantPauses(
	limits: Partial<Omit<typeof retryPolicy, 'sleep'>> = {},
	pause: (ms: number) => Promise<void> = async () => undefined,
) {
	while (replacedForThisTest.length) replacedForThisTest.pop()?.restore();
	const sleep = jest.spyOn(retryPolicy, 'sleep').mockImplementation(pause);
	replacedForThisTest.push({ restore: () => sleep.mockRestore() });
	for (const [key, value] of Object.entries(limits))
		replacedForThisTest.push(jest.replaceProperty(retryPolicy, key as keyof typeof limits, value));
	return sleep;
}

/** The ids of a node's or a poll's output items (a null poll gives none). */
export const ids = (items: IDataObject[] | null) => (items ?? []).map((item) => item.id);
