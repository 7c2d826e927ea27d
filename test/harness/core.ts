// The n8n contexts without Jest: test credentials, strict parameters and n8n-core's real request stack.
// The tests wrap these members in jest-mock-extended mocks (contexts.ts); the benchmarks use them as they are.
import {
	NodeHelpers,
	type IDataObject,
	type IHttpRequestOptions,
	type INode,
	type INodeExecutionData,
	type INodeParameters,
	type INodeTypeDescription,
	type WorkflowActivateMode,
	type WorkflowExecuteMode,
} from 'n8n-workflow';
import { constructExecutionMetaData, returnJsonArray } from 'n8n-core';

import type { SvcCredentials } from '../../nodes/SvcChat/transport/request';
import { n8nHttpRequestWithAuthentication } from './n8nRequest';

export const TEST_PASSWORD = 'Pw-7f3a9c1e-do-not-leak';

export function testCredentials(
	host: string,
	overrides: Partial<SvcCredentials> = {},
): SvcCredentials {
	return {
		host,
		email: 'admin@svc.test',
		password: TEST_PASSWORD,
		ignoreSslIssues: false,
		...overrides,
	};
}

function makeNode(
	description: INodeTypeDescription,
	parameters: INodeParameters,
	typeVersion = 1,
): INode {
	return {
		id: 'node-under-test',
		name: description.defaults.name ?? description.displayName,
		type: `n8n-nodes-svc.${description.name}`,
		typeVersion,
		position: [0, 0],
		parameters,
	};
}

/**
 * The parameters n8n would store for a node: defaults filled in, and only those that the description
 * shows for these values. Reading anything else throws, so code and descriptions cannot drift apart.
 */
export function strictParameters(
	description: INodeTypeDescription,
	values: INodeParameters,
): INodeParameters {
	const resolved = NodeHelpers.getNodeParameters(
		description.properties,
		values,
		true,
		false,
		null,
		description,
	);
	if (!resolved) throw new Error('Parameters could not be resolved against the node description');
	return resolved;
}

function readParameter(resolved: INodeParameters, name: string, fallback: unknown): unknown {
	const [head, ...rest] = name.split('.');
	if (!(head in resolved)) {
		throw new Error(
			`The code read parameter "${name}", which the node description does not declare or show here`,
		);
	}
	let value: unknown = resolved[head];
	for (const key of rest) value = (value as IDataObject | undefined)?.[key];
	return value === undefined ? fallback : value;
}

/** n8n's request helpers for the node: the real axios stack, failures wrapped in a NodeApiError. */
function requestHelpers(node: INode) {
	return {
		httpRequestWithAuthentication: async (_type: string, request: IHttpRequestOptions) =>
			await n8nHttpRequestWithAuthentication(node, request),
		returnJsonArray,
		constructExecutionMetaData,
	};
}

export interface ExecuteContextOptions {
	description: INodeTypeDescription;
	/** Parameters of the node; a function gives per-item values (as expressions would). */
	parameters: INodeParameters | ((itemIndex: number) => INodeParameters);
	credentials: SvcCredentials;
	items?: INodeExecutionData[];
	continueOnFail?: boolean;
	/** The node's version in the workflow (default 1, as the saved workflows have). */
	typeVersion?: number;
	/** The workflow's time zone (default n8n's own default, America/New_York). */
	timezone?: string;
	/** How the run started: 'manual' (a person's Execute step, the default) tries even while the account pauses. */
	mode?: WorkflowExecuteMode;
}

const N8N_DEFAULT_TIMEZONE = 'America/New_York';

/** The members of IExecuteFunctions that the node uses, as plain functions. */
export function executeContextMembers(options: ExecuteContextOptions) {
	const items = options.items ?? [{ json: {} }];
	// Resolved once per item, as n8n fills in a node's parameters once, not at every read (1,001 items read many).
	const resolvedByItem = new Map<number, INodeParameters>();
	const parametersFor = (itemIndex: number) => {
		const values =
			typeof options.parameters === 'function' ? options.parameters(itemIndex) : options.parameters;
		const resolved = resolvedByItem.get(itemIndex) ?? strictParameters(options.description, values);
		resolvedByItem.set(itemIndex, resolved);
		return resolved;
	};
	const node = makeNode(options.description, parametersFor(0), options.typeVersion);
	return {
		getNode: () => node,
		getInputData: () => items,
		getMode: () => options.mode ?? 'manual',
		continueOnFail: () => options.continueOnFail ?? false,
		getTimezone: () => options.timezone ?? N8N_DEFAULT_TIMEZONE,
		getNodeParameter: (name: string, itemIndex: number, fallback?: unknown) =>
			readParameter(parametersFor(itemIndex), name, fallback),
		getCredentials: async () => options.credentials,
		helpers: requestHelpers(node),
	};
}

export interface PollContextOptions {
	description: INodeTypeDescription;
	parameters: INodeParameters;
	credentials: SvcCredentials;
	/** The workflow's static data for this node; kept by the caller between polls, as n8n does. */
	staticData: IDataObject;
	mode?: WorkflowExecuteMode;
	timezone?: string;
	/** How n8n started the trigger: at its own start ('init', the default here), or a publication ('activate'). */
	activation?: WorkflowActivateMode;
}

/** The members of IPollFunctions that the trigger uses, as plain functions (n8n 1.x has no getPollBudgetMs). */
export function pollContextMembers(options: PollContextOptions) {
	const resolved = strictParameters(options.description, options.parameters);
	const node = makeNode(options.description, resolved);
	return {
		getNode: () => node,
		getMode: () => options.mode ?? 'trigger',
		getActivationMode: () => options.activation ?? 'init',
		getTimezone: () => options.timezone ?? N8N_DEFAULT_TIMEZONE,
		getNodeParameter: (name: string, fallback?: unknown) => readParameter(resolved, name, fallback),
		getCredentials: async () => options.credentials,
		getWorkflowStaticData: () => options.staticData,
		helpers: requestHelpers(node),
	};
}
