// `npm start` as a user runs it: SIGINT, SIGTERM or SIGHUP to npm, or Ctrl-C in a terminal, stops all it started; its curl lines work.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

import type { Chat } from '../../nodes/SvcChat/types';
import { freePort, run, start, stop, waitUntil, type Started } from '../../scripts/processes';
import { EXAMPLE_IDS, readExamples, WEBHOOK_CREDENTIAL } from '../../scripts/examples';
import { REPO_ROOT } from '../../scripts/runtime';
import { TEST_TIMEOUT_MS } from './environment';

jest.setTimeout(TEST_TIMEOUT_MS);

/** The demo's n8n folders of this file, so that a user's .cache/demo-n8n (and their running demo) stays untouched. */
const folders = [1, 2].map(() => fs.mkdtempSync(path.join(os.tmpdir(), 'svc-demo-test-')));
afterAll(() => folders.forEach((folder) => fs.rmSync(folder, { recursive: true, force: true })));

/** A process as /proc shows it; its start time tells it apart from a later process given the same pid. */
type ProcessInfo = { pid: number; ppid: number; state: string; startTime: string; command: string };

function readProcess(pid: number): ProcessInfo | undefined {
	try {
		const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
		// The fields after the command name, which is in parentheses and may hold spaces and parentheses.
		const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
		const command = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
		return { pid, ppid: Number(fields[1]), state: fields[0], startTime: fields[19], command };
	} catch {
		return undefined; // it exited meanwhile
	}
}

/** Every process below `root`: its children, theirs, and so on. */
function descendants(root: number): ProcessInfo[] {
	const all = fs
		.readdirSync('/proc')
		.filter((name) => /^\d+$/.test(name))
		.map((name) => readProcess(Number(name)))
		.filter((info) => info !== undefined);
	const found: ProcessInfo[] = [];
	for (let parents = new Set([root]); parents.size; ) {
		const children = all.filter(({ ppid }) => parents.has(ppid));
		found.push(...children);
		parents = new Set(children.map(({ pid }) => pid));
	}
	return found;
}

/** Still running: the same process (not a later one with its pid), and not a zombie waiting for its parent. */
const isRunning = ({ pid, startTime }: ProcessInfo) => {
	const now = readProcess(pid);
	return now !== undefined && now.startTime === startTime && now.state !== 'Z';
};

const listens = async (port: number) =>
	await new Promise<boolean>((resolve) => {
		const socket = net.connect(port, '127.0.0.1', () => (socket.destroy(), resolve(true)));
		socket.on('error', () => resolve(false));
	});

type Demo = {
	npm: Started;
	n8nPort: number;
	sandboxUrl: string;
	sandboxPort: number;
	/** Every process npm had started once the demo was ready: the demo script, n8n, n8n's task runner… */
	processes: ProcessInfo[];
	startedAt: number;
};

/** `npm start -- --port <port>` in the repository, as a user types it, in `folder`, until the welcome text is out. */
async function startDemo(folder: string, port: number): Promise<Demo> {
	const startedAt = Date.now();
	const npm = start('npm', ['start', '--', '--port', String(port)], {
		cwd: REPO_ROOT,
		env: { ...process.env, SVC_DEMO_FOLDER: folder },
	});
	const welcomed = async () => /SIGHUP to npm\)\.\n─+\n/.test(npm.output());
	const what = 'npm start';
	await waitUntil(welcomed, { what, timeoutMs: TEST_TIMEOUT_MS - 60_000, process: npm }).catch(
		async (error: unknown) => {
			await stop(npm, 'SIGKILL');
			throw error;
		},
	);
	const sandboxUrl = /Svc sandbox on (http:\/\/127\.0\.0\.1:(\d+))/.exec(npm.output());
	const sandboxPort = Number(sandboxUrl?.[2]);
	const processes = descendants(npm.pid!);
	return {
		npm,
		n8nPort: port,
		sandboxUrl: sandboxUrl?.[1] ?? '',
		sandboxPort,
		processes,
		startedAt,
	};
}

/** Ends what is left of a demo: a failed test must not leave n8n behind (its process group is not npm's). */
async function kill(demo: Demo): Promise<void> {
	await stop(demo.npm, 'SIGKILL');
	for (const left of demo.processes.filter(isRunning)) process.kill(left.pid, 'SIGKILL');
}

/**
 * The four demos, in the order of the tests, two at a time (each start costs seconds of both cores): the first two in
 * new folders, then each folder's restart once its first demo has ended, as a user starts the demo again.
 */
