// Builds the package once per jest run for the projects that read dist/ (package, e2e); parallel builds would collide.
// For the e2e project it also starts, in the background, the installs that would otherwise hold up the tests that need them:
// the pinned n8n 1.x, and the missing system packages (Chromium, Postgres, Redis) in one apt-get.
import path from 'node:path';

import { buildPackageInRepo, FLAVOURS, prefetchRuntime } from '../scripts/runtime';
import { prefetchSystemPackages } from '../scripts/system-programs';

export default function buildOnce(
	_globalConfig: unknown,
	projectConfig?: { displayName?: { name?: string } },
): void {
	if (projectConfig?.displayName?.name === 'e2e') {
		// The n8n 1.x test waits for it (the install script's lock); its progress goes to this file.
		prefetchRuntime(FLAVOURS['n8n-1'], path.resolve(__dirname, '../.cache/n8n-runtime-n8n-1.log'));
		// The browser and queue tests start first and need them; apart, their installs took 64 s as a non-root user.
		prefetchSystemPackages(path.resolve(__dirname, '../.cache/system-packages.log'));
	}
	// Jest calls this once per project that needs it, in the same parent process.
	if (process.env.SVC_DIST_BUILT_BY_JEST === String(process.pid)) return;
	buildPackageInRepo();
	process.env.SVC_DIST_BUILT_BY_JEST = String(process.pid);
}
