// Runs the Svc Chat node in the strict test harness against a nock-mocked Svc host; shared by the action unit tests.
import nock from 'nock';
import type { INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { SvcChat } from '../../../nodes/SvcChat/SvcChat.node';
import { createExecuteContext, testCredentials } from '../../harness/contexts';

import { BASE_URL, HOST } from '../../harness/fixtures';

export interface RunOptions {
	items?: INodeExecutionData[];
	continueOnFail?: boolean;
	typeVersion?: number;
	timezone?: string;
	/** Stored values (what `getNode().parameters` shows) where the workflow has expressions, e.g. "={{ $json.email }}". */
	stored?: INodeParameters;
	/** Runs as n8n's tool variant (type svcChatTool), as an AI Agent or the MCP Server Trigger calls it. */
	asTool?: boolean;
}

/** The node's first output, after one execution with these parameters (or per-item parameters). */
export async function runNode(
	parameters: INodeParameters | ((itemIndex: number) => INodeParameters),
	options: RunOptions = {},
): Promise<INodeExecutionData[]> {
	const node = new SvcChat();
	const { description } = node;
	const context = createExecuteContext({
		description: options.asTool ? { ...description, name: `${description.name}Tool` } : description,
		parameters,
		credentials: testCredentials(HOST),
		items: options.items,
		continueOnFail: options.continueOnFail,
		typeVersion: options.typeVersion,
		timezone: options.timezone,
	});
	// The harness's node holds what the expressions gave; n8n's holds the expressions themselves.
	if (options.stored) {
		const shown = context.getNode();
		context.getNode.mockReturnValue({
			...shown,
			parameters: { ...shown.parameters, ...options.stored },
		});
	}
	const [output] = await node.execute.call(context);
	return output;
}

/** The error the node throws, for assertions on its class, message, fix and item. */
export async function runNodeError(
	parameters: INodeParameters | ((itemIndex: number) => INodeParameters),
	options: RunOptions = {},
): Promise<Error & { description?: string; context?: { itemIndex?: number } }> {
	try {
		await runNode(parameters, options);
	} catch (error) {
		return error as Error & { description?: string; context?: { itemIndex?: number } };
	}
	throw new Error('The node was expected to fail, but it succeeded');
}

export function items(count: number): INodeExecutionData[] {
	return Array.from({ length: count }, (_, index) => ({ json: { index } }));
}

/** The Svc API, mocked; every test must use up what it mocks and nothing else may reach the network. */
export function svc() {
	return nock(BASE_URL);
}

/** The operators GET /operators gives: Simplified and Transcript name each chat's operator from it, once per run. */
const NAMED_OPERATORS = [
	{
		id: 7,
		email: 'anna@svc.test',
		full_name: 'Anna Petrova',
		status: 'online',
		roles: ['operator'],
	},
];

/** GET /operators answered once, as Simplified and Transcript read it once per run. */
export function replyOperators(operators: unknown[] = NAMED_OPERATORS) {
	return svc().get('/api/v2/operators').reply(200, operators);
}
