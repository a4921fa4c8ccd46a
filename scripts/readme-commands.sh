#!/usr/bin/env bash
# Runs, one by one, the commands of the README's Quick start block (between the quickstart markers),
# so CI runs exactly what a new user is told to run. `--list` prints them instead (scripts/check-readme.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t commands < <(awk '/<!-- quickstart:start -->/{on=1;next} /<!-- quickstart:end -->/{on=0} on && /^\$ /{sub(/^\$ /,""); print}' README.md)
if [ ${#commands[@]} -eq 0 ]; then
  echo "readme-commands: no Quick start commands found in README.md" >&2
  exit 1
fi
if [ "${1:-}" = "--list" ]; then
  printf '%s\n' "${commands[@]}"
  exit 0
fi
for command in "${commands[@]}"; do
  echo "==> $command" >&2
  bash -c "$command"
done
