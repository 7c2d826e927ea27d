// A raw HTTP(S) client for the sandbox tests: exact status, headers and body bytes, over loopback only.
import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';

import type { Sandbox } from '../../sandbox';

export interface RawReply {
	status: number;
	headers: IncomingHttpHeaders;
	text: string;
	/** The body parsed as JSON, or undefined when it is not JSON. */
	json: unknown;
}

export interface CallOptions {
	/** A string is sent as is; anything else as JSON. */
	body?: unknown;
	/** Default: the sandbox admin. null: no Authorization header. A string: the header as given. */
	auth?: { email: string; password: string } | string | null;
	query?: Record<string, string>;
	timeoutMs?: number;
	/** https: trust this certificate (PEM); without it the self-signed certificate is refused. */
	ca?: string;
	/** Extra request headers. */
	headers?: Record<string, string>;
}

export function basic(email: string, password: string): string {
	return `Basic ${Buffer.from(`${email}:${password}`).toString('base64')}`;
}

export function call(
	sandbox: Pick<Sandbox, 'url' | 'admin'>,
	method: string,
	path: string,
	options: CallOptions = {},
): Promise<RawReply> {
	const url = new URL(path, sandbox.url);
	for (const [key, value] of Object.entries(options.query ?? {})) url.searchParams.set(key, value);
	const auth = options.auth === undefined ? sandbox.admin : options.auth;
	const headers: Record<string, string> = { ...options.headers };
	if (typeof auth === 'string') headers.Authorization = auth;
	else if (auth) headers.Authorization = basic(auth.email, auth.password);
	let payload: string | undefined;
	if (options.body !== undefined) {
		payload = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
		headers['Content-Type'] ??= 'application/json';
		headers['Content-Length'] = String(Buffer.byteLength(payload));
	}
	const transport = url.protocol === 'https:' ? https : http;
	return new Promise((resolve, reject) => {
		const request = transport.request(
			url,
			{ method, headers, agent: false, ca: options.ca, timeout: options.timeoutMs },
			(response) => {
				const chunks: Buffer[] = [];
				response.on('data', (chunk: Buffer) => chunks.push(chunk));
				response.on('error', reject);
				response.on('end', () => {
					const text = Buffer.concat(chunks).toString('utf8');
					let json: unknown;
					try {
						json = JSON.parse(text);
					} catch {
						json = undefined;
					}
					resolve({ status: response.statusCode ?? 0, headers: response.headers, text, json });
				});
			},
		);
		request.on('timeout', () =>
			request.destroy(Object.assign(new Error('client timeout'), { code: 'CLIENT_TIMEOUT' })),
		);
		request.on('error', reject);
		request.end(payload);
	});
}

/** POST a real-time command (spec 4.1–4.3). */
export function rt(
	sandbox: Pick<Sandbox, 'url' | 'admin'>,
	command: string,
	body: unknown,
	options: CallOptions = {},
): Promise<RawReply> {
	return call(sandbox, 'POST', `/api/v2/rt/${command}`, { ...options, body });
}

/** GET a stored-data path (spec 4.4–4.9). */
export function get(
	sandbox: Pick<Sandbox, 'url' | 'admin'>,
	path: string,
	query: Record<string, string> = {},
	options: CallOptions = {},
): Promise<RawReply> {
	return call(sandbox, 'GET', `/api/v2/${path}`, { ...options, query });
}

/** A clock the test moves by hand. */
export function manualClock(startIso: string) {
	let current = Date.parse(startIso);
	return {
		now: () => new Date(current),
		set: (iso: string) => {
			current = Date.parse(iso);
		},
		advance: (ms: number) => {
			current += ms;
		},
	};
}
