#!/usr/bin/env bash
# Runs scripts/node/interop.mjs with its npm packages (pinned in
# scripts/node/package-lock.json) installed once into a directory of its own
# outside the repository: $TYPEWARD_NODE_DIR, by default a temp directory
# named after the lockfile's hash. Tests call it through
# internal/jstest; `make test` and .ci/run need only node and npm.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
sum=$(sha256sum "$here/node/package-lock.json" | cut -c1-12)
dir="${TYPEWARD_NODE_DIR:-${TMPDIR:-/tmp}/typeward-node-$sum}"
mkdir -p "$dir"
# Test packages run in parallel processes: one installs, the others wait.
exec 9>"$dir.lock"
flock 9
if [ ! -f "$dir/.installed" ]; then
  cp "$here/node/package.json" "$here/node/package-lock.json" "$dir/"
  npm ci --prefix "$dir" --no-audit --no-fund --loglevel=error >&2
  touch "$dir/.installed"
fi
flock -u 9
# The script is copied next to its node_modules under a name of its own, so
# concurrent runs never read a half-written copy.
script="$dir/interop-$(sha256sum "$here/node/interop.mjs" | cut -c1-12).mjs"
[ -f "$script" ] || { cp "$here/node/interop.mjs" "$script.$$" && mv "$script.$$" "$script"; }
exec node "$script" "$@"
