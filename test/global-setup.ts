// Builds the package once per jest run for the projects that read dist/ (package, e2e); parallel builds would collide.
import { execFileSync } from 'node:child_process';
import path from 'node:path';

export default function buildOnce(): void {
	// Jest calls this once per project that needs it, in the same parent process.
	if (process.env.SVC_DIST_BUILT_BY_JEST === String(process.pid)) return;
	execFileSync('npm', ['run', '--silent', 'build'], { cwd: path.resolve(__dirname, '..'), stdio: 'inherit' });
	process.env.SVC_DIST_BUILT_BY_JEST = String(process.pid);
}