const demos: Array<Promise<Demo>> = [];
beforeAll(async () => {
	const ports = [await freePort()];
	while (ports.length < 2)
		ports.push(await freePort().then((port) => (ports.includes(port) ? 0 : port)));
	const first = folders.map((folder, index) => startDemo(folder, ports[index]));
	const ended = first.map(
		async (demo) =>
			await demo.then(
				async ({ npm }) => await npm,
				() => undefined,
			),
	);
	const restarts = folders.map(async (folder, index) => {
		await ended[index];
		return await startDemo(folder, ports[index]);
	});
	demos.push(...first, ...restarts);
	// Not left unhandled when a test that would have taken it failed earlier.
	for (const demo of demos) demo.catch(() => undefined);
});
let inTest: Demo | undefined;
afterEach(async () => {
	if (inTest) await kill(inTest);
	inTest = undefined;
});
afterAll(async () => {
	for (const demo of await Promise.allSettled(demos))
		if (demo.status === 'fulfilled') await kill(demo.value);
});

/** The `nth` demo, once ready as the welcome text says: n8n and the sandbox on their ports, the package not rebuilt. */
async function demo(nth: number): Promise<Demo> {
	const started = await demos[nth];
	inTest = started;
	const { npm, n8nPort, sandboxPort, processes } = started;
	expect(npm.output()).toContain(`n8n is ready`);
	expect(npm.output()).toMatch(new RegExp(`:  http://127\\.0\\.0\\.1:${n8nPort}\\n`));
	// Jest's global set-up has built dist/ from this code: a start without a change does not build again.
	expect(npm.output()).toContain('package not built: dist/ is newer');
	expect(processes.map(({ command }) => command)).toEqual(
		expect.arrayContaining([
			expect.stringMatching(/ scripts\/demo\.ts --port \d+$/),
			expect.stringMatching(/\/n8n\/bin\/n8n start$/),
		]),
	);
	expect(await listens(n8nPort)).toBe(true);
	expect(await listens(sandboxPort)).toBe(true);
	return started;
}

/** Sends `signal`, then waits (30 s at most) until every process npm started is gone and the two ports are closed. */
async function stopsEverything(demo: Demo, send: () => void): Promise<void> {
	const { npm, processes, n8nPort, sandboxPort } = demo;
	send();
	const gone = async () => {
		const left = processes.filter(isRunning).map(({ pid, command }) => `${pid} ${command}`);
		if (await listens(n8nPort)) left.push(`n8n's port ${n8nPort}`);
		if (await listens(sandboxPort)) left.push(`the sandbox's port ${sandboxPort}`);
		if (left.length) throw new Error(`still there: ${left.join('; ')}`);
		return true;
	};
	await waitUntil(gone, {
		what: 'the end of all npm start began',
		timeoutMs: 30_000,
		output: npm.output,
	});
	expect(npm.output()).toMatch(/\nStopped\.\n/);
	// One stop, not a second signal taken as "stop now".
	expect(npm.output().match(/: stopping n8n and the sandbox…/g)).toHaveLength(1);
}

/** The curl commands the welcome text prints, continuation lines joined, in order. */
const curlLines = (output: string) =>
	output
		.replaceAll(' \\\n', ' ')
		.split('\n')
		.map((line) => /curl -s .*$/.exec(line)?.[0])
		.filter((line) => line !== undefined);

/** The export example's executions, read as the user the welcome text names would: logged in, through n8n's REST API. */
async function exportExecutions({ npm, n8nPort }: Demo) {
	const [, email, password] = /Log in with {3}(\S+) {2}\/ {2}(\S+)/.exec(npm.output()) ?? [];
	const n8n = `http://127.0.0.1:${n8nPort}/rest`;
	const login = await fetch(`${n8n}/login`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ emailOrLdapLoginId: email, password }),
	});
	expect(login.status).toBe(200);
	const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0];
	const filter = encodeURIComponent(
		JSON.stringify({ workflowId: EXAMPLE_IDS.exportFinishedChats }),
	);
	const page = await fetch(`${n8n}/executions?filter=${filter}`, { headers: { cookie } });
	type Summary = { mode: string; status: string; startedAt: string };
	return ((await page.json()) as { data: { results: Summary[] } }).data.results;
}

