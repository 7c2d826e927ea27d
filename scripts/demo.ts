// `npm start`: the sandbox and a real n8n with the package, a ready credential and the examples; `-- --headless` runs them once.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

import { startSandbox, type Sandbox } from '../sandbox';
import {
	createChatsTable,
	EXAMPLE_IDS,
	PUBLISHED_EXAMPLES,
	RATED_CHATS,
	readExamples,
	notMcpExample,
	runExamples,
	sandboxCredential,
	SANDBOX_CREDENTIAL,
	WEBHOOK_CREDENTIAL,
	webhookCredential,
	type ExampleStep,
} from './examples';
import { connectMcp, publishMcpExample } from './mcp';
import { N8n } from './n8n';
import { buildPackageInRepo, ensureRuntime, isBuildCurrent, REPO_ROOT } from './runtime';
import { freePort, killAllNow, seconds, type Log } from './processes';

const USAGE = `Usage: npm start [-- options]

  (no option)     build, start the Svc sandbox and n8n on http://127.0.0.1:5678 with the examples; Ctrl-C stops all
  --headless      run every example workflow once against the sandbox, print the results, exit (1 on failure)
  --port N        n8n's port (default 5678)
  --fresh         start from an empty n8n (forget the demo's earlier workflows and executions)
  --help          this text`;

const OWNER = {
	email: 'demo@example.com',
	password: 'Svc-demo-2026',
	firstName: 'Demo',
	lastName: 'User',
};
const DEMO_FOLDER = process.env.SVC_DEMO_FOLDER ?? path.join(REPO_ROOT, '.cache/demo-n8n');
const NEW_CHAT_EVERY_MS = 2 * 60_000;

const started = Date.now();
const elapsed = () => seconds(Date.now() - started);
const log: Log = (line) => console.log(`  · ${line}`);

/** The runtime and the package, built if its code changed, then the sandbox: 30 chats over the past 30 days, as on every start. */
async function prepare() {
	const runtime = ensureRuntime(log);
	const changed = !isBuildCurrent();
	if (changed) buildPackageInRepo();
	log(`package ${changed ? 'built (npm run build)' : 'not built: dist/ is newer'} at ${elapsed()}`);
	const sandbox = await startSandbox({ seed: 1, chats: 30, regularVisitor: true });
	log(`Svc sandbox on ${sandbox.url} with ${sandbox.control.chatCount()} chats`);
	return { runtime, sandbox };
}

const compact = (value: unknown, width = 150) => {
	const text = JSON.stringify(value);
	return text.length > width ? `${text.slice(0, width - 1)}…` : text;
};

function printStep({ title, workflowId, how, outputs, response }: ExampleStep): void {
	console.log(`\n▶ ${title}\n  workflow ${workflowId}, run by ${how}`);
	for (const [node, items] of Object.entries(outputs)) {
		console.log(`  ${node}: ${items.length} item${items.length === 1 ? '' : 's'}`);
		for (const item of items.slice(0, 3)) console.log(`    ${compact(item)}`);
		if (items.length > 3) console.log(`    … ${items.length - 3} more`);
	}
	if (response) console.log(`  HTTP answer ${response.status}: ${compact(response.body)}`);
}

