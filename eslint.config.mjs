// Lint: n8n's community-node rules for the shipped code (credentials/, nodes/); TypeScript's recommended rules for the tooling.
import { config as n8nCommunityNodeConfig } from '@n8n/node-cli/eslint';
import tseslint from 'typescript-eslint';
import globals from 'globals';

// Sandbox, tests, benchmarks and scripts run in Node, not in n8n: they may use process, fs and timers.
const toolingFolders = ['sandbox/**', 'test/**', 'bench/**', 'scripts/**'];

export default [
	{
		ignores: [
			'dist/**',
			'node_modules/**',
			'.cache/**',
			'coverage/**',
			'**/*.js',
			'**/*.cjs',
			'**/*.mjs',
		],
	},
	...n8nCommunityNodeConfig.map((block) =>
		block.files?.includes('**/*.ts')
			? { ...block, ignores: [...(block.ignores ?? []), ...toolingFolders] }
			: block,
	),
	...tseslint.configs.recommended.map((block) => ({
		...block,
		files: toolingFolders.map((f) => `${f.replace('/**', '')}/**/*.ts`),
	})),
	{
		files: toolingFolders.map((f) => `${f.replace('/**', '')}/**/*.ts`),
		languageOptions: { globals: { ...globals.node, ...globals.jest } },
	},
];
