// Builds dist/ once per jest run when its sources changed, for the projects that read it (package, engine, e2e); parallel builds would collide.
// For the engine and e2e projects it also starts, in the background, the installs that would otherwise hold up the tests
// that need them: the pinned n8n 1.x, and (e2e) the missing system packages (Chromium, Postgres, Redis) in one apt-get.
import path from 'node:path';

import { buildPackageInRepo, FLAVOURS, isBuildCurrent, prefetchRuntime } from '../scripts/runtime';
import { prefetchSystemPackages } from '../scripts/system-programs';

/** Jest calls the set-up once per project that names it, in the same parent process: each step runs once. */
function once(step: string, run: () => void): void {
	const key = `SVC_JEST_SETUP_${step}`;
	if (process.env[key] === String(process.pid)) return;
	run();
	process.env[key] = String(process.pid);
}

export default function buildOnce(
	_globalConfig: unknown,
	projectConfig?: { displayName?: { name?: string } },
): void {
	const project = projectConfig?.displayName?.name ?? '';
	// The n8n 1.x tests wait for it (the install script's lock); its progress goes to this file.
	if (['engine', 'e2e'].includes(project))
		once('N8N_1', () =>
			prefetchRuntime(
				FLAVOURS['n8n-1'],
				path.resolve(__dirname, '../.cache/n8n-runtime-n8n-1.log'),
			),
		);
	// The browser and queue tests start first and need them; apart, their installs took 64 s as a non-root user.
	if (project === 'e2e')
		once('SYSTEM_PACKAGES', () =>
			prefetchSystemPackages(path.resolve(__dirname, '../.cache/system-packages.log')),
		);
	// As `npm start` does: a dist/ built after the last change to its sources is this code's (CI's `npm start` built it).
	once('DIST', () => isBuildCurrent() || buildPackageInRepo());
}
