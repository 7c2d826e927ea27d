// Every relative link and anchor in the README, docs/ and the other READMEs resolves, offline (remark-validate-links).
import { execFileSync } from 'node:child_process';
import {
	existsSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	rmSync,
	writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
/** The repository on GitHub, as package.json names it: links to it are checked against the files here. */
const REPOSITORY = String(pkg.repository.url)
	.replace(/^git\+/, '')
	.replace(/\.git$/, '');
const FILES = [
	'README.md',
	...readdirSync(path.join(ROOT, 'docs'))
		.filter((name) => name.endsWith('.md'))
		.map((name) => `docs/${name}`),
	'examples/README.md',
	'sandbox/README.md',
	'test/README.md',
	'bench/README.md',
];

type Problem = { file: string; line: number; reason: string };

/** The problems remark-validate-links reports for these files of root (its own Node process: remark is ESM). */
function checkLinks(root: string, files: string[]): Problem[] {
	const output = execFileSync(
		process.execPath,
		[path.join(__dirname, 'checkLinks.mjs'), root, REPOSITORY, ...files],
		{ cwd: root, encoding: 'utf8' },
	);
	return JSON.parse(output) as Problem[];
}

/** The targets of the inline links and images of a Markdown text. */
const linkTargets = (markdown: string) =>
	[...markdown.matchAll(/!?\[[^\]]*\]\(([^)\s]+)\)/g)].map((match) => match[1]);

test('every link and anchor of the README, docs/ and the other READMEs resolves', () => {
	for (const file of FILES) expect(existsSync(path.join(ROOT, file))).toBe(true);
	expect(checkLinks(ROOT, FILES)).toEqual([]);
}, 60_000);

test("the README's links work on npm's page: in-page anchors, or absolute links to the repository", () => {
	// npm shows the README without the files around it (docs/ does not ship), so a relative link would lead nowhere.
	const targets = linkTargets(readFileSync(path.join(ROOT, 'README.md'), 'utf8'));
	expect(
		targets.filter((target) => target.startsWith(`${REPOSITORY}/blob/main/docs/`)).length,
	).toBeGreaterThanOrEqual(6);
	expect(targets.filter((target) => !/^(#|https:\/\/)/.test(target))).toEqual([]);
	// Each link into the repository names a file that exists here (its heading is checked by the test above).
	const local = targets
		.filter((target) => target.startsWith(`${REPOSITORY}/blob/main/`))
		.map((target) => target.slice(`${REPOSITORY}/blob/main/`.length).replace(/[?#].*$/, ''));
	expect(local.filter((file) => !existsSync(path.join(ROOT, file)))).toEqual([]);
	expect(pkg.files).toEqual(['dist']);
});

describe('a broken link fails the check', () => {
	let dir: string;
	beforeAll(() => {
		dir = mkdtempSync(path.join(os.tmpdir(), 'svc-links-'));
		mkdirSync(path.join(dir, 'docs'));
		writeFileSync(path.join(dir, 'docs/page.md'), '# Page\n\n## A rule\n\nText.\n');
		writeFileSync(
			path.join(dir, 'README.md'),
			[
				'# Readme',
				'',
				'## Here',
				'',
				'[fine](docs/page.md#a-rule) [fine too](#here)',
				`[fine on GitHub](${REPOSITORY}/blob/main/docs/page.md#a-rule)`,
				'[no file](docs/missing.md)',
				'[no heading](docs/page.md#no-such-rule)',
				'[no anchor here](#nowhere)',
				`[no heading on GitHub](${REPOSITORY}/blob/main/docs/page.md#gone)`,
				'',
			].join('\n'),
		);
	});
	afterAll(() => rmSync(dir, { recursive: true, force: true }));

	test('a missing file, a missing heading in another file or in the same one, also through a GitHub URL', () => {
		const problems = checkLinks(dir, ['README.md', 'docs/page.md']);
		expect(problems.map(({ line, reason }) => ({ line, reason }))).toEqual(
			expect.arrayContaining([
				{ line: 7, reason: 'Cannot find file `docs/missing.md`' },
				{ line: 8, reason: 'Cannot find heading for `#no-such-rule` in `docs/page.md`' },
				{ line: 9, reason: 'Cannot find heading for `#nowhere`' },
				{ line: 10, reason: 'Cannot find heading for `#gone` in `docs/page.md`' },
			]),
		);
		expect(problems).toHaveLength(4);
	}, 60_000);
});
