/**
 * The scripted model's knowledge of the todo example (examples/todo/app_spec.md): the feature list the
 * initializer writes, and for each feature what a generator changes (files under
 * examples/todo/scripted/features/<dir>/, lines inserted above marker comments), how it checks its work
 * from the shell, and which browser check the evaluator runs. List order is build order.
 */
import {
  registerApi,
  registerClient,
  type ScriptedFeature,
  served,
  type TodoFeature,
} from './scripted-feature.js';

/** The shapes and registries of a scripted feature, where the todo example's importers have always found them. */
export * from './scripted-feature.js';

/** Whether a catalogue feature is one of the todo example's (its check is a todo browser check). */
export function isTodoFeature(feature: ScriptedFeature): feature is TodoFeature {
  return TODO_FEATURES.some((todo) => todo.check === feature.check);
}

/** The eight features, in build order. */
export const TODO_FEATURES: readonly TodoFeature[] = [
  {
    check: 'add',
    category: 'functional',
    description:
      'Add a todo: typing into the "New todo" box and pressing Enter or clicking "Add" puts the todo at the end of the list',
    steps: [
      'Open the app',
      'Type a new todo text (e.g. "Buy milk") into the "New todo" box and press Enter',
      'The list shows the new todo and the "New todo" box is empty again',
      'Type another todo text into the "New todo" box and click the "Add" button',
      'The list shows both new todos, in the order they were added',
    ],
    sourceDir: '01-add-todo',
    insertions: [registerApi('todos.js'), registerClient('add-todo.js')],
    verify: [
      `curl -sf "$base/" | grep -q 'New todo' || fail "the page has no New todo box"`,
      `todo=$(api POST /api/todos -d '{"title":"verify add"}') || fail "POST /api/todos failed"`,
      `[ "$(field title <<<"$todo")" = "verify add" ] || fail "POST /api/todos returned $todo"`,
      `api GET /api/todos | grep -q '"verify add"' || fail "GET /api/todos does not list the new todo"`,
      `api POST /api/todos -d '{"title":"  "}' >/dev/null && fail "a blank title was accepted"`,
      served('add-todo.js', 'submit'),
    ].join('\n'),
    summary: 'add todos (POST/GET /api/todos, new-todo form)',
  },
  {
    check: 'persist',
    category: 'functional',
    description:
      'The list survives a reload: todos are saved on the server (data/todos.json) and shown again when the page opens',
    steps: [
      'Open the app and add a todo with a unique text',
      'Reload the page',
      'The todo is still in the list after the reload',
    ],
    sourceDir: '02-persist',
    insertions: [registerApi('persist.js'), registerClient('load-list.js')],
    verify: [
      `api POST /api/todos -d '{"title":"verify persist"}' >/dev/null || fail "POST /api/todos failed"`,
      'stop_app',
      `[ -s "$work/data/todos.json" ] || fail "data/todos.json was not written"`,
      'start_app',
      `api GET /api/todos | grep -q '"verify persist"' || fail "the todo is gone after a restart"`,
      served('load-list.js', '/api/todos'),
    ].join('\n'),
    summary: 'save todos in data/todos.json and load the list when the page opens',
  },
  {
    check: 'complete',
    category: 'functional',
    description: 'Complete a todo: its checkbox marks it completed (or active again), and the state is saved',
    steps: [
      'Open the app and add a todo with a unique text',
      'Click the todo\'s checkbox ("Toggle <text>")',
      'The checkbox is checked',
      'Reload the page',
      "The todo's checkbox is still checked",
      'Click the checkbox again',
      'The checkbox is unchecked (the todo is active again)',
    ],
    sourceDir: '03-complete',
    insertions: [registerApi('update-todo.js'), registerClient('complete-todo.js')],
    verify: [
      `id=$(api POST /api/todos -d '{"title":"verify complete"}' | field id) || fail "POST /api/todos failed"`,
      `[ "$(api PATCH "/api/todos/$id" -d '{"completed":true}' | field completed)" = true ] || fail "PATCH did not complete the todo"`,
      `[ "$(api PATCH "/api/todos/$id" -d '{"completed":false}' | field completed)" = false ] || fail "PATCH did not reopen the todo"`,
      `api PATCH "/api/todos/$id" -d '{"completed":"yes"}' >/dev/null && fail "a non-boolean completed was accepted"`,
      served('complete-todo.js', 'checkbox'),
    ].join('\n'),
    summary: 'complete todos (checkbox, PATCH /api/todos/:id)',
  },
  {
    check: 'delete',
    category: 'functional',
    description: 'Delete a todo: its "Delete" button removes it from the list for good',
    steps: [
      'Open the app and add two todos with unique texts',
      'Click the "Delete" button of the first of them',
      'That todo is gone from the list and the other one is still there',
      'Reload the page',
      'The deleted todo is still gone',
    ],
    sourceDir: '04-delete',
    insertions: [registerApi('delete-todo.js'), registerClient('delete-todo.js')],
    verify: [
      `id=$(api POST /api/todos -d '{"title":"verify delete"}' | field id) || fail "POST /api/todos failed"`,
      `api DELETE "/api/todos/$id" >/dev/null || fail "DELETE /api/todos/$id failed"`,
      `api GET /api/todos | grep -q '"verify delete"' && fail "the todo is still listed after DELETE"`,
      `api DELETE "/api/todos/$id" >/dev/null && fail "deleting a missing todo did not fail"`,
      served('delete-todo.js', 'Delete'),
    ].join('\n'),
    summary: 'delete todos (Delete button, DELETE /api/todos/:id)',
  },
  {
    check: 'remaining',
    category: 'functional',
    description:
      'Remaining count: a status line under the list says how many todos are not completed yet ("N items left", "1 item left")',
    steps: [
      'Open the app and note the number N in the status line "N items left"',
      'Add two todos with unique texts',
      'The status line says N+2 items left',
      'Tick the checkbox of one of the two new todos',
      'The status line says N+1 items left (completed todos are not counted; "1 item left" when N+1 is 1)',
    ],
    sourceDir: '05-remaining-count',
    insertions: [
      registerClient('remaining-count.js'),
      {
        path: 'public/index.html',
        marker: '<!-- footer: feature markup goes above this line -->',
        lines: ['<p id="remaining" role="status">0 items left</p>'],
      },
    ],
    verify: [
      `curl -sf "$base/" | grep -q 'role="status"' || fail "the page has no status line"`,
      served('remaining-count.js', ' left'),
    ].join('\n'),
    summary: 'remaining count status line ("N items left")',
    plantedBug: {
      path: 'public/features/remaining-count.js',
      buggy: 'const left = state.todos.length;',
      fixed: 'const left = state.todos.filter((todo) => !todo.completed).length;',
      explanation: 'count only the todos that are not completed (completed ones were counted too)',
    },
  },
  {
    check: 'filter',
    category: 'functional',
    description:
      'Filter: the "All", "Active" and "Completed" buttons choose which todos the list shows; the chosen one is pressed',
    steps: [
      'Open the app, add two todos with unique texts and tick the checkbox of the second one',
      'Click the "Active" filter button',
      'The list shows the first todo but not the second, and "Active" is pressed',
      'Click the "Completed" filter button',
      'The list shows the second todo but not the first',
      'Click the "All" filter button',
      'The list shows both todos',
    ],
    sourceDir: '06-filter',
    insertions: [registerClient('filter.js')],
    verify: served('filter.js', 'Completed'),
    summary: 'All / Active / Completed filter',
  },
  {
    check: 'edit',
    category: 'functional',
    description:
      'Edit a todo: its "Edit" button (or a double-click on its text) opens an edit box; Enter saves the new text',
    steps: [
      'Open the app and add a todo with a unique text',
      'Click the todo\'s "Edit" button',
      "An edit box holding the todo's text appears",
      'Replace the text with a new unique text and press Enter',
      'The list shows the new text instead of the old one',
      'Reload the page',
      'The list still shows the new text',
    ],
    sourceDir: '07-edit',
    insertions: [
      registerClient('edit-todo.js'),
      {
        path: 'api/update-todo.js',
        marker: '// -- editable fields: add checks above this line --',
        lines: [
          'if (body.title !== undefined) {',
          "  const title = typeof body.title === 'string' ? body.title.trim() : '';",
          "  if (!title) return sendJson(res, 400, { error: 'title must be non-empty text' });",
          '  todo.title = title;',
          '}',
        ],
      },
    ],
    verify: [
      `id=$(api POST /api/todos -d '{"title":"verify edit"}' | field id) || fail "POST /api/todos failed"`,
      `[ "$(api PATCH "/api/todos/$id" -d '{"title":"verify edited"}' | field title)" = "verify edited" ] || fail "PATCH did not change the title"`,
      `api PATCH "/api/todos/$id" -d '{"title":"  "}' >/dev/null && fail "a blank title was accepted"`,
      served('edit-todo.js', 'Escape'),
    ].join('\n'),
    summary: 'edit todos (Edit button or double-click, PATCH title)',
  },
  {
    check: 'clearCompleted',
    category: 'functional',
    description:
      'Clear completed: the "Clear completed" button removes every completed todo and keeps the active ones',
    steps: [
      'Open the app, add two todos with unique texts and tick the checkbox of the first one',
      'Click the "Clear completed" button',
      'The completed todo is gone and the active one is still in the list',
      'Reload the page',
      'The completed todo is still gone and the active one is still there',
    ],
    sourceDir: '08-clear-completed',
    insertions: [registerApi('clear-completed.js'), registerClient('clear-completed.js')],
    verify: [
      `keep=$(api POST /api/todos -d '{"title":"verify keep"}' | field id) || fail "POST /api/todos failed"`,
      `done=$(api POST /api/todos -d '{"title":"verify clear"}' | field id) || fail "POST /api/todos failed"`,
      `api PATCH "/api/todos/$done" -d '{"completed":true}' >/dev/null || fail "PATCH failed"`,
      'rest=$(api POST /api/todos/clear-completed) || fail "POST /api/todos/clear-completed failed"',
      `grep -q '"verify keep"' <<<"$rest" || fail "the active todo was removed: $rest"`,
      `grep -q '"verify clear"' <<<"$rest" && fail "the completed todo is still there: $rest"`,
      served('clear-completed.js', 'Clear completed'),
    ].join('\n'),
    summary: 'clear completed todos (button, POST /api/todos/clear-completed)',
  },
];

