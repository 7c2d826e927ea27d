// scripts/system-packages.sh with apt-get, sudo, id and dpkg-query faked: root and passwordless sudo install, anyone else is told how.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const script = path.resolve(__dirname, '../../../scripts/system-packages.sh');
const fakeBin = path.join(__dirname, 'fixtures/fake-apt');

let scratch: string;
beforeEach(() => {
	scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-apt-'));
});
let underWay: ChildProcess | undefined;
afterEach(() => {
	underWay?.kill();
	underWay = undefined;
	fs.rmSync(scratch, { recursive: true, force: true });
});

const marker = () => path.join(scratch, 'lists-updated');

/** Runs the script as the user FAKE_UID; returns its exit code, its stderr and every apt-get and sudo call. */
function runScript(packages: string[], env: Record<string, string>) {
	const log = path.join(scratch, 'calls.log');
	const result = spawnSync('bash', [script, ...packages], {
		encoding: 'utf8',
		env: {
			...process.env,
			PATH: `${fakeBin}:${process.env.PATH}`,
			FAKE_APT_LOG: log,
			SVC_APT_LOCK: path.join(scratch, 'apt.lock'),
			SVC_APT_UPDATED_MARKER: marker(),
			// What another install under way has installed (installUnderWay).
			FAKE_INSTALLED_FILE: path.join(scratch, 'installed'),
			// Unset, so the log shows that the script sets it for the install.
			DEBIAN_FRONTEND: '',
			...env,
		},
	});
	const calls = fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n') : [];
	return { code: result.status, stderr: result.stderr, calls };
}

const INSTALL = 'install -y -qq --no-install-recommends';

test('everything installed already: nothing runs, whoever the user is', () => {
	const run = runScript(['postgresql', 'redis-server'], {
		FAKE_UID: '1001',
		FAKE_INSTALLED: 'postgresql redis-server',
	});
	expect(run).toEqual({ code: 0, stderr: '', calls: [] });
});

test('as root: apt-get itself, the lists updated once, with no sudo', () => {
	const run = runScript(['postgresql', 'redis-server'], { FAKE_INSTALLED: 'postgresql' });
	expect(run.code).toBe(0);
	expect(run.calls).toEqual([
		'apt-get update -qq | uid=0 | DEBIAN_FRONTEND=',
		`apt-get ${INSTALL} redis-server | uid=0 | DEBIAN_FRONTEND=noninteractive`,
	]);
	expect(fs.existsSync(marker())).toBe(true);
});

test('as a user with passwordless sudo (GitHub runners): apt-get through sudo -n, as root', () => {
	const run = runScript(['chromium'], { FAKE_UID: '1001', FAKE_SUDO: 'passwordless' });
	expect(run.code).toBe(0);
	expect(run.calls).toEqual([
		'sudo -n true',
		'sudo -n apt-get update -qq',
		'apt-get update -qq | uid=0 | DEBIAN_FRONTEND=',
		`sudo -n touch ${marker()}`,
		`sudo -n env DEBIAN_FRONTEND=noninteractive apt-get ${INSTALL} chromium`,
		`apt-get ${INSTALL} chromium | uid=0 | DEBIAN_FRONTEND=noninteractive`,
	]);
	expect(fs.existsSync(marker())).toBe(true);
});

test('the lists are updated once per machine: a second install only installs', () => {
	fs.writeFileSync(marker(), '');
	const run = runScript(['hello'], { FAKE_UID: '1001', FAKE_SUDO: 'passwordless' });
	expect(run.code).toBe(0);
	expect(run.calls.filter((call) => call.startsWith('apt-get'))).toEqual([
		`apt-get ${INSTALL} hello | uid=0 | DEBIAN_FRONTEND=noninteractive`,
	]);
});

test('a user whose sudo asks for a password: exit 1 with the exact command, and apt-get never runs', () => {
	const run = runScript(['postgresql', 'redis-server'], {
		FAKE_UID: '1001',
		FAKE_SUDO: 'password',
	});
	expect(run.code).toBe(1);
	expect(run.stderr).toContain(
		'Missing system packages: postgresql redis-server. Install them with: sudo apt-get update && sudo apt-get install -y postgresql redis-server',
	);
	expect(run.calls).toEqual(['sudo -n true']);
	expect(fs.existsSync(marker())).toBe(false);
});

/** Another install (jest's set-up installs every missing package in the background) holds the lock until the script
 * waits on it (a blocked flock on the lock file's inode in /proc/locks: no race with a loaded machine), and installs
 * `packages` meanwhile; returns once it holds the lock. */
function installUnderWay(packages: string) {
	const holding = path.join(scratch, 'holding');
	const lock = path.join(scratch, 'apt.lock');
	fs.writeFileSync(lock, '', { flag: 'a' });
	const blocked = `grep -q -- "-> FLOCK .*:${fs.statSync(lock).ino} " /proc/locks`;
	const waitForWaiter = `for _ in $(seq 1200); do ${blocked} && break; sleep 0.05; done`;
	const install = `touch ${holding}; ${waitForWaiter}; echo ${packages} > ${path.join(scratch, 'installed')}`;
	underWay = spawn('flock', [lock, 'bash', '-c', install], {
		stdio: 'ignore',
	});
	while (!fs.existsSync(holding)) spawnSync('sleep', ['0.05']);
}

test('an install under way: it waits for it, then installs only what that one did not', () => {
	installUnderWay('postgresql');
	const run = runScript(['postgresql', 'redis-server'], {});
	expect(run.code).toBe(0);
	expect(run.stderr).toContain('[system packages] waiting for the install already under way');
	expect(run.calls).toEqual([
		'apt-get update -qq | uid=0 | DEBIAN_FRONTEND=',
		`apt-get ${INSTALL} redis-server | uid=0 | DEBIAN_FRONTEND=noninteractive`,
	]);
});

test('an install under way that installs everything needed: it waits, and nothing more runs', () => {
	installUnderWay('chromium');
	const run = runScript(['chromium'], { FAKE_UID: '1001', FAKE_SUDO: 'passwordless' });
	expect(run.code).toBe(0);
	expect(run.stderr).toContain('waiting for the install already under way');
	expect(run.calls).toEqual(['sudo -n true']);
});
