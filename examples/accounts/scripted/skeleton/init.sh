#!/usr/bin/env bash
# Starts the notes app in the foreground on $PORT (default 3000). Node built-ins only: nothing to install,
# so running it again is always safe. Accounts and notes are kept in data/ (gitignored).
set -euo pipefail
cd "$(dirname "$0")"
export PORT="${PORT:-3000}"
mkdir -p data
exec node server.js