/**
 * How many catalogue features a spec asks the scripted initializer for: all of them, or the first N when the spec
 * carries `<!-- testkit: first N features -->` (tests use it for shorter whole runs).
 */
export function scriptedFeatureCount(spec: string, total = TODO_FEATURES.length): number {
  const asked = /<!--\s*testkit: first (\d+) features?\s*-->/.exec(spec)?.[1];
  const count = asked ? Number(asked) : total;
  return Math.min(Math.max(count, 1), total);
}

/** The spec text with the marker that asks the scripted initializer for its first `count` features. */
export function withScriptedFeatureCount(spec: string, count: number): string {
  return `${spec.trimEnd()}\n\n<!-- testkit: first ${count} features -->\n`;
}

/** `feature_list.json` as the initializer writes it (the first `count` features): no ids, all failing. */
/**
 * What each feature needs to be checked at all, by list position (1-based), as a real initializer would declare it:
 * every feature adds todos and shows the loaded list (1, 2); counting, filtering, editing (its PATCH fields) and
 * clearing need completing (3).
 * Lanes start a feature only once these pass on the run branch.
 */
export const TODO_DEPENDENCIES: readonly (readonly number[])[] = [
  [],
  [1],
  [1, 2],
  [1, 2],
  [1, 2, 3],
  [1, 2, 3],
  [1, 2, 3],
  [1, 2, 3],
];

