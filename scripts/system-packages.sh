#!/usr/bin/env bash
# Makes sure the Debian packages a test needs (chromium, postgresql, redis-server…) are installed, or says how to get them:
# as root or with passwordless sudo (GitHub's runners), `apt-get update` once per machine, then `apt-get install -y`;
# otherwise exit 1 with the exact command a person should run. Never a silent skip.
set -euo pipefail
[ "$#" -gt 0 ] || { echo "usage: scripts/system-packages.sh PACKAGE…" >&2; exit 2; }

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }
# Sets `missing` to the packages named that are not installed; `how` says how a person installs them.
find_missing() { missing=(); for package in "$@"; do installed "$package" || missing+=("$package"); done; }
how() { echo "sudo apt-get update && sudo apt-get install -y ${missing[*]}"; }
find_missing "$@"
[ "${#missing[@]}" -eq 0 ] && exit 0

command -v apt-get >/dev/null || { echo "Missing system packages: ${missing[*]}. This is not a Debian system; install them with your package manager." >&2; exit 1; }
as_root=()
if [ "$(id -u)" -ne 0 ]; then
	sudo -n true 2>/dev/null || { echo "Missing system packages: ${missing[*]}. Install them with: $(how)" >&2; exit 1; }
	as_root=(sudo -n)
fi

# One install at a time per machine (parallel jest workers, any user): the lock file is writable by all and opened
# read-only, which flock needs and which works whoever created it.
lock="${SVC_APT_LOCK:-/tmp/n8n-nodes-svc-apt.lock}"
[ -e "$lock" ] || (umask 000 && : >>"$lock") 2>/dev/null || true
exec 9<"$lock"
flock -n 9 || { echo "[system packages] waiting for the install already under way" >&2; flock 9; }
# That install (jest's e2e set-up installs every missing one in the background) may have installed these meanwhile.
find_missing "${missing[@]}"
[ "${#missing[@]}" -eq 0 ] && exit 0
started=$SECONDS
# The package lists are fetched once per machine. (The script's own test points the lock and this marker elsewhere.)
lists_marker="${SVC_APT_UPDATED_MARKER:-/var/lib/apt/lists/.n8n-nodes-svc-updated}"
if [ ! -f "$lists_marker" ]; then
	echo "[system packages] apt-get update (once)" >&2
	"${as_root[@]}" apt-get update -qq >&2 || { echo "apt-get update failed; run: $(how)" >&2; exit 1; }
	"${as_root[@]}" touch "$lists_marker"
fi
echo "[system packages] installing ${missing[*]}" >&2
# env, not an exported variable: sudo resets the environment.
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2 \
	|| { echo "apt-get install failed; run: $(how)" >&2; exit 1; }
echo "[system packages] installed ${missing[*]} in $((SECONDS - started)) s" >&2
