/** Renders bench/results/latest.json as docs/benchmarks.md (a short hand-written method intro + generated tables). */
import { groundingSection } from './grounding.js';
import { lanesSection } from './lanes-report.js';
import { lanesScaleSection } from './lanes-scale.js';
import { sharedLanesSection } from './lanes-shared.js';
import { affectedChecksSection } from './merge-queue.js';
import { overnightSection } from './overnight-report.js';
import { sentinelSection } from './recovery-sentinel.js';
import { cell, demoSections } from './report-demo.js';
import { MEAL_PLANNER_NIGHT_NOTES, PROCESS_START } from './report-notes.js';
import type { BenchResults } from './results.js';
import type { ScaleResult } from './scale.js';
import { formatSpread } from './stats.js';

const INTRO = `# Benchmarks

nightshift promises that the harness costs little next to the model. \`npm run bench\` measures that
with the scripted model (\`testkit/\`): the model answers at once (or after a fixed simulated latency), so
every millisecond and every token below is the harness's own. The report below is generated; rerun
\`npm run bench\` to refresh it and \`bench/results/latest.json\`.

## Method

- **Real parts.** Runs go through the real orchestrator, BullMQ queues on Redis (a unique key prefix per
  section, deleted afterwards), real workers, real git repositories, real Chromium and the scripted model
  server over HTTP (Anthropic wire format, streaming).
- **Handoff, orientation, prefix stability, prompt overhead** come from full runs of the todo demo
  (\`testkit/policies/demo.ts\`, 8 features, ~21 sessions, zero model latency) through one in-process worker
  at concurrency 1. A handoff is the time from the agent loop's end (\`session.ended\` event) to the next
  session's first request received by the model server. It is split with the run's event log, BullMQ's job
  timestamps (enqueued → picked) and the wall time of every \`git\` process the harness ran (recorded from the
  diagnostics channel of \`handoff/git-process.ts\` in the benchmark process; git the agent runs inside \`bash\` is
  model work and not counted). Every handoff of a run is one sample.
- **Tokens** are counted with gpt-tokenizer (\`o200k_base\`) over the system prompt and the \`tools\` array exactly
  as sent; Claude's tokenizer gives somewhat different counts.
- **Evaluator start** times \`acquireContext\` + \`browser_navigate\` (whose answer is the first aria snapshot)
  against the todo fixture app (\`test/fixtures/todo-app\`), with Playwright tracing on as in real evaluations.
- **App start** times \`startApp\` on the demo's todo app until it answers HTTP: in the box (bubblewrap,
  network \`registries\`), in the box without network, and without the box (\`sandbox: none\`), alternating,
  one discarded warm-up each; then the meal planner from a fresh app copy with the run's dependency cache and
  without it (copy, \`npm ci\` or not, start); \`--only app-start\` re-measures just this section.
- **Scale** runs many tiny runs (one feature; a generator that writes one file and commits; an evaluator that
  opens the app and submits a pass: 2 sessions per run) through separate worker *processes*, with a fixed
  simulated model latency per request. CPU is \`process.cpuUsage\` of the worker process; "children" is the CPU of
  its reaped child processes (git, bash, app, Chromium) from \`/proc/self/stat\`. RSS is sampled every 100 ms.
- **Dashboard** seeds a run with 1,000 features and 2,000 sessions through the real \`RunStore\`, times the JSON
  API with \`fetch\` and loads the run page in Chromium until the grid, chart and timeline are rendered.
- **Recovery** kills (SIGKILL) the worker process running a session of the todo run on a bare remote, at a
  generator's or an evaluator's first requests, alternately, and times the run's next model request: first with
  one worker (restarted at once), then with a second one already running; nightshift's failover settings and
  BullMQ's defaults, each on its own \`redis-server\`, whose \`INFO commandstats\` also counts one idle worker's
  commands per second. See [reliability.md](reliability.md). Then, on a Sentinel set the bench starts (master,
  replica, three sentinels), the master is SIGKILLed with a session in flight, three times in one run (the killed
  node rejoins as a replica): kill → promotion, → every worker on the new master, → the run's next model request,
  and what was kept (\`--recovery sentinel\` measures just this part).
- **Recorded checks** (issue 15) build the finished demo app into a workspace and run one scripted LLM evaluator
  session of all its features (a regression evaluation without checks: what every sweep cost before them; each
  pass is also replayed once by the pass gate), record one check per feature the way the demo does (one evaluate
  session per feature), replay them round-robin on one freshly started app with the evaluator's warm browser
  (\`replayOnOneApp\`, what sweeps and \`nightshift checks run\` use: one context and page for the sweep, cleared
  between checks; each copy of a check types data of its own), and end with a replay-first regression session of
  all features. Model requests are counted on the scripted server.
- **Grounded verdicts** (issue 25) run every wording style of the grounding family (\`testkit/policies/grounding-styles.ts\`:
  honest styles that word what they saw their own way, cheating styles that pass what they did not see) on every
  feature of the finished demo app, one evaluator session each through the real harness and browser, the Anthropic
  and OpenAI wire formats alternating; a sent-back style reacts as its kind does, so the second try is counted too.
- **Noise.** This runs on a shared 2-core machine on which other test suites run at the same time; the load
  average is recorded before each section. Figures are medians with p10–p90 over the repetitions listed;
  treat absolute milliseconds as upper bounds of what an idle machine would show.

## The simulated model

For the overnight benchmark (issue 28) and whole-run tests, \`testkit/simulated/\` wraps the
examples' scripted roles in a model that behaves like a real one; \`simulatedModel({ seed })\` gives a policy for
the scripted server, and one seed makes the run reproducible. Defaults, and why (rates in
\`testkit/simulated/options.ts\`):

- **Latency** per request from a lognormal fitted to a median of 8 s and a p95 of 40 s (a coding model's usual
  turn, and the long tail of turns that write whole files), capped at 300 s (a client's timeout), divided by
  \`compression\` (100–200 in tests: a night in minutes).
- **Usage** is the server's own: the prompt grows with the conversation and the shared prefix is reported as
  cached on both wire formats (Anthropic at its \`cache_control\` marks, OpenAI automatically).
- **Generator mistakes**, at most one per session, never the same twice on one feature: app that does not start
  4 % (an import of a module never written; fixed from the app log in the feedback), feature half done 10 % (the
  commonest failure of long-running agents; its page module left unregistered), no commit 5 % (deaf to the stop
  hook; the WIP checkpoint keeps the work), reply cut at the output limit 3 %, regression 3 % (an earlier,
  unneeded feature's line dropped from the shared registry: only a sweep finds it), 429/529 burst 2 % of all
  sessions (3 in a row, one more than the in-session retries).
- **Evaluator**: the grounding family's honest wording styles, one per session by seed; a false fail on 3 % of
  passes (a sceptical evaluator misreading a page) — never a false pass. Like Claude and GPT with refs from one
  snapshot, it sends a form's fields and its button in one reply (a sign-up: the page, then one reply), and one
  action a reply otherwise.

## The overnight method

\`npm run bench -- --only overnight [--features N] [--compression C] [--seed S]\` (\`NSBENCH_COMPRESSION\` too)
builds the todo example (its first N features in dependency order, default all 8) with the simulated model three
ways, one seed for all: nightshift at 1 lane (one worker process) and at 4 lanes (two worker processes), through
the real orchestrator, Redis, git and Chromium; and a quickstart-style loop on the agent loop alone
(\`bench/overnight-quickstart.ts\`): an initializer, then one session per feature in list order with a fresh context,
the model re-running the shell checks of the two features that passed last, implementing its feature and checking
it itself with curl against the started app; a green self-check marks the feature passing, a red re-check
failing again; no evaluator, no blocking, 3 s between sessions. The shell check cannot see what only a browser
sees (a page module written but not registered: a half-done feature or a regression), which is the blind spot
of self-verification that this comparison measures. "Working" features are judged from the final code
(\`bench/overnight-figures.ts\` \`featureWorks\`: files, registrations, planted bug fixed, the server's imports),
so false passes and false blocks are counted apart from what each run claims. Projection: wall time with every
moment a model request was in flight stretched by the compression (for lanes an upper bound: one lane's harness
work that overlapped another's model wait is stretched too); the time breakdown sums sessions' phases from the
run's event log (\`bench/overnight-phases.ts\`). \`--only overnight-meal-planner\` (only when named: a bare \`npm run bench\` leaves it out, the whole night takes hours) does the same with the meal planner
(\`examples/meal-planner\`, 50 features with \`depends_on\`, SQLite through sql.js, accounts): its generators' and
evaluator's scripts (\`testkit/policies/meal-planner/\`) with the same mistakes on its own files
(\`testkit/simulated/mistake-targets.ts\`: a bad import in \`server.js\`, a menu entry left out, an earlier
unneeded feature's catalogue regression planted), judged by \`bench/overnight-examples.ts\`; every app start
installs its packages from verdaccio on the loopback (\`sandbox.npmRegistry\`, offline on the package cache).
`;

