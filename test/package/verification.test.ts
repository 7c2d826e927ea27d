// What n8n's verification runs on the package: its scanner on the `npm pack` tarball, and `n8n-node lint`.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');
const scannerVersion = JSON.parse(
	fs.readFileSync(path.join(root, 'node_modules/@n8n/scan-community-package/package.json'), 'utf8'),
).version;
const nodeCliVersion = JSON.parse(
	fs.readFileSync(path.join(root, 'node_modules/@n8n/node-cli/package.json'), 'utf8'),
).version;
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));

interface ScanResult {
	passed: boolean;
	message?: string;
	details?: string;
}

// eslint-plugin-n8n-nodes-base swaps real file names for its own fixtures when NODE_ENV is "test", as Jest sets it.
const environment: NodeJS.ProcessEnv = {
	...process.env,
	PATH: `${path.join(root, 'node_modules/.bin')}:${process.env.PATH ?? ''}`,
};
delete environment.NODE_ENV;

let work: string;
beforeAll(() => {
	work = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-verification-'));
});
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

test('the pinned tools are the ones package.json names', () => {
	expect(pkg.devDependencies['@n8n/scan-community-package']).toBe(scannerVersion);
	expect(pkg.devDependencies['@n8n/node-cli']).toBe(nodeCliVersion);
});

test("n8n's scanner passes on the source and on the npm pack tarball, offline, and fails a planted violation", () => {
	// The tarball as npm would publish it (dist/ was built by the global set-up), unpacked as the scanner does.
	const packed = JSON.parse(
		execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], {
			cwd: root,
			encoding: 'utf8',
		}),
	)[0].filename as string;
	const packageDir = path.join(work, 'package');
	fs.mkdirSync(packageDir);
	execFileSync('tar', ['-xzf', path.join(work, packed), '-C', packageDir, '--strip-components=1']);
	expect(fs.existsSync(path.join(packageDir, 'dist/credentials/SvcApi.credentials.js'))).toBe(true);

	const canaryDir = path.join(work, 'canary');
	fs.mkdirSync(path.join(canaryDir, 'dist'), { recursive: true });
	fs.writeFileSync(
		path.join(canaryDir, 'package.json'),
		JSON.stringify({ name: 'n8n-nodes-canary', version: '1.0.0' }),
	);
	fs.writeFileSync(
		path.join(canaryDir, 'dist/Canary.js'),
		'"use strict";\nexports.test = async function () { return await this.helpers.request({ uri: "https://example.invalid" }); };\n',
	);

	// ESLint's flat config is an ES module; the scanner runs in its own Node process.
	const output = execFileSync(
		process.execPath,
		[path.join(__dirname, 'scan-community-package.mjs'), root, packageDir, canaryDir],
		{
			cwd: root,
			env: environment,
			encoding: 'utf8',
			maxBuffer: 16 * 1024 * 1024,
		},
	);
	const results = JSON.parse(output) as Record<'source' | 'tarball' | 'canary', ScanResult>;
	expect(results.canary).toMatchObject({
		passed: false,
		details: expect.stringContaining('no-deprecated-workflow-functions'),
	});
	expect({
		source: results.source.details ?? results.source.message ?? '',
		passed: results.source.passed,
	}).toEqual({ source: '', passed: true });
	expect({
		tarball: results.tarball.details ?? results.tarball.message ?? '',
		passed: results.tarball.passed,
	}).toEqual({ tarball: '', passed: true });
}, 180_000);

test("n8n-node lint has zero problems on the shipped source, with the CLI's own default (strict) eslint config", () => {
	// The CLI lints every .ts under its working folder with the node rules; this repository also holds tests and tools
	// that may use process and fs, so the CLI runs on what ships, laid out as its template lays it out.
	const stage = path.join(work, 'n8n-node');
	fs.mkdirSync(stage);
	for (const entry of ['package.json', 'tsconfig.json', 'credentials', 'nodes'])
		fs.cpSync(path.join(root, entry), path.join(stage, entry), { recursive: true });
	fs.copyFileSync(
		path.join(
			root,
			'node_modules/@n8n/node-cli/dist/template/templates/shared/default/eslint.config.mjs',
		),
		path.join(stage, 'eslint.config.mjs'),
	);
	fs.symlinkSync(path.join(root, 'node_modules'), path.join(stage, 'node_modules'));
	let output = '';
	try {
		output = execFileSync(
			process.execPath,
			[path.join(root, 'node_modules/@n8n/node-cli/bin/n8n-node.mjs'), 'lint'],
			{
				cwd: stage,
				env: environment,
				encoding: 'utf8',
				stdio: 'pipe',
			},
		);
	} catch (error) {
		const { stdout, stderr } = error as { stdout?: string; stderr?: string };
		throw new Error(`n8n-node lint found problems:\n${stdout ?? ''}\n${stderr ?? ''}`);
	}
	expect(output).toContain('n8n-node lint');
	expect(output).not.toMatch(/Strict mode violation|problem/);
}, 180_000);
