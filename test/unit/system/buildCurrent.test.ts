// When `npm start` may skip `npm run build`: only while dist/ is newer than every file the build reads.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { isBuildCurrent } from '../../../scripts/runtime';

let root: string;
const at = (seconds: number) => new Date(Date.UTC(2026, 10, 26, 12, 0, seconds));

/** A repository whose every file and folder (dist/ included) was last changed at 12:00:00. */
beforeEach(() => {
	root = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-build-'));
	const files = [
		'nodes/SvcChat/SvcChat.node.ts',
		'nodes/SvcChat/svc.svg',
		'credentials/SvcApi.credentials.ts',
		'tsconfig.json',
		'gulpfile.js',
		'dist/nodes/SvcChat/SvcChat.node.js',
	];
	for (const file of files) {
		fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
		fs.writeFileSync(path.join(root, file), '');
	}
	const entries = fs.readdirSync(root, { recursive: true, encoding: 'utf8' });
	for (const entry of entries) fs.utimesSync(path.join(root, entry), at(0), at(0));
	fs.utimesSync(path.join(root, 'dist'), at(1), at(1));
});

afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

test('dist/ built after the last change of every source: current', () => {
	expect(isBuildCurrent(root)).toBe(true);
});

test.each([
	'nodes/SvcChat/SvcChat.node.ts',
	'nodes/SvcChat/svc.svg',
	'credentials/SvcApi.credentials.ts',
	'tsconfig.json',
	'gulpfile.js',
	// A folder changes as a file comes or goes: a deleted node must not stay in dist/.
	'nodes/SvcChat',
])('%s changed after dist/ was built: not current', (changed) => {
	fs.utimesSync(path.join(root, changed), at(2), at(2));
	expect(isBuildCurrent(root)).toBe(false);
});

test('no dist/: not current', () => {
	fs.rmSync(path.join(root, 'dist'), { recursive: true });
	expect(isBuildCurrent(root)).toBe(false);
});
