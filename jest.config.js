// Jest runs every layer: unit (nock), sandbox integration and real-n8n end-to-end; @swc/jest compiles TypeScript.
/** @type {import('jest').Config} */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	transform: { '^.+\\.ts$': ['@swc/jest'] },
	globalSetup: '<rootDir>/test/global-setup.ts',
	testTimeout: 30_000,
	// nock's interceptors keep module-level state; Jest 30's global clean-up between files would break it.
	testEnvironmentOptions: { globalsCleanup: 'off' },
	// The e2e suite shares one n8n runtime; the rest is fast enough that two workers suffice on 2 cores.
	maxWorkers: 2,
};
