#!/usr/bin/env bash
# Starts the todo app in the foreground on $PORT (default 3000). Node built-ins only: nothing to install,
# so running it again is always safe. Todos are kept in data/todos.json (gitignored).
set -euo pipefail
cd "$(dirname "$0")"
export PORT="${PORT:-3000}"
mkdir -p data
exec node server.js
