// The benchmarks' own comparisons, at unit speed on a small input: a change that breaks one (a field renamed, a rule
// changed) fails here, in `npm test`, and not only in a bench run minutes long.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import type { IDataObject } from 'n8n-workflow';

import { codeIn, extractBase, LAST_RELEASE, ROOT, sameAsRelease } from '../../../bench/p5-release';
import { DEFAULT_SETTINGS, SandboxState } from '../../../sandbox/state';

/** 60 seeded chats (every kind of message, visitor and state the sandbox makes), as /chats lists them. */
const chats = new SandboxState({
	seed: 1,
	chats: 60,
	admin: { email: 'admin@svc.test', password: 'x' },
	now: () => new Date('2026-01-15T12:00:00Z'),
	settings: DEFAULT_SETTINGS,
}).chatsSince(0).chats;

test("P5: this tree's Simplified records are the release's, plus the response times", async () => {
	const release = await codeIn(extractBase(LAST_RELEASE));
	const current = await codeIn(ROOT);
	const check = sameAsRelease(release.simplify(chats));
	expect(() => check('current', current.simplify(chats))).not.toThrow();
	// And it catches a change: a field renamed is another record.
	const renamed = current
		.simplify(chats)
		.map(({ category, ...rest }): IDataObject => ({ ...rest, kind: category }));
	expect(() => check('current', renamed)).toThrow(/other records than the release \(60 of 60\)/);
}, 60_000);

test("P2's base package: what a base commit lacks in .cache is taken from git at that commit, beside what is there", () => {
	const dir = extractBase(LAST_RELEASE);
	const withManifest = extractBase(LAST_RELEASE, ['nodes', 'package.json']);
	expect(withManifest).toBe(dir);
	const manifest = fs.readFileSync(path.join(dir, 'package.json'), 'utf8');
	const atCommit = execFileSync('git', ['show', `${LAST_RELEASE}:package.json`], {
		cwd: ROOT,
		encoding: 'utf8',
	});
	expect(manifest).toBe(atCommit);
	expect(fs.existsSync(path.join(dir, 'nodes/SvcChat/SvcChat.node.ts'))).toBe(true);
});
