// The test harness's n8n contexts, made fit for timing: n8n-core's real request stack, without the mocks' overhead.
import './jestShim';
import type {
	IDataObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	INodeParameters,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';
import { constructExecutionMetaData, returnJsonArray } from 'n8n-core';

import type { SvcCredentials } from '../nodes/SvcChat/transport';
import {
	createExecuteContext,
	createPollContext,
	strictParameters,
	testCredentials,
} from '../test/harness/contexts';
import { n8nHttpRequestWithAuthentication } from '../test/harness/n8nRequest';
import type { SandboxProcess } from './sandboxProcess';

export const credentialsFor = (sandbox: SandboxProcess): SvcCredentials =>
	testCredentials(sandbox.host, sandbox.admin);

// What the nodes use of their context; the benchmark fails loudly (undefined is not a function) if one is missing.
const EXECUTE_MEMBERS = [
	'getInputData',
	'getNodeParameter',
	'getNode',
	'continueOnFail',
	'getCredentials',
	'logger',
] as const;
const POLL_MEMBERS = [
	'getNodeParameter',
	'getNode',
	'getMode',
	'getWorkflowStaticData',
	'getCredentials',
	'getPollBudgetMs',
	'logger',
] as const;

/**
 * A plain object with the harness context's members, read once. The harness's contexts are jest-mock-extended
 * proxies, which make a new mock function on every property read and record every call; over tens of thousands of
 * reads that is what would be timed. The request helper is n8n-core's stack, as in the harness, minus the recording.
 */
function plain<T extends object>(proxy: T, members: ReadonlyArray<keyof T>): T {
	const context = Object.fromEntries(members.map((member) => [member, proxy[member]])) as T;
	const node = (proxy as unknown as IExecuteFunctions).getNode();
	(context as unknown as IExecuteFunctions).helpers = {
		httpRequestWithAuthentication: async (_type: string, request: IHttpRequestOptions) =>
			await n8nHttpRequestWithAuthentication(node, request),
		returnJsonArray,
		constructExecutionMetaData,
	} as unknown as IExecuteFunctions['helpers'];
	return context;
}

export function executeContextForTiming(
	options: Parameters<typeof createExecuteContext>[0],
): IExecuteFunctions {
	return plain<IExecuteFunctions>(createExecuteContext(options), EXECUTE_MEMBERS);
}

export function pollContextForTiming(
	options: Parameters<typeof createPollContext>[0],
): IPollFunctions {
	return plain<IPollFunctions>(createPollContext(options), POLL_MEMBERS);
}

/**
 * getNodeParameter over parameters resolved once, as n8n stores them, with some given per item (what an expression
 * such as {{ $json.phone }} gives); the harness would resolve the whole description again on every read.
 */
export function resolvedParameters(
	description: INodeTypeDescription,
	parameters: INodeParameters,
	perItem: Record<string, (itemIndex: number) => unknown> = {},
): IExecuteFunctions['getNodeParameter'] {
	const resolved = strictParameters(description, parameters) as IDataObject;
	return ((name: string, itemIndex: number, fallback?: unknown) => {
		if (perItem[name]) return perItem[name](itemIndex);
		let value: unknown = resolved;
		for (const key of name.split('.')) value = (value as IDataObject | undefined)?.[key];
		return value === undefined ? fallback : value;
	}) as IExecuteFunctions['getNodeParameter'];
}
