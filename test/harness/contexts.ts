// Mock n8n contexts for unit and sandbox tests: strict parameters, real static data, n8n-core's real request stack.
// The behaviour lives in core.ts (no Jest, shared with the benchmarks); here it becomes jest-mock-extended mocks.
import { mock } from 'jest-mock-extended';
import type { IExecuteFunctions, IPollFunctions } from 'n8n-workflow';

import { SvcChatTrigger } from '../../nodes/SvcChat/SvcChatTrigger.node';
import {
	executeContextMembers,
	pollContextMembers,
	type ExecuteContextOptions,
	type PollContextOptions,
} from './core';

export {
	strictParameters,
	TEST_PASSWORD,
	testCredentials,
	type ExecuteContextOptions,
	type PollContextOptions,
} from './core';

type Members = ReturnType<typeof executeContextMembers> | ReturnType<typeof pollContextMembers>;

/** A jest-mock-extended context whose members behave as the core's, and record their calls (the requests too). */
function mockContext<Context extends IExecuteFunctions | IPollFunctions>({
	helpers,
	...members
}: Members) {
	const context = mock<Context>({
		helpers: mock<Context['helpers']>({
			...helpers,
			httpRequestWithAuthentication: jest.fn(helpers.httpRequestWithAuthentication),
		} as never),
	} as never);
	for (const [name, implementation] of Object.entries(members))
		(context[name as keyof Context] as jest.Mock).mockImplementation(implementation);
	return context;
}

export function createExecuteContext(options: ExecuteContextOptions) {
	return mockContext<IExecuteFunctions>(executeContextMembers(options));
}

export function createPollContext(options: PollContextOptions) {
	return mockContext<IPollFunctions>(pollContextMembers(options));
}

/** The Svc Chat Trigger with a poll context whose logger is a mock, for tests that read what it logs. */
export function triggerUnderTest(options: Omit<PollContextOptions, 'description'>) {
	const trigger = new SvcChatTrigger();
	const context = createPollContext({ description: trigger.description, ...options });
	const logger = mock<IPollFunctions['logger']>();
	context.logger = logger;
	return { trigger, context, logger };
}
