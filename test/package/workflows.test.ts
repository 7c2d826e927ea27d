// The workflows: GitHub Actions' parsed (these machines cannot run GitHub), CI runs .ci/run, publishing is gated on it; examples'.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';

import { readExamples } from '../../scripts/examples';

const workflowsDir = path.resolve(__dirname, '../../.github/workflows');

interface Step {
	name?: string;
	uses?: string;
	run?: string;
	with?: Record<string, unknown>;
}
interface Workflow {
	on: Record<string, unknown>;
	permissions?: Record<string, string>;
	jobs: Record<string, { 'runs-on': string; steps: Step[] }>;
}

const read = (file: string) =>
	parse(fs.readFileSync(path.join(workflowsDir, file), 'utf8')) as Workflow;
const stepsOf = (workflow: Workflow) => Object.values(workflow.jobs).flatMap((job) => job.steps);
const runs = (workflow: Workflow) => stepsOf(workflow).map((step) => step.run ?? '');
/** The Node version each command runs on: the one the last setup-node step before it chose. */
const nodeVersionOf = (workflow: Workflow, command: string) => {
	const steps = stepsOf(workflow);
	const setups = steps
		.slice(
			0,
			steps.findIndex((step) => step.run === command),
		)
		.filter((step) => step.uses?.startsWith('actions/setup-node@'));
	return setups.at(-1)?.with?.['node-version'];
};

test("both workflows run .ci/run (the README's commands) and no test command of their own", () => {
	for (const file of ['ci.yml', 'publish.yml']) {
		const commands = runs(read(file));
		expect(commands).toContain('bash .ci/run');
		expect(commands.filter((command) => /\bnpm (install|test|run|ci)\b/.test(command))).toEqual([]);
	}
	expect(fs.readFileSync(path.resolve(__dirname, '../../.ci/run'), 'utf8')).toMatch(
		/^npm install$[\s\S]*^npm start -- --headless$[\s\S]*^npm test$/m,
	);
});

describe('.ci/run leaves a fresh clone clean', () => {
	const script = fs.readFileSync(path.resolve(__dirname, '../../.ci/run'), 'utf8');
	// What runs after the README's commands, up to the final step.
	const check = script.slice(script.indexOf('\nnpm test\n') + 10, script.indexOf('step "done"'));
	const git = (cwd: string, ...args: string[]) =>
		spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@localhost', ...args], { cwd });

	/** The check run in a new repository with a committed lockfile, after `change` ran there. */
	function runCheck(change: (dir: string) => void) {
		const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ci-clean-'));
		try {
			fs.writeFileSync(path.join(dir, 'package-lock.json'), '{"lockfileVersion": 3}\n');
			git(dir, 'init', '-q');
			git(dir, 'add', '.');
			git(dir, 'commit', '-qm', 'clone');
			change(dir);
			const run = spawnSync('bash', ['-euo', 'pipefail', '-c', `step() { :; }\n${check}`], {
				cwd: dir,
				encoding: 'utf8',
			});
			return { status: run.status, stderr: run.stderr };
		} finally {
			fs.rmSync(dir, { recursive: true, force: true });
		}
	}

	test('it ends by checking the tracked files, after npm test', () => {
		expect(check).toContain('git status --porcelain');
		expect(script.indexOf('git status')).toBeGreaterThan(script.indexOf('\nnpm test\n'));
	});

	test('a tracked file the commands changed fails the run and is named; new untracked files do not', () => {
		const rewritten = runCheck((dir) => {
			fs.writeFileSync(path.join(dir, 'package-lock.json'), '{"lockfileVersion": 3, "x": 1}\n');
			fs.writeFileSync(path.join(dir, 'screenshot.png'), '');
		});
		expect(rewritten.status).toBe(1);
		expect(rewritten.stderr).toContain('M package-lock.json');
		expect(rewritten.stderr).not.toContain('screenshot.png');
		expect(runCheck((dir) => fs.writeFileSync(path.join(dir, 'dist.js'), ''))).toEqual({
			status: 0,
			stderr: '',
		});
	});
});

