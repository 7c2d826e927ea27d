// Jest runs every layer as its own project: unit (nock), sandbox, integration, hardening, package and real-n8n e2e.
// Only the projects that read dist/ (package, e2e) build it, so `npm run test:unit` is a fast loop.
const shared = {
	testEnvironment: 'node',
	testMatch: ['**/*.test.ts'],
	transform: { '^.+\\.ts$': ['@swc/jest'] },
	// nock's interceptors keep module-level state; Jest 30's global clean-up between files would break it.
	testEnvironmentOptions: { globalsCleanup: 'off' },
};
const project = (name, extra = {}) => ({
	...shared,
	displayName: name,
	roots: [`<rootDir>/test/${name}`],
	...extra,
});
const needsDist = { globalSetup: '<rootDir>/test/global-setup.ts' };
// The one nock set-up, for the projects whose tests use nock.
const usesNock = { setupFilesAfterEnv: ['<rootDir>/test/harness/nockSetup.ts'] };

/** @type {import('jest').Config} */
module.exports = {
	testTimeout: 30_000,
	// The longest files first, and the n8n 1.x files once their runtime can be installed (see the file).
	testSequencer: '<rootDir>/test/sequencer.js',
	// Three workers on 2 cores: the e2e files mostly wait for n8n and the sandbox (a whole run kept about 1.6 of the 2
	// cores busy with three), so a third shortens the run; a fourth made a fresh clone's run slower (the n8n 1.x install
	// beside the tests starved) and n8n's polls late. The sequencer gives each the longest file it may start.
	maxWorkers: 3,
	projects: [
		project('unit', usesNock),
		project('sandbox'),
		project('integration', usesNock),
		project('hardening'),
		project('package', needsDist),
		project('engine', needsDist),
		project('e2e', needsDist),
	],
};