function featureIdOf(position: number): string {
  return `F-${String(position).padStart(3, '0')}`;
}

export function featureListJson(count = TODO_FEATURES.length): string {
  return scriptedFeatureListJson(TODO_FEATURES, TODO_DEPENDENCIES, count);
}

/** `feature_list.json` of an example's first `count` features (`dependencies` by 1-based list position). */
export function scriptedFeatureListJson(
  features: readonly ScriptedFeature[],
  dependencies: readonly (readonly number[])[],
  count = features.length,
): string {
  const list = features.slice(0, count).map(({ category, description, steps }, index) => {
    const dependsOn = (dependencies[index] ?? []).map(featureIdOf);
    return {
      category,
      description,
      steps,
      ...(dependsOn.length ? { depends_on: dependsOn } : {}),
      passes: false,
    };
  });
  return `${JSON.stringify(list, null, 2)}\n`;
}

/** Whitespace-insensitive form of text, for matching catalogue text inside messages. */
export function squash(text: string): string {
  return text.replace(/\s+/g, ' ').trim().toLowerCase();
}

/** The catalogue feature whose description (or, failing that, all of its steps) occurs in the text. */
export function featureMentionedIn<F extends ScriptedFeature = TodoFeature>(
  text: string,
  features: readonly F[] = TODO_FEATURES as unknown as readonly F[],
): F | undefined {
  const haystack = squash(text);
  return (
    features.find((feature) => haystack.includes(squash(feature.description))) ??
    features.find((feature) => feature.steps.every((step) => haystack.includes(squash(step))))
  );
}

/**
 * A bash script that starts the app from `init.sh` on a free port with a private data folder, runs the
 * checks, and stops it again whatever happens. Helpers: `fail MSG`, `api METHOD PATH [curl args]`,
 * `field NAME` (reads JSON on stdin), `start_app`/`stop_app`, `$base`, `$work`.
 */
export function verifyCommand(checks: string, okMessage: string): string {
  return `set -u
work=$(mktemp -d)
app=
fail() { echo "FAILED: $*"; echo "--- app log ---"; cat "$work/app.log" 2>/dev/null; exit 1; }
start_app() {
  port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
  base="http://127.0.0.1:$port"
  DATA_DIR="$work/data" PORT="$port" ./init.sh >>"$work/app.log" 2>&1 &
  app=$!
  for _ in $(seq 1 100); do
    curl -sf "$base/" >/dev/null && return 0
    kill -0 "$app" 2>/dev/null || fail "the app exited before answering on $base"
    sleep 0.1
  done
  fail "the app did not answer on $base"
}
stop_app() { if [ -n "$app" ]; then kill "$app" 2>/dev/null; wait "$app" 2>/dev/null; app=; fi; }
trap 'stop_app; rm -rf "$work"' EXIT
api() { local method=$1 path=$2; shift 2; curl -sf -X "$method" -H 'content-type: application/json' "$@" "$base$path"; }
field() { node -e 'let s="";process.stdin.on("data",(d)=>{s+=d}).on("end",()=>{const v=JSON.parse(s)[process.argv[1]];console.log(typeof v==="string"?v:JSON.stringify(v))})' "$1"; }
start_app
${checks}
echo ${shellQuote(`OK: ${okMessage}`)}`;
}

/** Single-quotes text for bash. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}