async function curl(line: string): Promise<unknown> {
	const result = await run('sh', ['-c', line], { timeout: 60_000, env: process.env });
	expect({ line, exitCode: result.exitCode }).toEqual({ line, exitCode: 0 });
	return JSON.parse(result.stdout) as unknown;
}

/** The HTTP status `line` gets, its answer left unread. */
async function statusOf(line: string): Promise<number> {
	const written = `${line} -o /dev/null -w '%{http_code}'`;
	const result = await run('sh', ['-c', written], { timeout: 60_000, env: process.env });
	return Number(result.stdout);
}

/**
 * Issue 64: each webhook line without its header, and with a wrong secret: the statuses, and the Svc requests the
 * sandbox saw meanwhile. The published chat triggers poll once a minute each: a window a poll fell into is tried again.
 */
async function refusedCalls(lines: string[], sandboxUrl: string, secret: string) {
	const header = new RegExp(` -H '${WEBHOOK_CREDENTIAL.header}: ${secret}'`);
	const calls = lines.flatMap((line) => [
		line.replace(header, ''),
		line.replace(header, ` -H '${WEBHOOK_CREDENTIAL.header}: not-${secret}'`),
	]);
	const requests = async () =>
		(await curl(`curl -s ${sandboxUrl}/__control/requests`)) as unknown[];
	let tried = { statuses: [] as number[], svcRequests: [] as unknown[] };
	for (let attempt = 0; attempt < 3 && (attempt === 0 || tried.svcRequests.length); attempt++) {
		const from = (await requests()).length;
		const statuses = [];
		for (const call of calls) statuses.push(await statusOf(call));
		tried = { statuses, svcRequests: (await requests()).slice(from) };
	}
	return { calls: calls.length, ...tried };
}

