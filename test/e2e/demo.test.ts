// `npm start` as a user runs it: SIGINT, SIGTERM or SIGHUP to npm, or Ctrl-C in a terminal, stops all it started; its curl lines work.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

import type { Chat } from '../../nodes/SvcChat/types';
import { freePort, run, start, stop, waitUntil, type Started } from '../../scripts/processes';
import { REPO_ROOT } from '../../scripts/runtime';
import { TEST_TIMEOUT_MS } from './environment';

// Each start costs tens of seconds of both cores (build, imports, n8n): one per way of stopping, nothing more.
jest.setTimeout(TEST_TIMEOUT_MS);

/** The demo's n8n folder for this file, so that a user's .cache/demo-n8n (and their running demo) stays untouched. */
const demoFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-demo-test-'));
afterAll(() => fs.rmSync(demoFolder, { recursive: true, force: true }));

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
};

const running: Demo[] = [];
afterEach(async () => {
	// A failed test must not leave n8n behind: it runs in a process group of its own, which npm's group does not include.
	for (const demo of running.splice(0)) {
		await stop(demo.npm, 'SIGKILL');
		for (const left of demo.processes.filter(isRunning)) process.kill(left.pid, 'SIGKILL');
	}
});

/** `npm start -- --port <free port>` in the repository, as a user types it, until the welcome text is out. */
async function startDemo(): Promise<Demo> {
	const port = await freePort();
	const npm = start('npm', ['start', '--', '--port', String(port)], {
		cwd: REPO_ROOT,
		env: { ...process.env, SVC_DEMO_FOLDER: demoFolder },
	});
	const demo: Demo = { npm, n8nPort: port, sandboxUrl: '', sandboxPort: 0, processes: [] };
	running.push(demo);
	const welcomed = async () => /SIGHUP to npm\)\.\n─+\n/.test(npm.output());
	await waitUntil(welcomed, {
		what: 'npm start',
		timeoutMs: TEST_TIMEOUT_MS - 60_000,
		process: npm,
	});
	expect(npm.output()).toContain(`n8n is ready`);
	expect(npm.output()).toMatch(new RegExp(`:  http://127\\.0\\.0\\.1:${port}\\n`));
	const sandboxUrl = /Svc sandbox on (http:\/\/127\.0\.0\.1:(\d+))/.exec(npm.output());
	demo.sandboxUrl = sandboxUrl?.[1] ?? '';
	demo.sandboxPort = Number(sandboxUrl?.[2]);
	demo.processes = descendants(npm.pid!);
	expect(demo.processes.map(({ command }) => command)).toEqual(
		expect.arrayContaining([
			expect.stringMatching(/ scripts\/demo\.ts --port \d+$/),
			expect.stringMatching(/\/n8n\/bin\/n8n start$/),
		]),
	);
	expect(await listens(port)).toBe(true);
	expect(await listens(demo.sandboxPort)).toBe(true);
	return demo;
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
	running.splice(running.indexOf(demo), 1);
}

/** The curl commands the welcome text prints, continuation lines joined, in order. */
const curlLines = (output: string) =>
	output
		.replaceAll(' \\\n', ' ')
		.split('\n')
		.map((line) => /curl -s .*$/.exec(line)?.[0])
		.filter((line) => line !== undefined);

async function curl(line: string): Promise<unknown> {
	const result = await run('sh', ['-c', line], { timeout: 60_000, env: process.env });
	expect({ line, exitCode: result.exitCode }).toEqual({ line, exitCode: 0 });
	return JSON.parse(result.stdout) as unknown;
}

test("SIGINT to npm stops everything it started, after the welcome text's curl lines did what it says", async () => {
	const demo = await startDemo();
	const lines = curlLines(demo.npm.output());
	const at = (route: string) => lines.filter((line) => line.includes(route));
	expect(lines).toHaveLength(9);

	// A chat, as the welcome text shows it: added (new and open), given a message, closed.
	const [add, update, close] = ['chats/add', 'chats/update', 'chats/close'].flatMap(at);
	const before = Date.now();
	const [added] = (await curl(add)) as Chat[];
	expect(Date.parse(added.created_at)).toBeGreaterThanOrEqual(before - 1_000);
	expect(added.state_history?.map(({ state }) => state) ?? []).not.toContain('closed');
	const withId = (line: string) => line.replace('CHAT_ID', String(added.id));
	const updated = (await curl(withId(update))) as Chat;
	expect(updated.messages).toHaveLength((added.messages?.length ?? 0) + 1);
	const closed = (await curl(withId(close))) as Chat;
	expect(closed.state_history?.at(-1)?.state).toBe('closed');
	const stored = await curl(`curl -s '${demo.sandboxUrl}/__control/chat?id=${added.id}'`);
	expect(stored).toEqual(closed);

	// The other lines: a campaign (n8n may still be registering its webhooks), a login, the operators.
	const [campaign, broadcasts] = [
		...at('/webhook/svc-crm-broadcast'),
		...at('__control/broadcasts'),
	];
	const sent = await waitUntil(
		async () => {
			const answer = await curl(campaign);
			return Array.isArray(answer) && answer;
		},
		{ what: `the campaign line: ${campaign}`, timeoutMs: 30_000, everyMs: 500 },
	);
	expect(sent.map((entry: { result?: string }) => entry.result)).toEqual(['ok', 'ok']);
	expect(await curl(broadcasts)).toEqual([
		expect.objectContaining({ data: expect.objectContaining({ template_id: 'welcome_v2' }) }),
	]);
	const { auth_token: token } = (await curl(at('/webhook/svc-visitor-login')[0])) as {
		auth_token: string;
	};
	expect(await curl(at('__control/pairings')[0])).toEqual({ [token]: expect.any(Object) });
	const offline = (await curl(at('operators/cycle')[0])) as Array<{ status: string }>;
	expect(offline.map(({ status }) => status)).toEqual(offline.map(() => 'offline'));
	expect(await curl(at('__control/operators')[0])).toEqual(offline);

	await stopsEverything(demo, () => process.kill(demo.npm.pid!, 'SIGINT'));
	expect(demo.npm.output()).toContain('Ctrl-C (SIGINT): stopping n8n and the sandbox…');
	expect(await demo.npm).toMatchObject({ exitCode: 0 });
});

test('SIGTERM to npm (a process manager, timeout, a container stop) stops everything it started', async () => {
	const demo = await startDemo();
	await stopsEverything(demo, () => process.kill(demo.npm.pid!, 'SIGTERM'));
	expect(demo.npm.output()).toContain('SIGTERM: stopping n8n and the sandbox…');
	expect(await demo.npm).toMatchObject({ exitCode: 0 });
});

test('SIGHUP to npm, which ends npm alone, stops everything it started', async () => {
	const demo = await startDemo();
	await stopsEverything(demo, () => process.kill(demo.npm.pid!, 'SIGHUP'));
	expect(demo.npm.output()).toContain('npm ended: stopping n8n and the sandbox…');
	expect(await demo.npm).toMatchObject({ signal: 'SIGHUP' });
});

test('Ctrl-C in a terminal (SIGINT to the whole foreground group: npm and the demo) stops everything once', async () => {
	const demo = await startDemo();
	// npm leads its group, as a terminal's foreground job does.
	await stopsEverything(demo, () => process.kill(-demo.npm.pid!, 'SIGINT'));
	expect(await demo.npm).toMatchObject({ exitCode: 0 });
});
