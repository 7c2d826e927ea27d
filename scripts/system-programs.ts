// Finds the programs the e2e tests run (a browser, Postgres, Redis) on Debian, Ubuntu or GitHub's runners; installs Debian packages where that is the way.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** Installs missing Debian packages via system-packages.sh (as root or through passwordless sudo), or throws with the command a person must run; never skips silently. */
function ensureSystemPackages(packages: string[]): void {
	const result = spawnSync('bash', [path.join(__dirname, 'system-packages.sh'), ...packages], {
		stdio: ['ignore', 'inherit', 'pipe'],
		encoding: 'utf8',
	});
	process.stderr.write(result.stderr ?? '');
	if (result.status !== 0) {
		const reason = (result.stderr ?? '').trim().split('\n').pop() ?? `exit ${result.status}`;
		throw new Error(`Needed system packages are missing (${packages.join(', ')}): ${reason}`);
	}
}

const isExecutable = (file: string): boolean => {
	try {
		fs.accessSync(file, fs.constants.X_OK);
		return fs.statSync(file).isFile();
	} catch {
		return false;
	}
};

const pathDirs = (): string[] => (process.env.PATH ?? '').split(path.delimiter).filter(Boolean);

/** The first folder that holds every one of `programs`, or undefined. */
function firstFolderWithAll(
	folders: string[],
	programs: readonly string[],
	exists: (file: string) => boolean,
): string | undefined {
	return folders.find((folder) => programs.every((name) => exists(path.join(folder, name))));
}

// ---------------------------------------------------------------------------------------------------------------
// The browser

const BROWSER_VARIABLE = 'SVC_CHROME_PATH';
/** Debian's chromium; Ubuntu's and GitHub's runners' chromium-browser; Google Chrome under both of its names. */
export const BROWSER_PATHS = [
	'/usr/bin/chromium',
	'/usr/bin/chromium-browser',
	'/usr/bin/google-chrome',
	'/usr/bin/google-chrome-stable',
];

export type BrowserChoice = { found: string } | { install: 'chromium' } | { missing: string };

/** The ID line of /etc/os-release ("debian", "ubuntu"…), or '' when there is none. */
export function osId(osRelease: string): string {
	const line = /^ID=(.*)$/m.exec(osRelease)?.[1] ?? '';
	return line.trim().replace(/^["']|["']$/g, '');
}

/**
 * Which Chromium or Chrome to drive: the variable when set, else the first of BROWSER_PATHS that exists. Only on
 * Debian does a missing browser mean "install chromium": Ubuntu's chromium package is a snap wrapper that does not
 * run in containers, and other systems name their packages differently.
 */
export function chooseBrowser(
	variable: string | undefined,
	exists: (file: string) => boolean,
	osRelease: string,
): BrowserChoice {
	if (variable) {
		return exists(variable)
			? { found: variable }
			: { missing: `${BROWSER_VARIABLE}=${variable} is not an executable file.` };
	}
	const found = BROWSER_PATHS.find(exists);
	if (found) return { found };
	if (osId(osRelease) === 'debian') return { install: 'chromium' };
	return {
		missing:
			`No Chromium or Chrome at ${BROWSER_PATHS.join(', ')}. Install Google Chrome (the google-chrome-stable ` +
			`package), or set ${BROWSER_VARIABLE} to a Chromium or Chrome executable.`,
	};
}

/** The browser's executable; installs Debian's chromium when that is the way, else throws saying what to provide. */
export function browserExecutable(): string {
	const readOsRelease = () =>
		fs.existsSync('/etc/os-release') ? fs.readFileSync('/etc/os-release', 'utf8') : '';
	const choose = () => chooseBrowser(process.env[BROWSER_VARIABLE], isExecutable, readOsRelease());
	let choice = choose();
	if ('install' in choice) {
		ensureSystemPackages([choice.install]);
		choice = choose();
	}
	if ('found' in choice) return choice.found;
	throw new Error('install' in choice ? 'chromium is missing after installing it' : choice.missing);
}

// ---------------------------------------------------------------------------------------------------------------
// Postgres and Redis

/** The Postgres programs the queue-mode tests run; Debian and Ubuntu keep them in one versioned folder, off PATH. */
const POSTGRES_PROGRAMS = ['initdb', 'postgres', 'pg_isready', 'createdb'] as const;
const POSTGRES_ROOT = '/usr/lib/postgresql';

export type PostgresPrograms = Record<(typeof POSTGRES_PROGRAMS)[number], string>;

/**
 * Where the Postgres programs are: `/usr/lib/postgresql/<version>/bin`, newest version first, then the PATH folders.
 * `versions` is the listing of POSTGRES_ROOT (empty when it does not exist).
 */
export function findPostgresPrograms(
	versions: string[],
	pathFolders: string[],
	exists: (file: string) => boolean,
): PostgresPrograms | undefined {
	const versioned = versions
		.filter((name) => /^\d+(\.\d+)?$/.test(name))
		.sort((a, b) => b.localeCompare(a, 'en', { numeric: true })) // 16 before 15 before 9.6
		.map((version) => path.join(POSTGRES_ROOT, version, 'bin'));
	const folder = firstFolderWithAll([...versioned, ...pathFolders], POSTGRES_PROGRAMS, exists);
	if (!folder) return undefined;
	return Object.fromEntries(
		POSTGRES_PROGRAMS.map((name) => [name, path.join(folder, name)]),
	) as PostgresPrograms;
}

/** Finds a program with `find`; when it is not there, installs the Debian package and looks again, else throws. */
function findOrInstall<T>(what: string, debianPackage: string, find: () => T | undefined): T {
	const found = find();
	if (found !== undefined) return found;
	ensureSystemPackages([debianPackage]);
	const installed = find();
	if (installed === undefined)
		throw new Error(`${what} is not found even after installing ${debianPackage}`);
	return installed;
}

export function postgresPrograms(): PostgresPrograms {
	return findOrInstall('Postgres (initdb, postgres)', 'postgresql', () =>
		findPostgresPrograms(
			fs.existsSync(POSTGRES_ROOT) ? fs.readdirSync(POSTGRES_ROOT) : [],
			pathDirs(),
			isExecutable,
		),
	);
}

export function redisServer(): string {
	return findOrInstall('redis-server', 'redis-server', () => {
		const folder = firstFolderWithAll(pathDirs(), ['redis-server'], isExecutable);
		return folder && path.join(folder, 'redis-server');
	});
}
