// AI agent e2e: n8n's AI Agent (examples/6, a scripted model) and an MCP client (examples/12) call Svc Chat tools.
import { SVC_ERROR_CODES } from '../../nodes/SvcChat/transport/errors';
import type { Operator } from '../../nodes/SvcChat/types';
import { EXAMPLE_IDS, findExample, readExamples } from '../../scripts/examples';
import { nodeOutput, type RunData } from '../../scripts/executions';
import { lateBound } from '../harness/lateBound';
import {
	startScriptedModel,
	toolResults,
	type ChatRequest,
	type ModelTurn,
	type ScriptedModel,
} from './agent-model-server';
import {
	N8N_REGEX_TIMEOUT,
	SETUP_TIMEOUT_MS,
	startE2eEnvironment,
	TEST_TIMEOUT_MS,
	type E2eEnvironment,
} from './environment';
import { runManually } from './manualRuns';
import { testMcpServer } from './mcp.scenario';

const ANNA = 'anna@svc.test';
const UNKNOWN_EMAIL = 'nobody-here@svc.test';
const FINAL_ANSWER = 'Anna is on dinner break; nobody-here@svc.test is not an operator.';

/**
 * What a model sends for "list the operators who are online" and "set anna@… to dinner", one step per reply, then
 * the same for an e-mail nobody has. It decides by how many tool results it has seen, as a real model would.
 */
function script(request: ChatRequest): ModelTurn {
	switch (toolResults(request).length) {
		case 0:
			return { toolCalls: [{ tool: /list/i, arguments: {} }] };
		case 1:
			return { toolCalls: [{ tool: /status/i, arguments: { email: ANNA, status: 'dinner' } }] };
		case 2:
			return {
				toolCalls: [{ tool: /status/i, arguments: { email: UNKNOWN_EMAIL, status: 'dinner' } }],
			};
		default:
			return { answer: FINAL_ANSWER };
	}
}

let env: E2eEnvironment;
let model: ScriptedModel;
let operatorsBefore: Operator[];
/** The run of example 6, as the editor runs it: its run data, and the error n8n reported, if any. */
let run: { data?: RunData; error?: string };

beforeAll(async () => {
	model = await startScriptedModel(script);
	// Example 12's tools search a busy account: 20,000 chats over 30 days, one regular visitor among them.
	env = await startE2eEnvironment({ sandbox: { seed: 58, chats: 20_000, regularVisitor: true } });
	operatorsBefore = env.sandbox.control.getOperators();
	const example = findExample(readExamples(), EXAMPLE_IDS.aiAgent);
	const modelNode = example.nodes.find(
		(node) => node.type === '@n8n/n8n-nodes-langchain.lmChatOpenAi',
	);
	const openAi = modelNode?.credentials?.openAiApi;
	if (!openAi?.id)
		throw new Error('examples/6 has no OpenAI Chat Model with an openAiApi credential');
	const { id, name } = openAi;
	await env.n8n.importCredentials([
		{ id, name, type: 'openAiApi', data: { apiKey: 'scripted-model-key', url: model.baseUrl } },
	]);
	await env.n8n.importWorkflows([example]);
	const runExample = async () => {
		const { runs, errors } = await runManually(env.n8n, [example.id]);
		return { data: runs[example.id], error: errors[example.id] };
	};
	run = await runExample();
	// A tool call n8n failed itself (N8N_REGEX_TIMEOUT): the conversation again, from the sandbox's seeded state.
	if (model.requests.some((request) => toolResults(request).join().includes(N8N_REGEX_TIMEOUT))) {
		console.log(`n8n timed out its own regex check under load in a tool call; the run again`);
		env.sandbox.control.reset();
		model.requests.length = 0;
		run = await runExample();
	}
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
	await env?.dispose();
	await model?.stop();
});

jest.setTimeout(TEST_TIMEOUT_MS);

test('the run succeeds and the agent answers with what the model said last', () => {
	expect({ ran: run.data !== undefined, error: run.error }).toEqual({
		ran: true,
		error: undefined,
	});
	expect(nodeOutput(run.data!, 'AI Agent')).toEqual([{ output: FINAL_ANSWER }]);
	expect(model.requests).toHaveLength(4);
});

test('the model is offered both Svc Chat tools, with the $fromAI parameters as arguments', () => {
	const tools = model.requests[0].tools ?? [];
	const setStatus = tools.find((tool) => /status/i.test(tool.function.name));
	expect(tools.some((tool) => /list/i.test(tool.function.name))).toBe(true);
	expect(JSON.stringify(setStatus?.function.parameters)).toMatch(/"email"/);
	expect(JSON.stringify(setStatus?.function.parameters)).toMatch(/"status"/);
});

test('the listed operators reach the model as the tool result', () => {
	const [listed] = toolResults(model.requests[1]);
	for (const operator of operatorsBefore) {
		expect(listed).toContain(operator.email);
	}
	expect(listed).toContain(operatorsBefore.find((operator) => operator.email === ANNA)!.status);
});

test('$fromAI e-mail and status reach the sandbox: Anna is at dinner, nobody else changed', () => {
	const after = env.sandbox.control.getOperators();
	expect(after.find((operator) => operator.email === ANNA)?.status).toBe('dinner');
	const others = (list: Operator[]) =>
		list
			.filter((operator) => operator.email !== ANNA)
			.map(({ email, status }) => ({ email, status }));
	expect(others(after)).toEqual(others(operatorsBefore));
	const [, setAnna] = toolResults(model.requests[2]);
	expect(setAnna).toContain(ANNA);
	// One listing, then one status request per tool call (Anna's and the unknown e-mail's), nothing else.
	const calls = env.sandbox.control.requestLog().map(({ method, path }) => `${method} ${path}`);
	expect(calls).toEqual([
		'GET /api/v2/operators',
		'POST /api/v2/rt/agent_status',
		'POST /api/v2/rt/agent_status',
	]);
});

test('an unknown e-mail comes back to the model as a readable tool result, not a crashed run', () => {
	const results = toolResults(model.requests[3]);
	expect(results).toHaveLength(3);
	const unknown = results[2];
	expect(unknown).toContain(SVC_ERROR_CODES['invalid-agent-email'].message);
	expect({ ran: run.data !== undefined, error: run.error }).toEqual({
		ran: true,
		error: undefined,
	});
});

testMcpServer(lateBound(() => env));
