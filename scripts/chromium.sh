#!/usr/bin/env bash
# chromium.sh - print the path of a Chromium that runs headless, installing
# Debian's `chromium` package first when none is found and we are root.
#
# Usage: scripts/chromium.sh            # prints e.g. /usr/bin/chromium
#
# Looks at $CHROMIUM, then chromium, chromium-browser, google-chrome on PATH.
# The installation is serialised with a lock file, so parallel callers (test
# threads) wait for one apt-get instead of fighting over dpkg's lock. Only
# the path goes to stdout; apt's messages go to stderr.
set -euo pipefail

find_browser() {
    local c
    for c in "${CHROMIUM:-}" chromium chromium-browser google-chrome; do
        [ -n "$c" ] || continue
        if command -v "$c" >/dev/null 2>&1; then
            command -v "$c"
            return 0
        fi
    done
    return 1
}

if find_browser; then
    exit 0
fi
if [ "$(id -u)" != 0 ]; then
    echo "chromium.sh: no Chromium found and not root: install Debian's 'chromium' package" >&2
    exit 1
fi
exec 9>/tmp/netsim-chromium-install.lock
flock 9
if ! find_browser >/dev/null; then
    echo "chromium.sh: installing Debian's chromium package" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    apt-get install -y -qq --no-install-recommends chromium >&2
fi
find_browser
