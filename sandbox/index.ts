// The sandbox: a spec-faithful local Svc server (spec svc-api-v2) for tests, the demo and the benchmarks.
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';

import { createControl, type SandboxControl } from './control';
import { FaultInjector } from './faults';
import { startLatencyRelay } from './latency';
import { createRequestHandler } from './server';
import { DEFAULT_SETTINGS, SandboxState, validateSettings, type SandboxSettings } from './state';

export type { FaultSpec } from './faults';
export type { BroadcastRecord, RequestLogEntry } from './state';
export { FAULT_KINDS } from './faults';
export { OPERATOR_PASSWORD, REGISTERED_PHONES } from './data';

export interface SandboxOptions {
	/** Default 1; the same seed gives the same data. */
	seed?: number;
	/** Default 10; 100_000 generate in well under a second (chats are rebuilt from the seed when read). */
	chats?: number;
	/** Default 0 (any free port); the server always binds 127.0.0.1 and nothing else. */
	port?: number;
	/** HTTPS with a self-signed certificate generated at start (for the credentials' "Ignore SSL Issues"). */
	https?: boolean;
	/** Default admin@svc.test / sandbox-password. */
	admin?: { email: string; password: string };
	/** /chats last_ts as a string (default false: a number); the spec shows both. */
	lastTsAsString?: boolean;
	/** Failed logins per e-mail within lockoutWindowMs after which every attempt gets 403; default 5. */
	lockoutThreshold?: number;
	/** Default 60_000. */
	lockoutWindowMs?: number;
	/** Injectable clock (allowed online time, lockouts, new change timestamps, the 30 days of seeded history). */
	now?: () => Date;
	/**
	 * Default 0. A one-way network delay in ms: every byte each way arrives this much later, and a new connection waits
	 * one more round trip before its first byte, as TCP's handshake makes it (see latency.ts).
	 */
	latencyMs?: number;
	/** Default 0. Every API reply waits this many ms after its login was checked: a slow server, without TLS or relay. */
	replyDelayMs?: number;
	/** One visitor's chats spread over the 30 days (REGULAR_VISITOR in data.ts), for "a visitor's latest chats". */
	regularVisitor?: boolean;
	/** Any other starting settings (see README), e.g. `{ equalTimestamps: true }`; kept across control resets. */
	settings?: Partial<SandboxSettings>;
}

export interface Sandbox {
	/** 'http://127.0.0.1:PORT' or 'https://127.0.0.1:PORT'. */
	url: string;
	/**
	 * What to type as "Host" in the Svc API credentials: '127.0.0.1:PORT' with https (the credentials default to
	 * https://), 'http://127.0.0.1:PORT' without (plain http is accepted for loopback hosts only).
	 */
	host: string;
	port: number;
	admin: { email: string; password: string };
	/** In-process control, the same operations as the HTTP routes under /__control/. */
	control: SandboxControl;
	/** The self-signed certificate (PEM) in https mode, so a client can trust exactly this server. */
	certificate?: string;
	/** The one-way delay the relay adds (0: none). */
	latencyMs: number;
	/** Closes the server and all its sockets. */
	stop(): Promise<void>;
}

export const DEFAULT_ADMIN = { email: 'admin@svc.test', password: 'sandbox-password' };

async function selfSignedCertificate(): Promise<{ key: string; cert: string }> {
	const selfsigned = await import('selfsigned');
	const pems = await selfsigned.generate([{ name: 'commonName', value: 'svc-sandbox.localhost' }], {
		keyType: 'ec',
		algorithm: 'sha256',
		notAfterDate: new Date(Date.now() + 30 * 86_400_000),
		extensions: [
			{ name: 'basicConstraints', cA: false },
			{ name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
			{ name: 'extKeyUsage', serverAuth: true },
			{
				name: 'subjectAltName',
				altNames: [
					{ type: 7, ip: '127.0.0.1' },
					{ type: 2, value: 'localhost' },
				],
			},
		],
	});
	return { key: pems.private, cert: pems.cert };
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
	const chats = options.chats ?? 10;
	if (!Number.isInteger(chats) || chats < 0)
		throw new Error('chats must be a non-negative integer');
	const latencyMs = options.latencyMs ?? 0;
	if (!Number.isInteger(latencyMs) || latencyMs < 0)
		throw new Error('latencyMs must be a non-negative integer');
	const admin = { ...(options.admin ?? DEFAULT_ADMIN) };
	const seed = options.seed ?? 1;
	const state = new SandboxState({
		seed,
		chats,
		admin,
		regularVisitor: options.regularVisitor,
		now: options.now ?? (() => new Date()),
		settings: {
			...DEFAULT_SETTINGS,
			lastTsAsString: options.lastTsAsString ?? DEFAULT_SETTINGS.lastTsAsString,
			lockoutThreshold: options.lockoutThreshold ?? DEFAULT_SETTINGS.lockoutThreshold,
			lockoutWindowMs: options.lockoutWindowMs ?? DEFAULT_SETTINGS.lockoutWindowMs,
			...validateSettings({ replyDelayMs: options.replyDelayMs ?? 0, ...options.settings }),
		},
	});
	const faults = new FaultInjector(seed);
	const timers = new Set<NodeJS.Timeout>();
	const control = createControl(state, faults, timers);
	const handler = createRequestHandler({ state, faults, control, timers });

	const tls = options.https ? await selfSignedCertificate() : undefined;
	const server = tls
		? https.createServer({ key: tls.key, cert: tls.cert }, handler)
		: http.createServer(handler);
	const sockets = new Set<Socket>();
	server.on(tls ? 'secureConnection' : 'connection', (socket: Socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	});
	// Some clients write a half request and vanish; a broken client must never crash the sandbox.
	server.on('clientError', (_error, socket) => socket.destroy());

	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		// With latency the server sits behind the relay, which takes the chosen port.
		server.listen(latencyMs ? 0 : (options.port ?? 0), '127.0.0.1', () => {
			server.off('error', reject);
			resolve();
		});
	});
	// A relay that cannot listen (its port is taken) must not leave the server behind it open.
	const relay = latencyMs
		? await startLatencyRelay(
				(server.address() as AddressInfo).port,
				latencyMs,
				options.port,
			).catch((error: unknown) => {
				server.close();
				throw error;
			})
		: undefined;
	const port = relay?.port ?? (server.address() as AddressInfo).port;
	const scheme = tls ? 'https' : 'http';
	let stopped: Promise<void> | undefined;

	return {
		url: `${scheme}://127.0.0.1:${port}`,
		host: tls ? `127.0.0.1:${port}` : `http://127.0.0.1:${port}`,
		port,
		admin,
		control,
		certificate: tls?.cert,
		latencyMs,
		stop: () => {
			stopped ??= new Promise<void>((resolve) => {
				for (const timer of timers) clearTimeout(timer); // clears intervals too
				timers.clear();
				server.close(() => resolve());
				server.closeAllConnections();
				for (const socket of sockets) socket.destroy();
			}).then(() => relay?.stop());
			return stopped;
		},
	};
}
