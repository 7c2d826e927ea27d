// A hostile server for the secrets test: a proxy in front of the sandbox that echoes the Authorization header it received
// (and the password inside it) into every faulted or refused reply, where an error message could pick it up.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

import type { Sandbox } from '../../sandbox';

export interface EchoProxy {
	/** What to type as Host in the credentials. */
	host: string;
	/** Replies that carried an echo of the secrets; the test checks that the secrets did reach the node. */
	echoed(): number;
	stop(): Promise<void>;
}

/** The secrets a Basic Authorization header carries: the header value and the password inside it. */
function secretsOf(authorization: string | undefined): string[] {
	if (!authorization?.startsWith('Basic ')) return [];
	const decoded = Buffer.from(authorization.slice(6), 'base64').toString('utf8');
	return [authorization, decoded.slice(decoded.indexOf(':') + 1)];
}

/** The reply with the secrets put in: in JSON as error members and extra data, in anything else as text. */
function withEcho(body: Buffer, secrets: string[]): Buffer {
	const [authorization, password] = secrets;
	// At both ends of a text: an excerpt shows the start, a careless message may show the end.
	const echo = Buffer.from(`Authorization: ${authorization} password=${password}\n`);
	// The 20 MB "huge" reply is echoed into as text: parsing it here would only slow the test down.
	if (body.length > 1_000_000) return Buffer.concat([echo, body, echo]);
	let reply: unknown;
	try {
		reply = JSON.parse(body.toString('utf8'));
	} catch {
		return Buffer.concat([echo, body, echo]);
	}
	if (Array.isArray(reply))
		return Buffer.from(JSON.stringify([...reply, authorization, { password }]));
	if (typeof reply === 'object' && reply !== null) {
		// The echo first, so that an excerpt of the reply starts with it; then the error members a message may quote.
		const echoed: Record<string, unknown> = {
			echo: { authorization, password },
			...reply,
			field: authorization,
			argument: password,
			field_name: password,
			field_value: authorization,
		};
		if (typeof echoed.error === 'string') echoed.error = `${echoed.error}: ${password}`;
		return Buffer.from(JSON.stringify(echoed));
	}
	return Buffer.from(JSON.stringify({ error: password, echo: reply }));
}

/**
 * Forwards every request to the sandbox. A reply the sandbox marked as faulted, any reply that is not 200, and any
 * error reply get the echo; a healthy reply passes untouched (its data is the user's, and may be shown).
 */
export async function startEchoProxy(sandbox: Sandbox): Promise<EchoProxy> {
	const target = new URL(sandbox.url);
	let echoed = 0;
	const server = http.createServer((request, response) => {
		const upstream = http.request(
			{
				host: target.hostname,
				port: target.port,
				method: request.method,
				path: request.url,
				headers: request.headers,
			},
			(reply) => {
				const chunks: Buffer[] = [];
				reply.on('data', (chunk: Buffer) => chunks.push(chunk));
				reply.on('error', () => response.destroy());
				reply.on('end', () => {
					let body = Buffer.concat(chunks);
					// A slow reply is a healthy one; every other fault is a reply an error will quote.
					const fault = sandbox.control.requestLog().at(-1)?.fault;
					const faulted = fault !== undefined && fault !== 'delay';
					const refused =
						reply.statusCode !== 200 || /"error"\s*:/.test(body.subarray(0, 200).toString('utf8'));
					const secrets = secretsOf(request.headers.authorization);
					if ((faulted || refused) && secrets.length) {
						body = withEcho(body, secrets);
						echoed++;
					}
					const headers = { ...reply.headers, 'content-length': String(body.length) };
					response.writeHead(reply.statusCode ?? 502, headers);
					response.end(body);
				});
			},
		);
		// The sandbox's "reset" fault destroys its socket: the client sees the same.
		upstream.on('error', () => response.destroy());
		request.pipe(upstream);
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		host: `http://127.0.0.1:${port}`,
		echoed: () => echoed,
		stop: async () => {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}
