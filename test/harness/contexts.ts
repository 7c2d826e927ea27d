// Mock n8n contexts for unit and sandbox tests: strict parameters, real static data, n8n-core's real request stack.
// The behaviour lives in core.ts (no Jest, shared with the benchmarks); here it becomes jest-mock-extended mocks.
import { mock } from 'jest-mock-extended';
import type { IExecuteFunctions, IPollFunctions } from 'n8n-workflow';

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

export function createExecuteContext(options: ExecuteContextOptions) {
	const members = executeContextMembers(options);
	const helpers = mock<IExecuteFunctions['helpers']>({
		...members.helpers,
		httpRequestWithAuthentication: jest.fn(members.helpers.httpRequestWithAuthentication),
	});
	const context = mock<IExecuteFunctions>({ helpers });
	context.getNode.mockImplementation(members.getNode);
	context.getInputData.mockImplementation(members.getInputData);
	context.continueOnFail.mockImplementation(members.continueOnFail);
	context.getNodeParameter.mockImplementation(members.getNodeParameter as never);
	context.getCredentials.mockImplementation(members.getCredentials as never);
	return context;
}

export function createPollContext(options: PollContextOptions) {
	const members = pollContextMembers(options);
	const helpers = mock<IPollFunctions['helpers']>({
		...members.helpers,
		httpRequestWithAuthentication: jest.fn(members.helpers.httpRequestWithAuthentication),
	});
	const context = mock<IPollFunctions>({ helpers });
	context.getNode.mockImplementation(members.getNode);
	context.getMode.mockImplementation(members.getMode);
	context.getNodeParameter.mockImplementation(members.getNodeParameter as never);
	context.getCredentials.mockImplementation(members.getCredentials as never);
	context.getWorkflowStaticData.mockImplementation(members.getWorkflowStaticData);
	return context;
}
