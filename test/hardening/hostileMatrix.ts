// The hostile-server matrix: every fault kind of the sandbox against every operation, with the error each must give.
import type { INodeParameters } from 'n8n-workflow';

import { FAULT_KINDS, type FaultSpec } from '../../sandbox';
import type { SandboxFacts } from './catalogue';

export interface MatrixOperation {
	name: string;
	parameters: INodeParameters;
	/** The API path it requests, as the sandbox logs it. */
	path: string;
	/** Never retried: a broadcast could go out twice. */
	broadcast?: boolean;
	trigger?: boolean;
}

export interface MatrixFault {
	/** The sandbox's fault kind, or a variant of it. */
	name: string;
	spec: FaultSpec;
	/** What the error message must say; undefined when the request succeeds (a slow reply). */
	message?: RegExp;
	/** Retried by the transport (unless the request is a broadcast). */
	retried?: boolean;
	/** Only GET /chats gets this fault. */
	chatsOnly?: boolean;
}

/** Until the end of the test: every retry meets the fault again. */
const PERSISTENT = 50;

export const MATRIX_FAULTS: MatrixFault[] = [
	{
		name: '502',
		spec: { kind: '502', count: PERSISTENT },
		message: /cannot process the request \(502\)/,
		retried: true,
	},
	{
		name: '503',
		spec: { kind: '503', count: PERSISTENT, retryAfterSeconds: 1 },
		message: /temporarily unavailable \(503\)/,
		retried: true,
	},
	{
		name: '429',
		spec: { kind: '429', count: PERSISTENT, retryAfterSeconds: 1 },
		message: /Too many requests/,
		retried: true,
	},
	{
		name: 'reset',
		spec: { kind: 'reset', count: PERSISTENT },
		message: /closed the connection/,
		retried: true,
	},
	{ name: 'delay', spec: { kind: 'delay', count: PERSISTENT, delayMs: 40 } },
	{
		name: 'truncated',
		spec: { kind: 'truncated', count: PERSISTENT },
		message: /did not answer with JSON/,
	},
	{
		name: 'non-json',
		spec: { kind: 'non-json', count: PERSISTENT },
		message: /did not answer with JSON/,
	},
	{ name: 'html', spec: { kind: 'html', count: PERSISTENT }, message: /answered with HTTP 500/ },
	{
		name: 'html (status 200)',
		spec: { kind: 'html', count: PERSISTENT, status: 200 },
		message: /did not answer with JSON/,
	},
	{
		name: 'unexpected-shape',
		spec: { kind: 'unexpected-shape', count: PERSISTENT },
		message: /unexpected shape/,
	},
	{
		name: 'missing-last-ts',
		spec: { kind: 'missing-last-ts', count: PERSISTENT },
		message: /listed \d+ changed chat\(s\) without a last_ts cursor/,
		chatsOnly: true,
	},
	{
		name: 'stuck-more',
		spec: { kind: 'stuck-more', count: PERSISTENT },
		message: /more chats, but its cursor stopped moving/,
		chatsOnly: true,
	},
	{ name: 'huge', spec: { kind: 'huge', count: PERSISTENT }, message: /unexpected shape/ },
];

export function matrixOperations(facts: SandboxFacts): MatrixOperation[] {
	const yesterday = new Date(facts.nowMs - 86_400_000).toISOString().slice(0, 10);
	const sender = { operatorId: facts.adminOperatorId, channelId: facts.channelId };
	return [
		{
			name: 'operator/getMany',
			path: 'operators',
			parameters: { resource: 'operator', operation: 'getMany', returnAll: true },
		},
		{
			name: 'operator/setStatus',
			path: 'rt/agent_status',
			parameters: {
				resource: 'operator',
				operation: 'setStatus',
				email: facts.changeableEmails[1],
				status: 'dinner',
			},
		},
		{
			name: 'visitor/pairToken',
			path: 'rt/provide_visitor_fields',
			parameters: {
				resource: 'visitor',
				operation: 'pairToken',
				visitorId: 'v-1042',
				knownFields: { name: 'Jane' },
			},
		},
		{
			name: 'visitor/removeToken',
			path: 'rt/provide_visitor_fields',
			parameters: { resource: 'visitor', operation: 'removeToken', authToken: 'token-1042' },
		},
		{
			name: 'broadcast/sendTemplate',
			path: 'rt/send_broadcast',
			broadcast: true,
			parameters: {
				resource: 'broadcast',
				operation: 'sendTemplate',
				...sender,
				templateId: facts.templates[0],
				phoneNumber: facts.phones[0],
			},
		},
		{
			name: 'broadcast/sendOverChatHistory',
			path: 'rt/send_broadcast',
			broadcast: true,
			parameters: {
				resource: 'broadcast',
				operation: 'sendOverChatHistory',
				...sender,
				payload: '{"text": "We are back"}',
			},
		},
		{
			name: 'chat/get',
			path: 'chat',
			parameters: {
				resource: 'chat',
				operation: 'get',
				chatId: String(facts.chatIds[0]),
				output: 'raw',
			},
		},
		{
			name: 'chat/getMany',
			path: 'chats',
			parameters: {
				resource: 'chat',
				operation: 'getMany',
				since: 'cursor',
				sinceCursor: '0',
				returnAll: true,
			},
		},
		{
			name: 'department/getMany',
			path: 'departments',
			parameters: { resource: 'department', operation: 'getMany', returnAll: true },
		},
		{
			name: 'tariff/getMany',
			path: 'partner/tariffs',
			parameters: { resource: 'tariff', operation: 'getMany', returnAll: true },
		},
		{
			name: 'statistics/getUsage',
			path: 'stats',
			parameters: {
				resource: 'statistics',
				operation: 'getUsage',
				dateMode: 'single',
				date: yesterday,
			},
		},
		{
			name: 'statistics/getOperatorStats',
			path: 'stats',
			parameters: {
				resource: 'statistics',
				operation: 'getOperatorStats',
				dateMode: 'single',
				date: yesterday,
			},
		},
		{
			name: 'trigger',
			path: 'chats',
			trigger: true,
			parameters: { startFrom: 'beginning', emit: 'everyChange', output: 'raw' },
		},
	];
}

/** The expected error of a fault on an operation; undefined when the operation must succeed. */
export function expectedMessage(
	operation: MatrixOperation,
	fault: MatrixFault,
): RegExp | undefined {
	if (fault.chatsOnly && operation.path !== 'chats') return undefined;
	// Spec 4.7 does not show the reply to an unknown id, so any readable reply without a chat means "not found".
	if (operation.path === 'chat' && fault.message?.source === 'unexpected shape')
		return /Chat "[^"]+" not found/;
	return fault.message;
}

/** Every kind of the sandbox is in the matrix (a new kind must be added here). */
export const uncoveredFaultKinds = () =>
	FAULT_KINDS.filter((kind) => !MATRIX_FAULTS.some((fault) => fault.spec.kind === kind));
