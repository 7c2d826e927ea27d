// Shared pieces of the transport and credential tests: a context on n8n's real request stack, local servers, secret checks.
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import * as n8nWorkflow from 'n8n-workflow';
import type { IHttpRequestOptions, IN8nHttpFullResponse, INodeTypeDescription } from 'n8n-workflow';

import { createExecuteContext, TEST_PASSWORD, testCredentials } from '../../harness/contexts';
import type { SvcCredentials } from '../../../nodes/SvcChat/transport/request';

import { BASE_URL, HOST } from '../../harness/fixtures';

export { HOST };
export const ORIGIN = BASE_URL;
export const EMAIL = testCredentials(HOST).email;
/** The value n8n puts after "Basic " in the Authorization header for the test credentials. */
export const BASIC_VALUE = Buffer.from(`${EMAIL}:${TEST_PASSWORD}`).toString('base64');

// A node that declares no parameters: the transport reads none, and the real nodes' descriptions may change freely.
const transportTestDescription = {
	displayName: 'Transport Test',
	name: 'transportTest',
	group: ['transform'],
	version: 1,
	description: 'Runs the Svc transport in tests',
	defaults: { name: 'Transport Test' },
	inputs: ['main'],
	outputs: ['main'],
	properties: [],
} as unknown as INodeTypeDescription;

/** An IExecuteFunctions whose httpRequestWithAuthentication is n8n-core's real axios stack with Basic auth. */
export function transportContext(credentials: SvcCredentials = testCredentials(HOST)) {
	return createExecuteContext({
		description: transportTestDescription,
		parameters: {},
		credentials,
	});
}

/** The transport context with a fake server in place of n8n's request helper: `send` answers every request. */
export function contextSending(
	send: (request: IHttpRequestOptions) => Promise<IN8nHttpFullResponse>,
	credentials: SvcCredentials = testCredentials(HOST),
) {
	const context = transportContext(credentials);
	jest
		.mocked(context.helpers.httpRequestWithAuthentication)
		.mockImplementation(async (_type, request) => await send(request));
	return context;
}

/** The error a promise rejects with; fails the test if it resolves. */
export async function rejectionOf(promise: Promise<unknown>): Promise<n8nWorkflow.NodeApiError> {
	try {
		await promise;
	} catch (error) {
		return error as n8nWorkflow.NodeApiError;
	}
	throw new Error('Expected the request to fail, but it succeeded');
}

export interface LocalServer {
	port: number;
	/** host:port, as typed in the credentials. */
	hostPort: string;
	close(): Promise<void>;
}

/** Starts a server on 127.0.0.1 with a port chosen by the system. */
export async function listenLocally(server: http.Server | https.Server): Promise<LocalServer> {
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		port,
		hostPort: `127.0.0.1:${port}`,
		close: async () => {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}

/** A port on 127.0.0.1 that nothing listens on: connecting to it is refused. */
export async function closedPort(): Promise<number> {
	const server = await listenLocally(http.createServer());
	await server.close();
	return server.port;
}

/** Every view of an error that n8n shows, logs or stores. */
export function errorViews(error: unknown): Record<string, string> {
	const e = error as n8nWorkflow.NodeApiError & { errorResponse?: unknown; messages?: string[] };
	return {
		message: String(e.message),
		description: String(e.description),
		json: JSON.stringify(e),
		context: JSON.stringify(e.context),
		cause: `${JSON.stringify(e.cause ?? null)} ${inspect(e.cause, { depth: 10 })}`,
		errorResponse: JSON.stringify(e.errorResponse ?? null),
		messages: JSON.stringify(e.messages ?? []),
		inspected: inspect(e, { depth: 10 }),
	};
}

// A piece of a secret this long is a leak too (an excerpt cut through a secret would show only its start).
const LEAK_FRAGMENT_LENGTH = 10;

/** Lists where any of the secrets, or any piece of one, shows up in the views; an empty list means nothing leaked. */
export function leaksOf(views: Record<string, string>, secrets: string[]): string[] {
	const fragments = secrets.flatMap((secret) =>
		Array.from({ length: Math.max(1, secret.length - LEAK_FRAGMENT_LENGTH + 1) }, (_, start) =>
			secret.slice(start, start + LEAK_FRAGMENT_LENGTH),
		),
	);
	return Object.entries(views).flatMap(([where, text]) =>
		[...new Set(fragments)]
			.filter((fragment) => text.includes(fragment))
			.map((fragment) => `${where} contains "${fragment}"`),
	);
}