async function headless(): Promise<void> {
	console.log('n8n-nodes-svc: running every example once inside a real n8n, against the sandbox\n');
	const { runtime, sandbox } = await prepare();
	const n8n = await N8n.create({ runtime, log });
	try {
		n8n.installPackage(REPO_ROOT);
		await n8n.importCredentials([sandboxCredential(sandbox)]);
		const steps = await runExamples(n8n, sandbox, { log });
		steps.forEach(printStep);
		// Example 12 as an AI assistant sees it: its tools, listed once through the official MCP client.
		const token = randomUUID();
		const mcp = await connectMcp(await publishMcpExample(n8n, token), token);
		const names = (await mcp.listTools()).tools.map(({ name }) => name);
		await mcp.close();
		console.log(`\n▶ ${EXAMPLE_IDS.mcpServer}, listed by the MCP client: ${names.join(', ')}`);
		const broadcasts = sandbox.control.broadcasts();
		const recipients = broadcasts.flatMap((broadcast) => broadcast.data.entries as unknown[]);
		console.log(
			`\nThe sandbox recorded ${broadcasts.length} broadcast request(s), ${recipients.length} recipient(s).\n` +
				`\nNot run headless: ${EXAMPLE_IDS.aiAgent}, because it needs a chat model and its credential (an OpenAI-compatible server or Ollama); test/e2e/agent.test.ts runs it against a scripted model.\n` +
				`\nAll ${steps.length} runs succeeded in ${elapsed()}.`,
		);
	} finally {
		await n8n.dispose();
		await sandbox.stop();
	}
}

/** A secret kept in the demo's folder (0600), made once: a caller's config outlives a restart. */
function demoSecret(name: string): { file: string; secret: string } {
	const file = path.join(DEMO_FOLDER, name);
	if (!fs.existsSync(file)) fs.writeFileSync(file, randomUUID(), { mode: 0o600 });
	return { file, secret: fs.readFileSync(file, 'utf8').trim() };
}

