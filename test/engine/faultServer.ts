// A local server that fails the way networks do (closes, resets, stalls, presents an untrusted certificate) and counts requests.
import net from 'node:net';
import tls from 'node:tls';
import type { AddressInfo } from 'node:net';

/**
 * What the server does with each request once it has read it whole:
 * close: ends the connection without answering; reset: resets it; stall: never answers;
 * answer: answers as the API would; resetFirst: resets each client's first request (clients are told apart by their
 * Authorization header), answers its later ones.
 */
export type FaultBehaviour = 'close' | 'reset' | 'stall' | 'answer' | 'resetFirst';

export interface SeenRequest {
	method: string;
	path: string;
	body: string;
	authorization?: string;
}

export interface FaultServer {
	/** As typed in the credentials: http://127.0.0.1:port, or 127.0.0.1:port over TLS. */
	host: string;
	/** Every request read in full, in order. */
	requests: SeenRequest[];
	stop(): Promise<void>;
}

const DEPARTMENTS = '[{"id":1,"name":"Sales","order":1}]';
const COMMAND_DONE = '{"result":"ok"}';

/** Reads requests off a socket as they arrive whole (head and Content-Length body), one after another. */
function readRequests(socket: net.Socket, onRequest: (request: SeenRequest) => void): void {
	let buffered = Buffer.alloc(0);
	socket.on('data', (chunk: Buffer) => {
		buffered = Buffer.concat([buffered, chunk]);
		for (;;) {
			const headEnd = buffered.indexOf('\r\n\r\n');
			if (headEnd < 0) return;
			const head = buffered.subarray(0, headEnd).toString('latin1');
			const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
			if (buffered.length < headEnd + 4 + length) return;
			const [method, path] = head.split(' ');
			const authorization = /\r\nauthorization:\s*([^\r]*)/i.exec(head)?.[1];
			const body = buffered.subarray(headEnd + 4, headEnd + 4 + length).toString('utf8');
			buffered = buffered.subarray(headEnd + 4 + length);
			onRequest({ method, path, body, authorization });
		}
	});
	socket.on('error', () => {});
}

function answer(socket: net.Socket, request: SeenRequest): void {
	const body = request.method === 'GET' ? DEPARTMENTS : COMMAND_DONE;
	socket.end(
		`HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
	);
}

/**
 * Starts a fault server on 127.0.0.1, on a port the system chooses. With `certificate`, it speaks TLS with that
 * certificate (one no client trusts unless told to ignore SSL issues).
 */
export async function startFaultServer(
	behaviour: FaultBehaviour,
	certificate?: { key: string; cert: string },
): Promise<FaultServer> {
	const requests: SeenRequest[] = [];
	const sockets = new Set<net.Socket>();
	const serve = (socket: net.Socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
		readRequests(socket, (request) => {
			const firstOfClient = !requests.some((seen) => seen.authorization === request.authorization);
			requests.push(request);
			const act = behaviour === 'resetFirst' ? (firstOfClient ? 'reset' : 'answer') : behaviour;
			if (act === 'close') socket.end();
			else if (act === 'reset') socket.resetAndDestroy();
			else if (act === 'answer') answer(socket, request);
		});
	};
	const server = certificate
		? tls.createServer({ key: certificate.key, cert: certificate.cert }, serve)
		: net.createServer(serve);
	// A client that gives up on the certificate breaks the handshake; that is the point, not a server fault.
	server.on('tlsClientError', () => {});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		host: certificate ? `127.0.0.1:${port}` : `http://127.0.0.1:${port}`,
		requests,
		stop: async () => {
			for (const socket of sockets) socket.destroy();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}

/** A self-signed certificate for a name other than the one the client connects to. */
export async function mismatchedCertificate(): Promise<{ key: string; cert: string }> {
	const selfsigned = await import('selfsigned');
	const pems = await selfsigned.generate([{ name: 'commonName', value: 'svc.other.example' }], {
		keyType: 'ec',
		algorithm: 'sha256',
		notAfterDate: new Date(Date.now() + 86_400_000),
		extensions: [{ name: 'subjectAltName', altNames: [{ type: 2, value: 'svc.other.example' }] }],
	});
	return { key: pems.private, cert: pems.cert };
}
