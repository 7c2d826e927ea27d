// Test and demo set-up: makes sure Debian packages (chromium, postgresql, redis-server…) are installed, via system-packages.sh.
import { spawnSync } from 'node:child_process';
import path from 'node:path';

/** Installs what is missing (as root or through passwordless sudo) or throws with the command a person must run; never skips silently. */
export function ensureSystemPackages(packages: string[]): void {
	const script = path.join(__dirname, 'system-packages.sh');
	const result = spawnSync('bash', [script, ...packages], {
		stdio: ['ignore', 'inherit', 'pipe'],
		encoding: 'utf8',
	});
	process.stderr.write(result.stderr ?? '');
	if (result.status !== 0) {
		const reason = (result.stderr ?? '').trim().split('\n').pop() ?? `exit ${result.status}`;
		throw new Error(`Needed system packages are missing (${packages.join(', ')}): ${reason}`);
	}
}
