// The test harness's n8n contexts, fit for timing: the Jest-free core (n8n-core's real request stack), no mocks.
import type {
	IDataObject,
	IExecuteFunctions,
	INodeParameters,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';

import type { SvcCredentials } from '../nodes/SvcChat/transport/request';
import {
	executeContextMembers,
	pollContextMembers,
	strictParameters,
	testCredentials,
	type ExecuteContextOptions,
	type PollContextOptions,
} from '../test/harness/core';
import type { SandboxProcess } from './sandboxProcess';

export const credentialsFor = (sandbox: SandboxProcess): SvcCredentials =>
	testCredentials(sandbox.host, sandbox.admin);

// The nodes log only warnings the benchmarks do not time; a member the nodes use and the core lacks fails loudly.
const quietLogger = { debug() {}, info() {}, warn() {}, error() {}, verbose() {} };

export function executeContextForTiming(options: ExecuteContextOptions): IExecuteFunctions {
	return { ...executeContextMembers(options), logger: quietLogger } as unknown as IExecuteFunctions;
}

export function pollContextForTiming(options: PollContextOptions): IPollFunctions {
	return { ...pollContextMembers(options), logger: quietLogger } as unknown as IPollFunctions;
}

/**
 * A poll of the whole backlog from Beginning of History in one go (Max Chats per Poll above it), with Raw output by
 * default: the baselines keep the chats as the API sends them, so the trigger does too.
 */
export const catchUpPollContext = (
	description: INodeTypeDescription,
	credentials: SvcCredentials,
	backlog: number,
	staticData: IDataObject,
	output = 'raw',
) =>
	pollContextForTiming({
		description,
		parameters: {
			startFrom: 'beginning',
			emit: 'everyChange',
			output,
			options: { maxChatsPerPoll: backlog * 10 },
		},
		credentials,
		staticData,
		timezone: 'Europe/Berlin',
	});

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
