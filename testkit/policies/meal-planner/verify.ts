/**
 * The generator's shell check for a meal-planner feature: a bash script that starts the app from `init.sh` on a
 * free port with a private data folder, runs the feature's checks with curl (a cookie jar keeps the session), and
 * stops the app again whatever happens.
 */
import { shellQuote } from '../todo-features.js';

/**
 * Helpers the checks use: `fail MSG`; `get PATH` and `post PATH field=value…` print the HTTP status and keep the body
 * in `$work/last` (redirects are not followed; `page PATH` follows them); `shows TEXT` (the last body holds it); `sign_up [NAME]` makes a new
 * user and keeps it signed in (its email in `$email`); `start_app`/`stop_app`; `$base`, `$work`.
 */
const PRELUDE = `set -u
work=$(mktemp -d)
jar="$work/cookies"
app=
fail() { echo "FAILED: $*"; echo "--- last response ---"; head -c 2000 "$work/last" 2>/dev/null; echo; echo "--- app log ---"; tail -n 40 "$work/app.log" 2>/dev/null; exit 1; }
start_app() {
  port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
  base="http://127.0.0.1:$port"
  DATA_DIR="$work/data" PORT="$port" ./init.sh >>"$work/app.log" 2>&1 &
  app=$!
  for _ in $(seq 1 1200); do
    curl -sf "$base/" >/dev/null && return 0
    kill -0 "$app" 2>/dev/null || fail "the app exited before answering on $base"
    sleep 0.1
  done
  fail "the app did not answer on $base within 120 s"
}
stop_app() { if [ -n "$app" ]; then kill "$app" 2>/dev/null; wait "$app" 2>/dev/null; app=; fi; }
trap 'stop_app; rm -rf "$work"' EXIT
get() { curl -s -b "$jar" -c "$jar" -o "$work/last" -w '%{http_code}' "$base$1"; }
page() { curl -sL -b "$jar" -c "$jar" -o "$work/last" -w '%{http_code}' "$base$1"; }
post() {
  local path=$1; shift
  local args=()
  for field in "$@"; do args+=(--data-urlencode "$field"); done
  [ $# -gt 0 ] || args=(--data '')
  curl -s -b "$jar" -c "$jar" -o "$work/last" -w '%{http_code}' "${'${'}args[@]}" "$base$path"
}
shows() { grep -qF -- "$1" "$work/last"; }
sign_up() {
  email="${'${'}1:-cook}.$RANDOM$RANDOM@example.test"
  [ "$(post /signup "name=${'${'}1:-Cook}" "email=$email" password=secret-pass-1)" = 303 ] || fail "signing up as $email failed"
}
start_app`;

/** The whole script for one feature's checks; prints `OK: <okMessage>` when they all pass. */
export function mealPlannerVerifyCommand(checks: string, okMessage: string): string {
  return `${PRELUDE}\n${checks}\necho ${shellQuote(`OK: ${okMessage}`)}`;
}
