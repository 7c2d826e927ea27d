// The package as n8n and npm see it: zero lint problems, strict types, only dist/ published, no runtime dependencies.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));

describe('package', () => {
	test('lint has zero problems (n8n community-node rules for nodes/ and credentials/)', () => {
		// ESLint runs in its own process: its flat config is an ES module, which Jest's module sandbox cannot load.
		// NODE_ENV is dropped because eslint-plugin-n8n-nodes-base switches to its own test fixtures when it is "test".
		const environment = { ...process.env };
		delete environment.NODE_ENV;
		let report: string;
		try {
			report = execFileSync(
				process.execPath,
				[path.join(root, 'node_modules/eslint/bin/eslint.js'), '.', '--format', 'json'],
				{
					cwd: root,
					env: environment,
					encoding: 'utf8',
					maxBuffer: 64 * 1024 * 1024,
				},
			);
		} catch (error) {
			// eslint exits 1 when it finds problems; its JSON report is still on stdout. Anything else is a real failure.
			const { stdout } = error as { stdout?: string };
			if (!stdout) throw error;
			report = stdout;
		}
		const results: Array<{
			filePath: string;
			messages: Array<{ line: number; column: number; ruleId: string | null; message: string }>;
		}> = JSON.parse(report);
		expect(results.length).toBeGreaterThan(20);
		const problems = results.flatMap((result) =>
			result.messages.map(
				(m) =>
					`${path.relative(root, result.filePath)}:${m.line}:${m.column} ${m.ruleId ?? ''} ${m.message}`,
			),
		);
		expect(problems).toEqual([]);
	}, 120_000);

	test('every TypeScript file type-checks under strict settings', () => {
		// Throws with tsc's output when any file has a type error.
		execFileSync(
			process.execPath,
			[require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.check.json'],
			{ cwd: root, stdio: 'pipe' },
		);
	}, 120_000);

	test('is an n8n community package without runtime dependencies or install scripts', () => {
		expect(pkg.name).toBe('n8n-nodes-svc');
		expect(pkg.keywords).toContain('n8n-community-node-package');
		expect(pkg.license).toBe('MIT');
		expect(pkg.dependencies ?? {}).toEqual({});
		expect(pkg.peerDependencies).toEqual({ 'n8n-workflow': '*' });
		for (const hook of ['preinstall', 'install', 'postinstall', 'prepare', 'prepublish'])
			expect(pkg.scripts[hook]).toBeUndefined();
		expect(pkg.n8n.n8nNodesApiVersion).toBe(1);
		expect(pkg.n8n.strict).toBe(true);
	});

	test('every node and credential the n8n block names is built into dist/', () => {
		const listed: string[] = [...pkg.n8n.credentials, ...pkg.n8n.nodes];
		expect(listed.length).toBeGreaterThanOrEqual(3);
		for (const file of listed) expect(existsSync(path.join(root, file))).toBe(true);
		expect(existsSync(path.join(root, 'dist/nodes/SvcChat/svc.svg'))).toBe(true);
		expect(existsSync(path.join(root, 'dist/nodes/SvcChat/SvcChat.node.json'))).toBe(true);
	});

	test('npm pack contains only dist/, package.json, the README and the licence', () => {
		const output = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
			cwd: root,
			encoding: 'utf8',
		});
		const files: string[] = JSON.parse(output)[0].files.map((f: { path: string }) => f.path);
		expect(files.length).toBeGreaterThan(3);
		const unexpected = files.filter(
			(f) => !/^(dist\/|package\.json$|README\.md$|LICENSE\.md$)/.test(f),
		);
		expect(unexpected).toEqual([]);
		expect(files).toEqual(expect.arrayContaining(['package.json', 'README.md', 'LICENSE.md']));
		// Tests, sandbox and benchmarks never ship, not even compiled.
		expect(files.filter((f) => /(^|\/)(test|sandbox|bench)\//.test(f))).toEqual([]);
	}, 60_000);
});
