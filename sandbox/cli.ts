// `npm run sandbox -- --chats 50 --seed 7 --port 8787 --https --latency-ms 30 --last-ts-as-string`: starts the sandbox for people.
import { parseArgs } from 'node:util';

import { startSandbox } from './index';

const USAGE = `Usage: npm run sandbox -- [options]

  --chats N             seeded chats (default 10)
  --seed N              seed of the generated data (default 1)
  --port N              port on 127.0.0.1 (default 0: any free port)
  --https               HTTPS with a self-signed certificate (turn on "Ignore SSL Issues" in n8n)
  --latency-ms N        one-way network delay: every byte each way waits N ms, a new connection one round trip more
  --reply-delay-ms N    a slow server: every API reply is sent N ms after its login was checked
  --last-ts-as-string   /chats answers last_ts as a string instead of a number
  --lockout-threshold N failed logins before 403 (default 5)
  --regular-visitor     one visitor's chats spread over the 30 days (Rosa Regular, rosa.regular@mail.example)
  --help                this text`;

function integer(name: string, text: string | undefined, fallback: number): number {
	if (text === undefined) return fallback;
	const value = Number(text);
	if (!Number.isInteger(value) || value < 0)
		throw new Error(`--${name} needs a non-negative integer, got "${text}"`);
	return value;
}

async function main(): Promise<void> {
	const { values } = parseArgs({
		options: {
			chats: { type: 'string' },
			seed: { type: 'string' },
			port: { type: 'string' },
			https: { type: 'boolean', default: false },
			'latency-ms': { type: 'string' },
			'reply-delay-ms': { type: 'string' },
			'last-ts-as-string': { type: 'boolean', default: false },
			'lockout-threshold': { type: 'string' },
			'regular-visitor': { type: 'boolean', default: false },
			help: { type: 'boolean', default: false },
		},
		strict: true,
	});
	if (values.help) {
		console.log(USAGE);
		return;
	}
	const sandbox = await startSandbox({
		chats: integer('chats', values.chats, 10),
		seed: integer('seed', values.seed, 1),
		port: integer('port', values.port, 0),
		https: values.https,
		latencyMs: integer('latency-ms', values['latency-ms'], 0),
		replyDelayMs: integer('reply-delay-ms', values['reply-delay-ms'], 0),
		lastTsAsString: values['last-ts-as-string'],
		regularVisitor: values['regular-visitor'],
		lockoutThreshold:
			values['lockout-threshold'] === undefined
				? undefined
				: Math.max(1, integer('lockout-threshold', values['lockout-threshold'], 5)),
	});
	const latency = sandbox.latencyMs ? `, ${sandbox.latencyMs} ms each way` : '';
	console.log(`Svc sandbox listening on ${sandbox.url} (${sandbox.control.chatCount()} chats${latency})

  In n8n, create "Svc API" credentials with:
    Host:      ${sandbox.host}
    E-mail:    ${sandbox.admin.email}
    Password:  ${sandbox.admin.password}${values.https ? '\n    Ignore SSL Issues: on (the certificate is self-signed)' : ''}

  API:       ${sandbox.url}/api/v2/…
  Control:   ${sandbox.url}/__control/  (tests only, no auth; see sandbox/README.md)

Press Ctrl-C to stop.`);

	let stopping = false;
	const stop = (signal: string) => {
		if (stopping) return;
		stopping = true;
		console.log(`\n${signal}: stopping the sandbox…`);
		sandbox.stop().then(
			() => process.exit(0),
			(error: unknown) => {
				console.error(error);
				process.exit(1);
			},
		);
	};
	process.on('SIGINT', () => stop('SIGINT'));
	process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: unknown) => {
	console.error(error instanceof Error ? error.message : error);
	console.error(`\n${USAGE}`);
	process.exit(1);
});
