#!/usr/bin/env bash
# Makes what the browser test needs: Debian's chromium (installed with apt
# when /usr/bin/chromium is missing; never a downloaded browser) and, in the
# directory given as $1, the npm packages oauth4webapi and playwright-core
# at the versions package-lock.json pins (npm ci). Run by .ci/run and by the Go test.
set -euo pipefail
dir="${1:?usage: install.sh DIR}"
here="$(cd "$(dirname "$0")" && pwd)"
if [ ! -x /usr/bin/chromium ]; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "install.sh: /usr/bin/chromium is missing and this user cannot apt-get install it" >&2
    exit 3
  fi
fi
mkdir -p "$dir"
cp "$here/package.json" "$here/package-lock.json" "$dir/"
if [ ! -f "$dir/node_modules/.typeward-installed" ] || ! cmp -s "$here/package-lock.json" "$dir/node_modules/.typeward-installed"; then
  # PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: playwright-core never downloads one, but be explicit.
  (cd "$dir" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --silent)
  cp "$here/package-lock.json" "$dir/node_modules/.typeward-installed"
fi
