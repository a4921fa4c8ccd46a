#!/usr/bin/env bash
# One-time (and idempotent) set-up of a fresh Debian/Ubuntu machine for nightshift:
# system packages (Chromium and its headless shell for the evaluator, bubblewrap for the bash sandbox, Redis, git),
# then the npm dependencies and the example apps' package cache. Safe to run again: it only installs what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v chromium >/dev/null 2>&1 || [ -x "${NIGHTSHIFT_CHROMIUM:-/usr/bin/chromium}" ] || need+=(chromium)
# The workers' default browser (workers/chromium-path.ts); the full Chromium above serves the dashboard tests and is
# the workers' fallback where the archive has no headless shell (so its install may fail without failing the set-up).
want=()
[ -n "${NIGHTSHIFT_CHROMIUM:-}" ] || [ -x /usr/lib/chromium/chromium-headless-shell ] || want+=(chromium-headless-shell)
# The process helper that starts harness git runs on Python 3 where it is installed (core/spawn-helper-programs.ts).
[ -x /usr/bin/python3 ] || [ -x /usr/local/bin/python3 ] || want+=(python3)
command -v bwrap >/dev/null 2>&1 || need+=(bubblewrap)
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
command -v git >/dev/null 2>&1 || need+=(git)
if [ ${#need[@]} -gt 0 ] || [ ${#want[@]} -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
  echo "setup: installing ${need[*]} ${want[*]} with apt-get" >&2
  $SUDO apt-get update -qq
  if [ ${#need[@]} -gt 0 ]; then DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null; fi
  if [ ${#want[@]} -gt 0 ]; then
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${want[@]}" >/dev/null ||
      echo "setup: ${want[*]} could not be installed; the workers use /usr/bin/chromium and the Node process helper" >&2
  fi
fi

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: installing npm dependencies" >&2
  npm ci --no-audit --no-fund --loglevel=error
fi
# The example apps' npm packages, cached for a registry on the loopback (tests install apps offline from it).
node_modules/.bin/tsx scripts/fill-app-registry.ts
echo "setup: ready" >&2
