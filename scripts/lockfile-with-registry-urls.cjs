// Adds each package's tarball address on the configured registry to a copied lockfile, so npm skips the metadata round trips.
// Why: lockfiles here have no "resolved" addresses (omit-lockfile-registry-resolved), so npm downloads each package's whole
// metadata (megabytes for some) just to find its tarball, whose address follows from registry, name and version. The
// lockfile's integrity hash still checks every byte.
// Usage: node lockfile-with-registry-urls.cjs <package-lock.json> <registry URL>
const fs = require('node:fs');

const [lockfilePath, registryArgument] = process.argv.slice(2);
const registry = registryArgument.replace(/\/+$/, '');
const lockfile = JSON.parse(fs.readFileSync(lockfilePath, 'utf8'));
let added = 0;
for (const [location, entry] of Object.entries(lockfile.packages ?? {})) {
	if (!location || entry.resolved || entry.link || entry.inBundle) continue;
	if (!entry.version || !entry.integrity) continue;
	// An aliased package ("x": "npm:y@1") records its real name; otherwise the name is the path after node_modules/.
	const name =
		entry.name ?? location.slice(location.lastIndexOf('node_modules/') + 'node_modules/'.length);
	const file = `${name.split('/').pop()}-${entry.version}.tgz`;
	entry.resolved = `${registry}/${name}/-/${file}`;
	added++;
}
fs.writeFileSync(lockfilePath, JSON.stringify(lockfile, null, 2));
console.log(added);
