// Finds the programs the e2e tests run (a browser, Postgres, Redis) on Debian, Ubuntu or GitHub's runners; installs Debian packages where that is the way.
import fs from 'node:fs';
import path from 'node:path';

import execa from 'execa';

import { startInBackground } from './processes';

const isExecutable = (file: string): boolean => {
	try {
		fs.accessSync(file, fs.constants.X_OK);
		return fs.statSync(file).isFile();
	} catch {
		return false;
	}
};

const INSTALL_SCRIPT = path.join(__dirname, 'system-packages.sh');

/** What `find` finds, else after system-packages.sh installs `debianPackage`; else throws with the command to run, never skips. */
function findOrInstall<T>(debianPackage: string, find: () => T | undefined): T {
	const found = find();
	if (found !== undefined) return found;
	const result = execa.sync('bash', [INSTALL_SCRIPT, debianPackage], {
		stdio: ['ignore', 'inherit', 'pipe'],
		stripFinalNewline: false,
		reject: false,
	});
	process.stderr.write(result.stderr);
	if (result.exitCode !== 0) {
		const reason = result.stderr.trim().split('\n').pop() ?? `exit ${result.exitCode}`;
		throw new Error(`A needed system package is missing (${debianPackage}): ${reason}`);
	}
	const installed = find();
	if (installed === undefined) throw new Error(`${debianPackage} is installed, yet not found`);
	return installed;
}

const pathDirs = () => (process.env.PATH ?? '').split(path.delimiter).filter(Boolean);

/** The first of `folders` that holds every one of `programs`, each by its path. */
function findAll(programs: readonly string[], folders: string[], exists = isExecutable) {
	const folder = folders.find((dir) => programs.every((name) => exists(path.join(dir, name))));
	return folder === undefined
		? undefined
		: Object.fromEntries(programs.map((name) => [name, path.join(folder, name)]));
}

const BROWSER_VARIABLE = 'SVC_CHROME_PATH';
/** Debian's chromium; Ubuntu's and GitHub's runners' chromium-browser; Google Chrome under both of its names. */
export const BROWSER_PATHS = [
	'/usr/bin/chromium',
	'/usr/bin/chromium-browser',
	'/usr/bin/google-chrome',
	'/usr/bin/google-chrome-stable',
];

/**
 * Which Chromium or Chrome to drive: the variable when set, else the first of BROWSER_PATHS that exists. Only on
 * Debian does a missing browser mean "install chromium": Ubuntu's chromium package is a snap wrapper that does not
 * run in containers, and other systems name their packages differently.
 */
export function chooseBrowser(
	variable: string | undefined,
	exists: (file: string) => boolean,
	osRelease: string,
): { found: string } | { install: 'chromium' } | { missing: string } {
	if (variable) {
		return exists(variable)
			? { found: variable }
			: { missing: `${BROWSER_VARIABLE}=${variable} is not an executable file.` };
	}
	const found = BROWSER_PATHS.find(exists);
	if (found) return { found };
	// The ID line of /etc/os-release, quoted or not (ID_LIKE=debian does not make Ubuntu Debian).
	if (/^ID=\s*["']?debian["']?\s*$/m.test(osRelease)) return { install: 'chromium' };
	return {
		missing:
			`No Chromium or Chrome at ${BROWSER_PATHS.join(', ')}. Install Google Chrome (the google-chrome-stable ` +
			`package), or set ${BROWSER_VARIABLE} to a Chromium or Chrome executable.`,
	};
}

function browserChoice() {
	const osRelease = fs.existsSync('/etc/os-release')
		? fs.readFileSync('/etc/os-release', 'utf8')
		: '';
	return chooseBrowser(process.env[BROWSER_VARIABLE], isExecutable, osRelease);
}

/** The browser's executable; installs Debian's chromium when that is the way, else throws saying what to provide. */
export function browserExecutable(): string {
	const choice = browserChoice();
	if ('missing' in choice) throw new Error(choice.missing);
	if ('found' in choice) return choice.found;
	return findOrInstall(choice.install, () => BROWSER_PATHS.find(isExecutable));
}

/** The Postgres programs the queue-mode tests run; Debian and Ubuntu keep them in one versioned folder, off PATH. */
const POSTGRES_PROGRAMS = ['initdb', 'postgres'] as const;
const POSTGRES_ROOT = '/usr/lib/postgresql';

/** The Postgres programs in `/usr/lib/postgresql/<version>/bin` (`versions`, newest first), else in the PATH folders. */
export function findPostgresPrograms(
	versions: string[],
	pathFolders: string[],
	exists: (file: string) => boolean,
) {
	const versioned = versions
		.filter((name) => /^\d+(\.\d+)?$/.test(name))
		.sort((a, b) => b.localeCompare(a, 'en', { numeric: true })) // 16 before 15 before 9.6
		.map((version) => path.join(POSTGRES_ROOT, version, 'bin'));
	return findAll(POSTGRES_PROGRAMS, [...versioned, ...pathFolders], exists);
}

const findPostgres = () => {
	const versions = fs.existsSync(POSTGRES_ROOT) ? fs.readdirSync(POSTGRES_ROOT) : [];
	return findPostgresPrograms(versions, pathDirs(), isExecutable);
};
export const postgresPrograms = () => findOrInstall('postgresql', findPostgres);

const findRedis = () => findAll(['redis-server'], pathDirs())?.['redis-server'];
export const redisServer = (): string => findOrInstall('redis-server', findRedis);

/**
 * One apt-get in the background (jest's e2e set-up) for every package the calls above would install; a test that needs
 * one waits for it (the script's lock), then installs it itself, or says what to run, if it failed.
 */
export function prefetchSystemPackages(logFile: string): void {
	const browser = browserChoice();
	const missing = [
		...('install' in browser ? [browser.install] : []),
		...(findPostgres() ? [] : ['postgresql']),
		...(findRedis() ? [] : ['redis-server']),
	];
	if (missing.length) startInBackground([INSTALL_SCRIPT, ...missing], logFile);
}