test("SIGINT to npm stops everything it started, after the welcome text's curl lines did what it says", async () => {
	const started = await demo(0);
	const lines = curlLines(started.npm.output());
	const at = (route: string) => lines.filter((line) => line.includes(route));
	expect(lines).toHaveLength(19);
	// What the lines cannot show: example 7's hours, chats/missed's choices, what a wrong saved password does.
	const welcome = started.npm.output().replaceAll(/\n {1,4}/g, ' ');
	expect(welcome).toContain(
		"only in business hours (Monday to Friday, 09:00 to 18:00 in the workflow's time zone)",
	);
	expect(welcome).toMatch(/"contact": "fields" .* "message" .* "none" nowhere/);
	expect(welcome).toContain(
		'A wrong password saved in it makes the published examples fail once, then pause the account',
	);
	// Issue 64: the bound and the webhooks' answer during a pause (engine/examples.test.ts proves the 503).
	expect(welcome).toContain('at most 2 wrong logins in its first minute, and it is never locked.');
	expect(welcome).toContain("the webhooks below answer 503 with the pause's end and Retry-After.");
	// Its log names each workflow it imports once (issue 65: example 12 was imported twice, listed twice).
	const imported = [...started.npm.output().matchAll(/· workflows: (.*)\n/g)].flatMap(([, names]) =>
		names.split(/(?<="), (?=")/),
	);
	expect(imported.sort()).toEqual(
		readExamples()
			.map(({ name }) => `"${name}"`)
			.sort(),
	);
	// The MCP token where SVC_DEMO_FOLDER puts it (this file's folders, not the default one).
	expect(welcome).toContain(`Bearer token in ${path.join(folders[0], 'mcp-token.txt')}`);
	// Example 7's tip, and when it cannot work: from Saturday 06:00 to Sunday 19:00 UTC no zone (UTC-12 to UTC+14, in
	// quarter hours) is in business hours, and just outside that time one is.
	expect(welcome).toContain(
		'That cannot work at a weekend: from Saturday 06:00 to Sunday 19:00 UTC no time zone is in business hours.',
	);
	const inBusinessHoursSomewhere = (utcMs: number) =>
		Array.from(
			{ length: 26 * 4 + 1 },
			(_, quarter) => new Date(utcMs + (quarter - 48) * 900_000),
		).some(
			(local) =>
				local.getUTCDay() % 6 !== 0 && local.getUTCHours() >= 9 && local.getUTCHours() < 18,
		);
	const saturday6 = Date.parse('2026-11-28T06:00:00Z');
	const minutes = (from: number, to: number) =>
		Array.from({ length: (to - from) / 60_000 }, (_, minute) => from + minute * 60_000);
	expect(minutes(saturday6, saturday6 + 37 * 3_600_000).filter(inBusinessHoursSomewhere)).toEqual(
		[],
	);
	expect(inBusinessHoursSomewhere(saturday6 - 60_000)).toBe(true);
	expect(inBusinessHoursSomewhere(saturday6 + 37 * 3_600_000)).toBe(true);

	// A chat, as the welcome text shows it: added (new and open), given a message, closed.
	const [add, update, close] = ['chats/add', 'chats/update', 'chats/close'].flatMap(at);
	const before = Date.now();
	const [added] = (await curl(add)) as Chat[];
	// A conversation going on, begun 20 minutes ago (sandbox/README.md).
	expect(Date.parse(added.created_at)).toBeGreaterThanOrEqual(before - 1_000 - 20 * 60_000);
	expect(added.state_history?.map(({ state }) => state) ?? []).not.toContain('closed');
	const withId = (line: string) => line.replace('CHAT_ID', String(added.id));
	const updated = (await curl(withId(update))) as Chat;
	expect(updated.messages).toHaveLength((added.messages?.length ?? 0) + 1);
	const closed = (await curl(withId(close))) as Chat;
	expect(closed.state_history?.at(-1)?.state).toBe('closed');
	const stored = await curl(`curl -s '${started.sandboxUrl}/__control/chat?id=${added.id}'`);
	expect(stored).toEqual(closed);
	// The chats changed last, the latest first: this one, closed.
	const recent = (await curl(at('chats/recent')[0])) as Array<{ id: unknown; state: unknown }>;
	expect(recent).toHaveLength(10);
	expect(recent[0]).toEqual({ id: added.id, created_at: added.created_at, state: 'closed' });

	// The webhooks' secret, made once in the demo's folder (0600), is the one the curl lines send.
	const secretFile = path.join(folders[0], 'webhook-secret.txt');
	const secret = fs.readFileSync(secretFile, 'utf8').trim();
	expect(fs.statSync(secretFile).mode & 0o777).toBe(0o600);
	expect(welcome).toContain(`the secret kept in ${secretFile}`);
	const hooks = lines.filter((line) => line.includes('/webhook/'));
	expect(hooks).toHaveLength(4);
	for (const line of hooks) expect(line).toContain(` -H '${WEBHOOK_CREDENTIAL.header}: ${secret}'`);
	// Without the header, or with another secret: n8n's 403 for examples 2, 4 (login, logout) and 13, and no Svc request.
	const refused = await refusedCalls(hooks, started.sandboxUrl, secret);
	expect(refused).toEqual({ calls: 8, statuses: Array(8).fill(403), svcRequests: [] });
	expect(await curl(at('__control/broadcasts')[0])).toEqual([]);
	expect(await curl(at('__control/pairings')[0])).toEqual({});

	// The other lines, at once: the demo publishes its examples before it prints them.
	const [campaign, broadcasts] = [
		...at('/webhook/svc-crm-broadcast'),
		...at('__control/broadcasts'),
	];
	const results = async () =>
		((await curl(campaign)) as Array<{ result?: string }>).map((entry) => entry.result);
	expect(await results()).toEqual(['accepted', 'accepted']);
	// Sent again, as the welcome text says: "skipped" per contact, from what n8n stored of the first production run.
	expect(await results()).toEqual(['skipped', 'skipped']);
	expect(await curl(broadcasts)).toEqual([
		expect.objectContaining({ data: expect.objectContaining({ template_id: 'welcome_v2' }) }),
	]);
	const { auth_token: token } = (await curl(at('/webhook/svc-visitor-login')[0])) as {
		auth_token: string;
	};
	expect(await curl(at('__control/pairings')[0])).toEqual({ [token]: expect.any(Object) });
	const logout = at('/webhook/svc-visitor-logout')[0].replace('TOKEN', token);
	expect(await curl(logout)).toEqual({ result: 'ok', removed: true });
	expect(await curl(at('__control/pairings')[0])).toEqual({});
	// Example 13: the regular visitor's 3 latest chats, newest first, as transcripts.
	const contact = (await curl(at('/webhook/svc-contact-chats')[0])) as Array<{
		transcript: string;
	}>;
	expect(contact).toHaveLength(3);
	expect(contact.every(({ transcript }) => transcript.includes('Rosa Regular'))).toBe(true);
	// Without an e-mail, HTTP 400 and the message (issue 64; test/engine/examples.test.ts proves that it reads nothing).
	const noEmail = await fetch(`http://127.0.0.1:${started.n8nPort}/webhook/svc-contact-chats`, {
		method: 'POST',
		headers: { 'content-type': 'application/json', [WEBHOOK_CREDENTIAL.header]: secret },
		body: '{}',
	});
	expect({ status: noEmail.status, answer: await noEmail.json() }).toEqual({
		status: 400,
		answer: { error: expect.stringMatching(/^'Visitor' is empty: /) },
	});
	const seeded = await curl(at('__control/operators')[0]);
	const offline = (await curl(at('operators/cycle')[0])) as Array<{ status: string }>;
	expect(offline.map(({ status }) => status)).toEqual(offline.map(() => 'offline'));
	expect(await curl(at('__control/operators')[0])).toEqual(offline);
	// One operator back online, the others still offline.
	const back = (await curl(at('operators/status')[0])) as { id: number; status: string };
	expect(back.status).toBe('online');
	const now = (await curl(at('__control/operators')[0])) as Array<{ id: number; status: string }>;
	expect(now.filter(({ status }) => status === 'online').map(({ id }) => id)).toEqual([back.id]);
	// And every operator back as they were.
	expect(await curl(at('operators/restore')[0])).toEqual(seeded);
	expect(await curl(at('__control/operators')[0])).toEqual(seeded);
	// A rating of 1 and a missed chat, for examples 8 and 9, as the sandbox then serves them.
	const rated = (await curl(at('chats/rate')[0])) as Chat;
	expect(rated.rates?.at(-1)).toMatchObject({ rate: 1, created_at: expect.any(String) });
	const missed = (await curl(at('chats/missed')[0])) as Chat;
	expect(missed.state_history?.at(-1)?.state).toBe('closed');
	expect(missed.visitor?.fields?.email).toEqual(expect.any(String));
	// A visitor waiting, for example 10, who writes again, then an operator's answer.
	const [wait, waitAgain] = at('chats/wait');
	const waiting = (await curl(wait)) as Chat;
	expect(waiting.messages?.map(({ kind }) => kind)).toEqual(['visitor']);
	const inWaiting = (line: string) => line.replace('CHAT_ID', String(waiting.id));
	const again = (await curl(inWaiting(waitAgain))) as Chat;
	expect(again.messages?.map(({ kind }) => kind)).toEqual(['visitor', 'visitor']);
	const answered = (await curl(inWaiting(at('chats/answer')[0]))) as Chat;
	expect(answered.messages?.at(-1)?.kind).toBe('operator');
	expect(answered.state_history?.at(-1)?.state).toBe('chatting');
	for (const chat of [rated, missed, answered])
		expect(await curl(`curl -s '${started.sandboxUrl}/__control/chat?id=${chat.id}'`)).toEqual(
			chat,
		);

	await stopsEverything(started, () => process.kill(started.npm.pid!, 'SIGINT'));
	expect(started.npm.output()).toContain('Ctrl-C (SIGINT): stopping n8n and the sandbox…');
	expect(await started.npm).toMatchObject({ exitCode: 0 });
});

