#!/usr/bin/env bash
# Installs Debian's Chromium for the console's browser tests when /usr/bin/chromium is missing (root, or sudo).
# Used by .ci/run and, on first use, by testkit/browser.ts, so `bun run test` needs nothing installed by hand.
set -euo pipefail
[ -x /usr/bin/chromium ] && exit 0
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "installing chromium (Debian) for the browser tests" >&2
$SUDO apt-get -q -o DPkg::Lock::Timeout=600 update >&2
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get -q -o DPkg::Lock::Timeout=600 install -y --no-install-recommends chromium >&2
