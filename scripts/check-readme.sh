#!/usr/bin/env bash
# Checks that CI runs exactly the README's Quick start: every line of the block between the quickstart markers is
# a fence or a `$ command` (a line in another form would be skipped without a word), scripts/readme-commands.sh
# finds exactly those commands, and .ci/run runs that script. Usage: check-readme.sh [REPO_ROOT]
set -euo pipefail
root="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
readme="$root/README.md"
fail() {
  printf 'check-readme: %b\n' "$*" >&2
  exit 1
}
grep -q '<!-- quickstart:start -->' "$readme" || fail "README.md has no <!-- quickstart:start --> marker"
grep -q '<!-- quickstart:end -->' "$readme" || fail "README.md has no <!-- quickstart:end --> marker"
block=$(awk '/<!-- quickstart:start -->/{on=1;next} /<!-- quickstart:end -->/{on=0} on' "$readme")
while IFS= read -r line; do
  case "$line" in
    '' | '```'*) ;;
    '$ '*) ;;
    *) fail "this Quick start line is not a \`\$ command\`, so CI would not run it: $line" ;;
  esac
done <<<"$block"
expected=$(printf '%s\n' "$block" | sed -n 's/^\$ //p')
[ -n "$expected" ] || fail "the Quick start block has no \`\$ command\` line"
listed=$(bash "$root/scripts/readme-commands.sh" --list)
[ "$listed" = "$expected" ] ||
  fail "scripts/readme-commands.sh would run:\n$listed\nbut the README's Quick start says:\n$expected"
grep -Eq '^[[:space:]]*bash scripts/readme-commands\.sh[[:space:]]*$' "$root/.ci/run" ||
  fail ".ci/run does not run \`bash scripts/readme-commands.sh\`"
echo "check-readme: CI runs the README's $(printf '%s\n' "$expected" | wc -l) Quick start command(s)" >&2
