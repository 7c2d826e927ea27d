// Where the e2e tests find a browser and Postgres, with the file system injected: Debian, Ubuntu and GitHub's runners alike.
import {
	BROWSER_PATHS,
	chooseBrowser,
	findPostgresPrograms,
} from '../../../scripts/system-programs';

const DEBIAN = 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nNAME="Debian GNU/Linux"\nID=debian\n';
const UBUNTU = 'NAME="Ubuntu"\nVERSION_ID="24.04"\nID=ubuntu\nID_LIKE=debian\n';

const only =
	(...files: string[]) =>
	(file: string) =>
		files.includes(file);

describe('chooseBrowser', () => {
	test('SVC_CHROME_PATH comes first, before every usual path', () => {
		expect(
			chooseBrowser('/opt/chrome/chrome', only('/opt/chrome/chrome', ...BROWSER_PATHS), UBUNTU),
		).toEqual({
			found: '/opt/chrome/chrome',
		});
	});

	test('an SVC_CHROME_PATH that is not there fails and names it, though a usual path exists', () => {
		const choice = chooseBrowser('/opt/nothing', only(...BROWSER_PATHS), DEBIAN);
		expect(choice).toEqual({ missing: expect.stringContaining('SVC_CHROME_PATH=/opt/nothing') });
	});

	test('without the variable: chromium, chromium-browser, google-chrome, google-chrome-stable, in that order', () => {
		const order = [
			'/usr/bin/chromium',
			'/usr/bin/chromium-browser',
			'/usr/bin/google-chrome',
			'/usr/bin/google-chrome-stable',
		];
		order.forEach((expected, index) => {
			expect(chooseBrowser(undefined, only(...order.slice(index)), UBUNTU)).toEqual({
				found: expected,
			});
		});
		expect(chooseBrowser('', only('/usr/bin/google-chrome-stable'), UBUNTU)).toEqual({
			found: '/usr/bin/google-chrome-stable',
		});
	});

	test("on Debian with no browser, Debian's chromium is to be installed", () => {
		expect(chooseBrowser(undefined, only(), DEBIAN)).toEqual({ install: 'chromium' });
	});

	test('on Ubuntu (or an unknown system) with no browser, it fails naming the package and the variable', () => {
		for (const osRelease of [UBUNTU, '']) {
			const choice = chooseBrowser(undefined, only(), osRelease);
			expect(choice).toEqual({ missing: expect.stringContaining('google-chrome-stable') });
			expect(choice).toEqual({ missing: expect.stringContaining('SVC_CHROME_PATH') });
		}
	});

	test('os-release: the ID, quoted or not; ID_LIKE=debian does not make Ubuntu Debian', () => {
		const choice = (osRelease: string) => chooseBrowser(undefined, only(), osRelease);
		for (const debian of [DEBIAN, 'ID="debian"\n', "ID='debian'", 'NAME=x\nID=debian  \n'])
			expect(choice(debian)).toEqual({ install: 'chromium' });
		for (const other of [UBUNTU, 'ID="rhel"\n', 'ID=debian-like\n', 'ID_LIKE=debian\n', ''])
			expect(choice(other)).toEqual({ missing: expect.stringContaining('SVC_CHROME_PATH') });
	});
});

describe('findPostgresPrograms', () => {
	const programs = ['initdb', 'postgres'];
	const installedIn = (...folders: string[]) =>
		only(...folders.flatMap((folder) => programs.map((name) => `${folder}/${name}`)));

	test('the newest version under /usr/lib/postgresql wins, by number (16 before 9.6), not by name', () => {
		const found = findPostgresPrograms(
			['9.6', '15', '16', '.keep'],
			['/usr/bin'],
			installedIn(
				'/usr/lib/postgresql/9.6/bin',
				'/usr/lib/postgresql/15/bin',
				'/usr/lib/postgresql/16/bin',
			),
		);
		expect(found).toEqual({
			initdb: '/usr/lib/postgresql/16/bin/initdb',
			postgres: '/usr/lib/postgresql/16/bin/postgres',
		});
	});

	test('a version folder without the server programs (client only) is passed over', () => {
		const found = findPostgresPrograms(
			['15', '17'],
			[],
			only(
				'/usr/lib/postgresql/17/bin/pg_isready',
				'/usr/lib/postgresql/17/bin/createdb',
				...programs.map((name) => `/usr/lib/postgresql/15/bin/${name}`),
			),
		);
		expect(found?.initdb).toBe('/usr/lib/postgresql/15/bin/initdb');
	});

	test('else the first PATH folder that has them all (Ubuntu puts only wrappers in /usr/bin)', () => {
		const found = findPostgresPrograms(
			[],
			['/usr/bin', '/opt/pg/bin', '/usr/local/bin'],
			only(
				'/usr/bin/pg_isready',
				'/usr/bin/createdb',
				...programs.map((name) => `/opt/pg/bin/${name}`),
				...programs.map((name) => `/usr/local/bin/${name}`),
			),
		);
		expect(found?.postgres).toBe('/opt/pg/bin/postgres');
	});

	test('nowhere: undefined, so the caller installs the package or says so', () => {
		expect(findPostgresPrograms(['16'], ['/usr/bin'], only('/usr/bin/pg_isready'))).toBeUndefined();
	});
});