function targetsTable(results: BenchResults): string {
  const rows = results.targets.map(
    (row) => `| ${row.name} | ${row.target} | ${row.measured} | ${row.met ? '✅ met' : '❌ missed'} |`,
  );
  const notes = results.targets.filter((row) => row.note).map((row) => `- **${row.name}** — ${row.note}`);
  return [
    '## Targets (DESIGN.md)',
    '',
    '| target | goal | measured | met |',
    '|---|---|---|---|',
    ...rows,
    '',
    ...(notes.length ? ['### Where a target is missed', '', ...notes, ''] : []),
  ].join('\n');
}

function loadSection(results: BenchResults): string {
  const rows = results.machine.load.map(
    (sample) => `| ${sample.section} | ${sample.at} | ${sample.loadavg.join(' / ')} |`,
  );
  const r = results.repetitions;
  return [
    '## Machine and repetitions',
    '',
    `${results.machine.cores} cores, Node ${results.machine.node}; the last \`npm run bench\` took ${Math.round(results.durationMs / 1000)} s and ended ${results.generatedAt}.`,
    ...(results.sectionsMeasuredAt
      ? [
          `Sections measured at: ${Object.entries(results.sectionsMeasuredAt)
            .map(([name, at]) => `${name} ${at}`)
            .join(', ')} (\`--only\` reruns some sections and keeps the others).`,
        ]
      : []),
    `Repetitions: ${r.demoRuns} demo run(s) (every handoff and request pair a sample); evaluator ${r.evaluatorColdRounds} cold and ${r.evaluatorWarmRounds} warm rounds per variant; scale runs ${Object.entries(
      r.scaleRuns,
    )
      .map(([k, v]) => `${k}: ${v}`)
      .join(
        ', ',
      )}; dashboard ${r.dashboardApiRepetitions} requests per endpoint, ${r.dashboardPageLoads} page loads (after one discarded first load).`,
    '',
    '| before section | at | load average 1 / 5 / 15 min |',
    '|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}

/** A titled section: one table (first cell the row's label) and a closing paragraph. */
function tableSection(
  title: string,
  head: string[],
  rows: Array<[string, ...string[]]>,
  note: string,
): string {
  return [
    `## ${title}`,
    '',
    `| ${head.join(' | ')} |`,
    `|${head.map(() => '---|').join('')}`,
    ...rows.map((cells) => `| ${cells.join(' | ')} |`),
    '',
    note,
    '',
  ].join('\n');
}

function evaluatorSection(results: BenchResults): string {
  const e = results.evaluator;
  const row = (label: string, f: BenchResults['evaluator']['cold']): [string, ...string[]] => [
    label,
    cell(f.totalMs),
    cell(f.acquireMs),
    cell(f.navigateAndSnapshotMs),
  ];
  return tableSection(
    'Evaluator start: browser to first snapshot',
    ['variant', 'total', 'acquire context', 'navigate + snapshot'],
    [
      row('cold (new pool: Chromium launch)', e.cold),
      row("warm, the pool's spare context (what real evaluations get)", e.warmWithSpare),
      row('warm, context opened on demand (no spare; diagnostic)', e.warmOnDemand),
      row('warm, spare, tracing off (diagnostic)', e.warmWithSpareNoTrace),
    ],
    `Warm rounds wait ${e.gapMs} ms between evaluations (standing in for the model turns in between). After each evaluation the pool opens a spare context without a base URL and starts its trace, so the next evaluation — whatever port its app got — starts on it.`,
  );
}

function appStartSection(results: BenchResults): string {
  const a = results.appStart;
  if (!a) return '';
  const row = (label: string, f: NonNullable<BenchResults['appStart']>['box']): [string, ...string[]] => [
    label,
    cell(f.startMs),
    cell(f.stopMs),
  ];
  return tableSection(
    'App start: with and without the box',
    ['variant', 'start → first HTTP answer', 'stop (every process gone)'],
    [
      row('the box, network registries (relay, egress proxy, ingress bridge)', a.box),
      row('the box, network none (relay for the ingress only)', a.boxNoNetwork),
      row('no box (sandbox none: a plain child)', a.noBox),
    ],
    `The demo's todo app (\`init.sh\` → \`node server.js\`), readiness polled every 50 ms; variants alternate round by round. Added by the box: ${a.addedAtMedianMs ?? '—'} ms at the median, ${a.addedAtP90Ms ?? '—'} ms at p90. For scale, a bare \`node -e 0\` took ${cell(a.nodeStartMs)} meanwhile: the box starts its relay (node) before init.sh, on purpose — the bridges must listen before the first install connects — so the added time is about one node start plus bwrap's mounts (~10–20 ms).`,
  );
}

function dependencyCacheSection(results: BenchResults): string {
  const d = results.appStart?.dependencyCache;
  if (!d) return '';
  return tableSection(
    'App start: the dependency cache',
    ['variant', 'fresh copy → first HTTP answer (copy, install, start)'],
    [
      [
        "with the run's dependency cache (node_modules copied in; init.sh skips `npm ci`)",
        cell(d.withCache.readyMs),
      ],
      ['without it (`npm ci` in the box from the loopback registry)', cell(d.withoutCache.readyMs)],
    ],
    `The meal planner's skeleton (sql.js, 14 MB packed, and dayjs; 33 MB and 533 entries installed) started from a fresh app copy by \`startFreshApp\`, as every evaluation, replay and merge step starts it, in the box (network \`registries\`, verdaccio offline on the loopback); variants alternate round by round after one discarded warm-up that installs and keeps the tree. ${d.speedup ?? '—'}× faster at the median with the cache; the registry served ${d.tarballRequestsWithCache} tarball(s) to the cached starts.`,
  );
}

function recoverySection(results: BenchResults): string {
  const r = results.recovery;
  if (!r) return '';
  const seconds = (f: { n: number; median: number | null; worst: number | null }) =>
    f.n === 0 ? '—' : `${f.median} s / ${f.worst} s (n=${f.n})`;
  const row = (label: string, v: typeof r.nightshift): [string, ...string[]] => [
    label,
    `${v.settings.lockDurationMs / 1000} s / ${v.settings.lockRenewMs / 1000} s / ${v.settings.stalledIntervalMs / 1000} s`,
    seconds(v.restarted),
    seconds(v.secondWorker),
    `${v.idleCommandsPerSecond} (${Object.entries(v.idleTopCommands)
      .map(([name, rate]) => `${name} ${rate}`)
      .join(', ')})`,
  ];
  return tableSection(
    'Recovery after a worker is killed',
    [
      'settings',
      'lock / renewal / stalled check',
      'median / worst: one worker, restarted',
      'median / worst: a second worker running',
      'Redis commands/s, one idle worker',
    ],
    [
      row('nightshift (`worker.failover` defaults)', r.nightshift),
      row('BullMQ 6 defaults', r.bullmqDefaults),
    ],
    `Recovery = SIGKILL of the worker running a session → the run's next model request; ${r.killsPerMode} kills per mode and variant. The trade-off (traffic, false stalls on a stalled event loop) is in [reliability.md](reliability.md). Load average when this part started: ${sectionLoad(results, 'recovery: worker killed')}.`,
  ).concat('\n', sentinelSection(r.sentinel, sectionLoad(results, 'recovery: Redis master killed')));
}

function checksSection(results: BenchResults): string {
  const c = results.checks;
  if (!c) return '';
  const r = c.replays;
  const load = results.machine.load.find((sample) => sample.section.startsWith('checks:'));
  const session = (label: string, s: typeof c.llmEvaluation) =>
    `| ${label} | ${s.features} | ${s.passes} | ${(s.wallMs / 1000).toFixed(1)} s | ${s.modelRequests} | ${s.inputTokens.toLocaleString('en')} / ${s.outputTokens.toLocaleString('en')} | ${s.costUsd === null ? '—' : `$${s.costUsd}`} |`;
  return [
    '## Recorded checks vs an LLM evaluation',
    '',
    `${r.n} replays of the demo's ${c.checks} recorded checks on one app, warm browser: ${cell(r.perReplayMs)} per replay (p95 ${r.p95Ms ?? '—'} ms), ${r.green} green (${r.greenOnSharedApp ?? '?'} of them on the shared app), ${r.modelRequests} model requests. The whole call took ${r.wallPerReplayMs} ms per replay (${Math.round(r.overheadMs / 1000)} s outside the replays: the app's start and stop, the context, ${r.retriedOnOwnApp} replays red on the shared app run again on an app of their own: copies of the check that expects the whole app's count, "1 item left", which holds on a clean app only; in a sweep of distinct features such a check is learned and replayed first).`,
    '',
    ...(r.sideBySide
      ? [
          `The same ${r.n} replays side by side in ${r.sideBySide.contexts} contexts on one app (as many as \`replayContexts\` sizes this machine for: a context per idle core, as many as half the free memory holds; checks that count the whole app's data replay alone first): ${r.sideBySide.wallPerReplayMs} ms per replay of the whole call against ${r.wallPerReplayMs} ms in one context, each replay ${cell(r.sideBySide.perReplayMs)}, ${r.sideBySide.green} green.`,
          '',
        ]
      : []),
    ...(r.split
      ? [
          `Where a replay's time goes (median per part, replays on the shared app): readying the page (leaving the last replay's page, clearing its cookies and storage) ${r.split.pageMs} ms, navigations to \`load\` ${r.split.navigationMs} ms, the other actions with Playwright's actionability waits ${r.split.actionsMs} ms, waiting for the requests the actions started (and a frame after them) ${r.split.settleMs} ms, expectations ${r.split.expectationsMs} ms.`,
          '',
          "Before (a new context per replay, a settle wait after every action, expectations polled every 50 ms; profiled on 2026-11-30 at load 2.6): the pool's context 41 ms + a new page 121 ms, navigations 315 ms, other actions 223 ms, settle waits 183 ms, expectations 21 ms — about 850 ms a replay, 1,163 ms median in the bench at load 1.3. Side by side at the same load (1-min load 11–15, 40 replays of the same recorded checks on one app, two rounds each): before 1,173 and 1,203 ms median, now 665 and 534 ms.",
          '',
        ]
      : []),
    '| session | features | passes | wall time | model requests | tokens in / out | cost (scripted model at $3/$15 per MTok) |',
    '|---|---|---|---|---|---|---|',
    session('LLM regression evaluation (no checks)', c.llmEvaluation),
    session('replay-first regression session (every feature has a check)', c.replayFirstSweep),
    '',
    `Load average (1/5/15 min, as \`uptime\` shows it) when this section started: ${load ? `${load.loadavg.join(' / ')} on ${load.cores} cores` : 'not recorded'}. A replay waits for the page (settled actions, polled expectations), so its time stretches with the load: compare the figures with the load, not with an idle machine.`,
    '',
  ].join('\n');
}

function scaleRow(s: ScaleResult): string[] {
  return s.perWorker.map(
    (w, index) =>
      `| ${s.workers} × c=${s.concurrencyPerWorker}${s.workers > 1 ? ` (worker ${index + 1})` : ''} | ${s.runsDone}/${s.runs} | ${w.sessions} | ${w.peakConcurrentSessions} | ${index === 0 ? `${s.sessionsPerMinute}` : '″'} | ${index === 0 ? formatSpread(s.sessionDurationMs, ' ms') : '″'} | ${w.cpuMsPerSession} | ${w.childrenCpuMsPerSession} | ${w.rssBaselineMB} → ${w.rssPeakMB} | ${w.rssMBPerConcurrentSession} | ${w.treeRssPeakMB} |`,
  );
}

function scaleSection(results: BenchResults): string {
  const all = [...results.scale.single, results.scale.shared];
  const shared = results.scale.shared;
  return [
    '## Scale',
    '',
    `Tiny runs (2 sessions each), simulated model latency ${results.simulatedModelLatencyMs.scale} ms per request.`,
    '',
    '| workers × concurrency | runs done | sessions | peak concurrent | sessions/min | session duration | CPU ms/session (worker) | CPU ms/session (children) | worker RSS MB (start → peak) | RSS MB per concurrent session | peak RSS MB incl. Chromium, apps |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
    ...all.flatMap(scaleRow),
    '',
    'The last column sums the RSS of the worker, Chromium (one renderer per open context) and every app under test, so shared pages are counted once per process: an upper bound.',
    '',
    `Two workers sharing ${shared.runs} runs: ${shared.doubleProcessing.length === 0 ? 'no double processing — every session of every run started once, finished once, ran its agent loop once, and no two sessions of a run overlapped' : `problems: ${shared.doubleProcessing.join('; ')}`}. Jobs picked but skipped (lock held or stale): ${shared.skippedJobs}.`,
    '',
  ].join('\n');
}

function dashboardSection(results: BenchResults): string {
  const d = results.dashboard;
  return [
    '## Dashboard at scale',
    '',
    `A run with ${d.features} features and ${d.sessions} sessions (an initializer, then generator/evaluator pairs; seeded through RunStore in ${Math.round(d.seedMs / 1000)} s).`,
    '',
    '| request | latency | bytes |',
    '|---|---|---|',
    ...d.api.map((t) => `| ${t.request} | ${cell(t.ms)} | ${t.bytes.toLocaleString('en')} |`),
    '',
    `Run page ready (navigation → feature grid, chart and timeline rendered): ${cell(d.pageReadyMs)} by the Playwright clock, ${cell(d.pageReadyInPageMs)} by the page's own clock; the first (uncached) load took ${Math.round(d.firstLoadMs)} ms.${d.gridCompleteInPageMs ? ` The grid renders in chunks (first screen first); its last cell was in the DOM at ${cell(d.gridCompleteInPageMs)} (page clock).` : ''}${d.firstScreenInPageMs ? ` The first screen (header and the grid's first cells; the chart and the timeline are drawn after them) was there at ${cell(d.firstScreenInPageMs)} (page clock).` : ''}`,
    '',
  ].join('\n');
}

/** The load average recorded before a section, as the report shows it. */
function sectionLoad(results: BenchResults, label: string): string {
  const load = results.machine.load.find((sample) => sample.section.startsWith(label));
  return load ? `${load.loadavg.join(' / ')} on ${load.cores} cores` : 'not recorded';
}

/** The whole Markdown report. */
export function renderReport(results: BenchResults): string {
  return [
    INTRO,
    targetsTable(results),
    loadSection(results),
    PROCESS_START,
    ...demoSections(results),
    evaluatorSection(results),
    appStartSection(results),
    dependencyCacheSection(results),
    scaleSection(results),
    dashboardSection(results),
    recoverySection(results),
    checksSection(results),
    lanesSection(results.lanes, sectionLoad(results, 'lanes:')),
    affectedChecksSection(results.mergeQueue, sectionLoad(results, 'merge-queue:')),
    sharedLanesSection(results.lanesShared, sectionLoad(results, 'lanes-shared:')),
    lanesScaleSection(results.lanesScale, sectionLoad(results, 'lanes-200:')),
    groundingSection(results.grounding, sectionLoad(results, 'grounding:')),
    overnightSection(results.overnight, sectionLoad(results, 'overnight:')),
    overnightSection(
      results.overnightMealPlanner,
      sectionLoad(results, 'overnight-meal-planner:'),
      '## The overnight run: the meal planner',
    ),
    results.overnightMealPlanner ? MEAL_PLANNER_NIGHT_NOTES : '',
  ].join('\n');
}