function printWelcome(n8n: N8n, sandbox: Sandbox, hook: { file: string; secret: string }): void {
	const post = (url: string) => `curl -s ${url} -H 'content-type: application/json'`;
	const { name, header } = WEBHOOK_CREDENTIAL;
	const webhook = (route: string) =>
		`${post(`${n8n.baseUrl}/webhook/${route}`)} -H '${header}: ${hook.secret}'`;
	const control = (route: string) => `${sandbox.url}/__control/${route}`;
	const [operator] = sandbox.control.getOperators();
	console.log(`
──────────────────────────────────────────────────────────────────────────────
 n8n is ready (${elapsed()}):  ${n8n.baseUrl}

   Log in with   ${OWNER.email}  /  ${OWNER.password}

 Credential "${SANDBOX_CREDENTIAL.name}" (Svc API) points at the local Svc sandbox:
   host ${sandbox.host}, ${sandbox.admin.email} / ${sandbox.admin.password}
 A wrong password saved in it makes the published examples fail once, then pause the account
 (1, 2, 4 … 60 minutes): at most 2 wrong logins in its first minute, and it is never locked.
 Meanwhile the webhooks below answer 503 with the pause's end and Retry-After.
 See docs/reliability.md, "The login guard".

 The example workflows are on the Overview page. The webhooks in 2 and 3 below check the header
 ${header} (Header Auth credential "${name}", the secret kept in ${hook.file}):
 the curl lines send it; without it, or with another value, n8n answers 403. Try:

 1. "Svc: export finished chats…" is published: its trigger polled once at
    start. Open it → Executions to see one row per message of every finished chat.
 2. "Svc: CRM webhook…" is published. Send a campaign (sent again, it answers "skipped" per contact):
      ${webhook('svc-crm-broadcast')} \\
        -d '{"template_id":"welcome_v2","contacts":[{"phone":"+15550000001","name":"Ann"},{"phone":"+15550000002","name":"Ben"}]}'
    and see what the sandbox received:  curl -s ${control('broadcasts')}
 3. "Svc: pair logged-in website visitors…" is published. Log a visitor in:
      ${webhook('svc-visitor-login')} \\
        -d '{"customer_id":"customer-7","name":"Jane Doe","email":"jane@example.com"}'
    Stored pairings:  curl -s ${control('pairings')}
    Log the visitor out (the token the login answered):
      ${webhook('svc-visitor-logout')} -d '{"auth_token":"TOKEN"}'
    "Svc: a CRM contact's latest chat transcripts" is published. A contact's 3 latest chats:
      ${webhook('svc-contact-chats')} -d '{"email":"rosa.regular@mail.example"}'
 4. "Svc: daily operator statistics…" and "Svc: weekly first-response report…": open one and
    click "Execute workflow".
 5. "Svc: lunch break for online operators…": click "Execute workflow"; set "Wait until 14:00"
    to a few seconds first. Operator statuses: curl -s ${control('operators')}
 6. "Svc: tell the team when nobody is online…" is published and checks every minute. It writes its
    message only in business hours (Monday to Friday, 09:00 to 18:00 in the workflow's time zone),
    else ends in "Outside business hours": to see the other branch too, change the Timezone in its
    Workflow settings. That cannot work at a weekend: from Saturday 06:00 to Sunday 19:00 UTC no
    time zone is in business hours. Set everyone offline, then one operator back online:
      ${post(control('operators/cycle'))} -d '{"statuses":["offline"]}'
      ${post(control('operators/status'))} -d '{"id":${operator.id},"status":"online"}'
    and every operator back as they were at the start:
      ${post(control('operators/restore'))} -d '{}'
 7. A chat for the Svc Chat Trigger: add one (its answer gives the "id"), then a message, then close it:
      ${post(control('chats/add'))} -d '{"n":1}'
      ${post(control('chats/update'))} -d '{"id":"CHAT_ID"}'
      ${post(control('chats/close'))} -d '{"id":"CHAT_ID"}'
    A trigger on "Every Change" emits each change at its next poll; "Svc: export finished chats…"
    exports the chat once it is closed, at its next poll (every hour at :05). The ids of the 10 chats
    changed last, the latest first:  curl -s ${control('chats/recent')}
 8. "Svc: tell the team lead about a bad rating…" and "Svc: e-mail a follow-up to visitors nobody
    answered…" are published and check every minute. Rate a chat 1 (not 3 to 5), add a missed chat:
      ${post(control('chats/rate'))} -d '{"id":${RATED_CHATS.bad},"rate":1}'
      ${post(control('chats/missed'))} -d '{"contact":"fields"}'
    "contact": "fields" puts the visitor's name, e-mail and phone in the visitor's fields,
    "message" only in a chat message, "none" nowhere.
 9. "Svc: tell the team when a visitor waits…" is published. A visitor writes (its answer gives the
    "id"), writes again in that chat, and an operator answers:
      ${post(control('chats/wait'))} -d '{}'
      ${post(control('chats/wait'))} -d '{"id":"CHAT_ID"}'
      ${post(control('chats/answer'))} -d '{"id":"CHAT_ID"}'

 Or add a "Svc Chat" node to a new workflow: the credential is ready.
 The sandbox gets a new chat every ${NEW_CHAT_EVERY_MS / 60_000} minutes and finishes the previous one.

 Ctrl-C stops n8n and the sandbox (so does SIGINT, SIGTERM or SIGHUP to npm).
──────────────────────────────────────────────────────────────────────────────`);
}