describe("the examples' Set nodes keep ids as the API gives them", () => {
	const ID_LIKE = /(^|_)id$/i;
	const setNodes = readExamples().flatMap((example) =>
		example.nodes
			.filter((node) => node.type === 'n8n-nodes-base.set')
			.map((node) => ({ example: example.name, node })),
	);

	test('no assignment forces a type on an id field (a number or a GUID string); ids pass through as they are', () => {
		expect(setNodes.length).toBeGreaterThanOrEqual(6);
		const forced = setNodes.flatMap(({ example, node }) => {
			const { assignments } = (node.parameters.assignments ?? {}) as {
				assignments?: Array<{ name: string; type: string }>;
			};
			return (assignments ?? [])
				.filter((assignment) => ID_LIKE.test(assignment.name))
				.map((assignment) => `${example} / ${node.name}: ${assignment.name} as ${assignment.type}`);
		});
		expect(forced).toEqual([]);
	});

	test('examples 8, 9 and 10 pass chat_id on from their trigger, untouched', () => {
		const passed = setNodes
			.filter(({ node }) => node.parameters.include === 'selected')
			.map(({ node }) => [
				node.name,
				node.parameters.includeOtherFields,
				node.parameters.includeFields,
			]);
		expect(passed).toEqual([
			['Message for the team', true, 'chat_id, waited_seconds'],
			['Message for the team lead', true, 'chat_id, rating, operator_id'],
			['Follow-up e-mail', true, 'chat_id'],
		]);
	});
});

describe('ci.yml', () => {
	const ci = read('ci.yml');

	test('runs on pushes and pull requests', () => {
		expect(Object.keys(ci.on).sort()).toEqual(['pull_request', 'push']);
	});

	test('checks out the code and runs exactly .ci/run, nothing else', () => {
		expect(
			stepsOf(ci)
				.map((step) => step.uses)
				.filter(Boolean),
		).toEqual([
			expect.stringMatching(/^actions\/checkout@/),
			expect.stringMatching(/^actions\/setup-node@/),
		]);
		expect(runs(ci).filter(Boolean)).toEqual(['bash .ci/run']);
	});
});

describe('publish.yml', () => {
	const publish = read('publish.yml');
	const commands = runs(publish).filter(Boolean);

	test('runs on a version tag only', () => {
		expect(Object.keys(publish.on)).toEqual(['push']);
		expect(publish.on.push).toEqual({ tags: [expect.stringMatching(/^v/)] });
	});

	test('may mint an OIDC token for the provenance statement, and nothing more than read the code', () => {
		expect(publish.permissions).toEqual({ contents: 'read', 'id-token': 'write' });
	});

	test('runs all of .ci/run on the Node that CI uses, then publishes with provenance as its last step', () => {
		expect(commands.indexOf('bash .ci/run')).toBe(commands.length - 2);
		expect(nodeVersionOf(publish, 'bash .ci/run')).toBe(
			nodeVersionOf(read('ci.yml'), 'bash .ci/run'),
		);
		expect(commands.at(-1)).toMatch(/^npm publish --provenance\b/);
		expect(commands.filter((command) => command.includes('npm publish'))).toHaveLength(1);
	});

	test('publishes with npm 11.5 or later (Node 24), which trusted publishing needs', () => {
		expect(Number(nodeVersionOf(publish, commands.at(-1) ?? ''))).toBeGreaterThanOrEqual(24);
	});

	test('refuses a tag that is not the package.json version', () => {
		expect(commands.findIndex((command) => command.includes('GITHUB_REF_NAME'))).toBe(0);
	});
});

test('package.json points repository, homepage and bugs at the same GitHub repository', () => {
	const pkg = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../package.json'), 'utf8'));
	const repository = /github\.com\/([^/]+\/[^/.#]+)/.exec(pkg.repository.url)?.[1];
	expect(repository).toBe('n8n-nodes-svc/n8n-nodes-svc');
	expect(pkg.homepage).toBe(`https://github.com/${repository}#readme`);
	expect(pkg.bugs.url).toBe(`https://github.com/${repository}/issues`);
	expect(pkg.author.name).toBeTruthy();
	expect(fs.existsSync(path.resolve(__dirname, '../../CHANGELOG.md'))).toBe(true);
});
