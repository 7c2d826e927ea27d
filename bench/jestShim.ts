// Lets the test harness (test/harness, built on jest-mock-extended) run outside Jest: jest.fn comes from jest-mock.
import Module from 'node:module';
import { ModuleMocker } from 'jest-mock';

const mocker = new ModuleMocker(globalThis);
const jestLike = { fn: mocker.fn.bind(mocker), spyOn: mocker.spyOn.bind(mocker) };

// The harness calls the global `jest.fn`; jest-mock-extended imports `jest` from @jest/globals, which refuses to load
// outside Jest. Both get jest-mock's implementation, the same one Jest itself uses.
(globalThis as unknown as { jest: typeof jestLike }).jest = jestLike;
const loader = Module as unknown as { _load: (request: string, ...rest: unknown[]) => unknown };
const load = loader._load;
loader._load = function (request: string, ...rest: unknown[]) {
	return request === '@jest/globals' ? { jest: jestLike } : load.call(this, request, ...rest);
};
