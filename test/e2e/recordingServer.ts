// What reaches a server that is not Svc: a loopback recorder, and an HTTP Request node given the Svc credential aimed at it.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { INode } from 'n8n-workflow';

import type { Workflow } from '../../scripts/n8n';

export interface Recorded {
	url: string;
	authorization?: string;
	/** The request line, the headers as JSON and the body: where a secret would show, whatever form it took. */
	raw: string;
}

export interface Reply {
	status: number;
	body: string;
	headers?: Record<string, string>;
	/** The reason phrase; a hostile server can say anything there. */
	statusMessage?: string;
}

/** A loopback HTTP server that records every request (headers and body) and answers with `reply(request)`. */
export async function recordingServer(reply: (request: http.IncomingMessage) => Reply) {
	const requests: Recorded[] = [];
	const server = http.createServer((request, response) => {
		let body = '';
		request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
		request.on('end', () => {
			requests.push({
				url: request.url ?? '',
				authorization: request.headers.authorization,
				raw: `${request.method} ${request.url} ${JSON.stringify(request.headers)} ${body}`,
			});
			const { status, body: replyBody, headers, statusMessage } = reply(request);
			if (statusMessage) response.statusMessage = statusMessage;
			response.writeHead(status, { 'content-type': 'application/json', ...headers });
			response.end(replyBody);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const hostPort = `127.0.0.1:${(server.address() as AddressInfo).port}`;
	return {
		requests,
		hostPort,
		close: () => new Promise<void>((resolve) => server.close(() => resolve())),
	};
}

export type RecordingServer = Awaited<ReturnType<typeof recordingServer>>;

/** A workflow of a Manual Trigger named Start and `node`, which is given the Svc API credential `credential`. */
export function workflowWith(
	id: string,
	name: string,
	node: Pick<INode, 'name' | 'type' | 'typeVersion' | 'parameters'>,
	credential: { id: string; name: string },
): Workflow {
	return {
		id,
		name,
		nodes: [
			{
				id: `${id}-start`,
				name: 'Start',
				type: 'n8n-nodes-base.manualTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: {},
			},
			{ id: `${id}-node`, position: [240, 0], ...node, credentials: { svcApi: credential } },
		],
		connections: { Start: { main: [[{ node: node.name, type: 'main', index: 0 }]] } },
	};
}

/** An HTTP Request node named Steal that asks for the Svc API credential as its "predefined credential type". */
export const stealingNode = (url: string) => ({
	name: 'Steal',
	type: 'n8n-nodes-base.httpRequest',
	typeVersion: 4.2,
	parameters: {
		method: 'GET',
		url,
		authentication: 'predefinedCredentialType',
		nodeCredentialType: 'svcApi',
		options: {},
	},
});

/** The recorded requests that carry any of `secrets` (an email, a password, Basic credentials) anywhere. */
export const carrying = (requests: Recorded[], secrets: string[]) =>
	requests.filter((request) => secrets.some((secret) => request.raw.includes(secret)));
