// Runs n8n's community-package scanner offline, with its own rules and both of its legs, and prints JSON results.
// The published CLI downloads the package and its attested source from the network; here the source leg lints this
// checkout (what the provenance commit would hold) and the tarball leg the unpacked `npm pack` output.
import {
	analyzePackage,
	SOURCE_FILE_PATTERNS,
} from '@n8n/scan-community-package/scanner/scanner.mjs';

const [sourceDir, packageDir, canaryDir] = process.argv.slice(2);
const results = {
	source: await analyzePackage(sourceDir, SOURCE_FILE_PATTERNS),
	tarball: await analyzePackage(packageDir, ['**/*.js', 'package.json']),
	// A package with a known violation: proves the scanner really lints (a scanner that finds nothing passes nothing).
	canary: await analyzePackage(canaryDir, ['**/*.js', 'package.json']),
};
for (const result of Object.values(results)) delete result.error;
process.stdout.write(JSON.stringify(results));
