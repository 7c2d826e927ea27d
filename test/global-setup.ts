// Builds the package once before any test file runs: the package and e2e tests read dist/, and parallel builds would collide.
import { execFileSync } from 'node:child_process';
import path from 'node:path';

export default function buildOnce(): void {
	execFileSync('npm', ['run', '--silent', 'build'], { cwd: path.resolve(__dirname, '..'), stdio: 'inherit' });
}
