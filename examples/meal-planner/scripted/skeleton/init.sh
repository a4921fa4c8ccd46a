#!/usr/bin/env bash
# Installs the app's dependencies and starts it in the foreground on $PORT (default 3000). Safe to run again:
# `npm ci` runs only when node_modules is missing or older than package-lock.json, and it never rewrites the
# lockfile. npm takes its registry and proxy from the environment (npm_config_registry, npm_config_proxy, …), so a
# registry mirror the caller names is used as it is.
set -euo pipefail
cd "$(dirname "$0")"
export PORT="${PORT:-3000}"
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund --loglevel=error
fi
mkdir -p "${DATA_DIR:-data}"
exec node server.js