test('SIGTERM to npm (a process manager, timeout, a container stop) stops everything it started', async () => {
	const started = await demo(1);
	await stopsEverything(started, () => process.kill(started.npm.pid!, 'SIGTERM'));
	expect(started.npm.output()).toContain('SIGTERM: stopping n8n and the sandbox…');
	expect(await started.npm).toMatchObject({ exitCode: 0 });
});

test('SIGHUP to npm, which ends npm alone, stops everything it started (a restart: the examples as shipped)', async () => {
	const started = await demo(2);
	// The first start's export ran in this folder; its workflow was replaced, its executions with it: one, new.
	const [execution, ...more] = await exportExecutions(started);
	expect(more).toEqual([]);
	expect(execution).toMatchObject({ mode: 'trigger', status: 'success' });
	expect(Date.parse(execution.startedAt)).toBeGreaterThan(started.startedAt);
	await stopsEverything(started, () => process.kill(started.npm.pid!, 'SIGHUP'));
	expect(started.npm.output()).toContain('npm ended: stopping n8n and the sandbox…');
	expect(await started.npm).toMatchObject({ signal: 'SIGHUP' });
});

test('Ctrl-C in a terminal (SIGINT to the whole foreground group: npm and the demo) stops everything once', async () => {
	const started = await demo(3);
	// npm leads its group, as a terminal's foreground job does.
	await stopsEverything(started, () => process.kill(-started.npm.pid!, 'SIGINT'));
	expect(await started.npm).toMatchObject({ exitCode: 0 });
});
