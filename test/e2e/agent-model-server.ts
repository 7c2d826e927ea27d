// A scripted OpenAI-compatible chat model on loopback: it answers with fixed tool calls and records what it receives.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

interface ChatMessage {
	role: string;
	content?: string | null | Array<{ type: string; text?: string }>;
	tool_calls?: ToolCall[];
	tool_call_id?: string;
	name?: string;
}

interface ToolCall {
	id: string;
	type: 'function';
	function: { name: string; arguments: string };
}

export interface ChatRequest {
	model: string;
	messages: ChatMessage[];
	tools?: Array<{
		type: string;
		function: { name: string; description?: string; parameters?: unknown };
	}>;
}

/** What the model does next: call tools, or answer with text. */
export type ModelTurn =
	| { toolCalls: Array<{ tool: RegExp; arguments: Record<string, unknown> }> }
	| { answer: string };

/** Picks the next turn from the conversation so far (the script), like a model that always decides the same way. */
export type ModelScript = (request: ChatRequest) => ModelTurn;

export interface ScriptedModel {
	/** For the OpenAI credential's Base URL: `http://127.0.0.1:PORT/v1`. */
	baseUrl: string;
	/** Every /chat/completions request, in order. */
	requests: ChatRequest[];
	stop(): Promise<void>;
}

/** The text of every tool result the model has received in this conversation, in order. */
export function toolResults(request: ChatRequest): string[] {
	return request.messages
		.filter((message) => message.role === 'tool')
		.map((message) =>
			typeof message.content === 'string' ? message.content : JSON.stringify(message.content),
		);
}

function completion(request: ChatRequest, turn: ModelTurn, callNumber: number) {
	const base = {
		id: `chatcmpl-scripted-${callNumber}`,
		object: 'chat.completion',
		created: Math.floor(Date.now() / 1000),
		model: request.model,
	};
	const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
	if ('answer' in turn) {
		return {
			...base,
			usage,
			choices: [
				{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: turn.answer } },
			],
		};
	}
	const offered = (request.tools ?? []).map((tool) => tool.function.name);
	const toolCalls: ToolCall[] = turn.toolCalls.map((call, index) => {
		const name = offered.find((candidate) => call.tool.test(candidate));
		if (!name)
			throw new Error(
				`The script calls a tool matching ${call.tool}, but the agent offered only: ${offered.join(', ') || 'none'}`,
			);
		return {
			id: `call_${callNumber}_${index}`,
			type: 'function',
			function: { name, arguments: JSON.stringify(call.arguments) },
		};
	});
	return {
		...base,
		usage,
		choices: [
			{
				index: 0,
				finish_reason: 'tool_calls',
				message: { role: 'assistant', content: null, tool_calls: toolCalls },
			},
		],
	};
}

export async function startScriptedModel(script: ModelScript): Promise<ScriptedModel> {
	const requests: ChatRequest[] = [];
	const server = http.createServer((incoming, response) => {
		const chunks: Buffer[] = [];
		incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
		incoming.on('end', () => {
			const reply = (status: number, body: unknown) => {
				response.writeHead(status, { 'Content-Type': 'application/json' });
				response.end(JSON.stringify(body));
			};
			if (incoming.method === 'GET' && incoming.url?.endsWith('/models')) {
				reply(200, {
					object: 'list',
					data: [{ id: 'scripted-model', object: 'model', owned_by: 'test' }],
				});
				return;
			}
			if (incoming.method !== 'POST' || !incoming.url?.endsWith('/chat/completions')) {
				reply(404, {
					error: {
						message: `The scripted model serves POST /v1/chat/completions, not ${incoming.method} ${incoming.url}`,
					},
				});
				return;
			}
			try {
				const request = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequest;
				requests.push(request);
				reply(200, completion(request, script(request), requests.length));
			} catch (error) {
				reply(500, { error: { message: error instanceof Error ? error.message : String(error) } });
			}
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		baseUrl: `http://127.0.0.1:${port}/v1`,
		requests,
		stop: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}