async function interactive(port: number, fresh: boolean): Promise<void> {
	console.log('n8n-nodes-svc demo: the Svc sandbox and a real n8n with the package\n');
	await freePort(port).catch(({ message }: Error) => {
		const fix = `Stop what uses it (another n8n?), or choose another: npm start -- --port ${port + 1}`;
		throw new Error(`Port ${port} cannot be used (${message}). ${fix}`);
	});
	// n8n's own folder only: SVC_DEMO_FOLDER may name a folder that holds more.
	if (fresh) fs.rmSync(path.join(DEMO_FOLDER, '.n8n'), { recursive: true, force: true });
	const { runtime, sandbox } = await prepare();
	const zone = process.env.GENERIC_TIMEZONE ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
	const env = { TZ: zone ?? 'UTC', GENERIC_TIMEZONE: zone ?? 'UTC', N8N_LOG_LEVEL: 'warn' };
	const n8n = await N8n.create({ runtime, log, userFolder: DEMO_FOLDER, port, env });

	let stopRequestedAt = 0;
	const stop = (reason: string, exitCode: number) => {
		if (stopRequestedAt) {
			// Ctrl-C comes twice: the terminal signals npm too, which relays it. A later one means "now".
			if (Date.now() - stopRequestedAt < 2_000) return;
			killAllNow();
			process.exit(130);
		}
		stopRequestedAt = Date.now();
		console.log(`\n${reason}: stopping n8n and the sandbox…`);
		void (async () => {
			await n8n.stop();
			await sandbox.stop();
			console.log('Stopped.');
			process.exit(exitCode);
		})();
	};
	for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const)
		process.on(signal, () => stop(signal === 'SIGINT' ? 'Ctrl-C (SIGINT)' : signal, 0));
	// npm passes SIGINT and SIGTERM on to this script (package.json execs it: no shell between), but a SIGHUP sent to npm
	// alone kills it and nothing else: a new parent process means npm is gone.
	const parent = process.ppid;
	const orphaned = () => process.ppid !== parent && !stopRequestedAt && stop('npm ended', 0);
	setInterval(orphaned, 500).unref();

	// A failure from here on ends in main(), which ends every child process. The examples come back as shipped, static
	// data too: as the sandbox starts afresh, so does the trigger's cursor. (Importing starts n8n.)
	n8n.installPackage(REPO_ROOT);
	n8n.setOwner(OWNER);
	const hook = demoSecret('webhook-secret.txt');
	await n8n.importCredentials([sandboxCredential(sandbox), webhookCredential(hook.secret)]);
	await n8n.importWorkflows(readExamples().filter(notMcpExample));
	await createChatsTable(n8n);
	const { nobodyOnline, badRating, missedChat, visitorWaiting, chatsTable } = EXAMPLE_IDS;
	const alerts = [nobodyOnline, badRating, missedChat, visitorWaiting, chatsTable];
	await n8n.publishWorkflows([...PUBLISHED_EXAMPLES, ...alerts]);
	// Keeps the demo data moving, so the trigger has something new to find.
	let previous: string | number | undefined;
	setInterval(() => {
		if (previous !== undefined) sandbox.control.closeChat(previous);
		previous = sandbox.control.addChats(1)[0]?.id;
	}, NEW_CHAT_EVERY_MS).unref();
	// The token stays in the demo's folder, never printed.
	const mcp = demoSecret('mcp-token.txt');
	const mcpUrl = await publishMcpExample(n8n, mcp.secret);
	console.log(
		`\n AI assistants (MCP): "Svc: support tools for AI assistants…" is published at\n   ${mcpUrl}\n` +
			`   (Streamable HTTP, Bearer token in ${mcp.file}; docs/ai.md has a Claude Desktop config)\n`,
	);
	printWelcome(n8n, sandbox, hook);

	const exitCode = await n8n.whenServerExits();
	if (!stopRequestedAt) {
		console.error(
			`\nn8n stopped on its own (exit ${exitCode}). Its last output:\n${n8n.serverOutput.slice(-4_000)}`,
		);
		stop('n8n exited', 1);
	}
}

async function main(): Promise<void> {
	const { values } = parseArgs({
		options: {
			headless: { type: 'boolean', default: false },
			port: { type: 'string', default: '5678' },
			fresh: { type: 'boolean', default: false },
			help: { type: 'boolean', default: false },
		},
		strict: true,
	});
	const port = Number(values.port);
	if (values.help) console.log(USAGE);
	else if (!Number.isInteger(port) || port < 1 || port > 65_535)
		throw new Error(`--port needs a port number, got "${values.port}"`);
	else if (values.headless) await headless();
	else await interactive(port, values.fresh);
}

main().then(
	() => {
		if (process.argv.includes('--headless')) process.exit(0);
	},
	(error: unknown) => {
		console.error(`\n${error instanceof Error ? error.message : String(error)}`);
		killAllNow();
		process.exit(1);
	},
);
