/** The DESIGN.md performance targets, each checked against the measured figures. */
import { groundingTargetRows } from './grounding.js';
import { lanesTargetRow } from './lanes-report.js';
import { lanesScaleTargetRow } from './lanes-scale.js';
import { sharedLanesTargetRow } from './lanes-shared.js';
import { mergeQueueTargetRow } from './merge-queue.js';
import { overnightTargetRows } from './overnight-report.js';
import type { BenchResults, TargetRow } from './results.js';

type Measured = Omit<BenchResults, 'targets'>;

const ms = (value: number | null) => (value === null ? 'n/a' : `${Math.round(value)} ms`);

function handoffRow(results: Measured): TargetRow {
  const all = results.demo.handoff.all;
  const median = all.totalMs.median;
  const row: TargetRow = {
    name: 'handoff',
    target: 'session end → next session first model request, median ≤ 1.5 s',
    measured: `median ${ms(median)} (p10 ${ms(all.totalMs.p10)}, p90 ${ms(all.totalMs.p90)}, n=${all.totalMs.n}); to generator ${ms(results.demo.handoff.toGenerator.totalMs.median)}, to evaluator ${ms(results.demo.handoff.toEvaluator.totalMs.median)}`,
    met: median !== null && median <= 1_500,
  };
  if (!row.met) {
    const gitProcesses = results.demo.handoff.samples.map((sample) =>
      Object.values((sample.gitCommands ?? {}) as Record<string, number>).reduce(
        (sum, count) => sum + count,
        0,
      ),
    );
    const sortedCounts = [...gitProcesses].sort((a, b) => a - b);
    const typical = sortedCounts[Math.floor(sortedCounts.length / 2)] ?? 0;
    const toGenerator = results.demo.handoff.toGenerator;
    const toEvaluator = results.demo.handoff.toEvaluator;
    row.note =
      `Median split: git ${ms(all.gitMs.median)} (median ${typical} git processes), queue ${ms(all.queueMs.median)}, ` +
      `context assembly ${ms(all.contextMs.median)}, other ${ms(all.otherMs.median)}. The queue is not the bound. ` +
      `Into an evaluator, preparing takes ${ms(toEvaluator.prepareMs.median)}: init.sh starts the app (readiness checked ` +
      'every 50 ms) while the browser context is taken from the pool. After an evaluator, closing takes ' +
      `${ms(toGenerator.closeMs.median)} (app stop, verdict commit, history checks; the trace is saved later, off the path). ` +
      `Preparing a generator without git takes ${ms(toGenerator.contextMs.median)} of JavaScript and file reads. ` +
      'Harness git is spawned directly (no 50 ms wait after a silent command), the backup fetch runs beside the ' +
      "role's preparation and is skipped when HEAD has not moved. All of it is stretched by the machine load (see " +
      'the load table); on an idle machine the target is met. Would move it further: the app copy and init.sh ' +
      'started before the previous session has finished closing.';
  }
  return row;
}

function orientationRow(results: Measured): TargetRow {
  const o = results.demo.orientation;
  return {
    name: 'orientation',
    target: `model requests before a generator's first write/edit ≤ 2 (quickstart mandates ~${o.quickstartMandatedCommands} orientation commands)`,
    measured: `median ${o.requestsBeforeFirstEdit.median}, max ${o.maxRequestsBeforeFirstEdit} over ${o.sessions} generator sessions`,
    met: o.maxRequestsBeforeFirstEdit !== null && o.maxRequestsBeforeFirstEdit <= 2,
  };
}

function overheadRow(results: Measured): TargetRow {
  const generator = results.demo.promptOverhead.find((role) => role.role === 'generator');
  return {
    name: 'fixed prompt overhead (generator)',
    target: 'system prompt + tool schemas per generator request ≤ 2,000 tokens',
    measured: generator
      ? `${generator.totalTokens} tokens (system ${generator.systemTokens} + tools ${generator.toolSchemaTokens}; o200k_base), ${generator.systemBytes + generator.toolSchemaBytes} bytes`
      : 'no generator request recorded',
    met: !!generator && generator.totalTokens <= 2_000,
  };
}

function prefixRow(results: Measured): TargetRow {
  const p = results.demo.prefixStability;
  const row: TargetRow = {
    name: 'prefix stability',
    target: '≥ 95 % of each request is a byte-identical prefix of the next one',
    measured: `min ${p.minPercent} %, mean ${p.meanPercent} % over ${p.pairs} consecutive request pairs (${p.pairsBelow95} below 95 %)`,
    met: p.minPercent !== null && p.minPercent >= 95,
  };
  if (!row.met)
    row.note = 'A pair below 95 % means the harness rewrote earlier context; see the pairs in latest.json.';
  return row;
}

function evaluatorRow(results: Measured): TargetRow {
  const e = results.evaluator;
  const warm = e.warmWithSpare.totalMs.median;
  const row: TargetRow = {
    name: 'evaluator start',
    target: 'fresh browser context + first snapshot ≤ 500 ms with a warm browser',
    measured: `warm, as evaluations run (the pool's spare context, no base URL, trace on): median ${ms(warm)}; context opened on demand: ${ms(e.warmOnDemand.totalMs.median)}; cold: ${ms(e.cold.totalMs.median)}`,
    met: warm !== null && warm <= 500,
  };
  if (!row.met) {
    row.note =
      `Split (spare): acquire ${ms(e.warmWithSpare.acquireMs.median)}, navigate + snapshot ${ms(e.warmWithSpare.navigateAndSnapshotMs.median)}; ` +
      `without the trace: ${ms(e.warmWithSpareNoTrace.totalMs.median)}. Bounded by the navigation, the settle wait and the ` +
      'aria snapshot in a fresh renderer, with tracing (screenshots + DOM snapshots) on, on a shared 2-core machine.';
  }
  return row;
}

function scaleRows(results: Measured): TargetRow[] {
  const twenty = results.scale.single.find((scenario) => scenario.concurrencyPerWorker === 20);
  const peak = twenty?.perWorker[0]?.peakConcurrentSessions ?? 0;
  const shared = results.scale.shared;
  const perSession = results.scale.single
    .map((s) => {
      const w = s.perWorker[0];
      return w
        ? `c=${s.concurrencyPerWorker}: ${w.cpuMsPerSession} ms CPU (+${w.childrenCpuMsPerSession} ms children), ${w.rssMBPerConcurrentSession} MB RSS per concurrent session`
        : '';
    })
    .join('; ');
  return [
    {
      name: 'scale: 20 concurrent sessions in one worker process',
      target: 'one worker process runs 20 concurrent sessions',
      measured: twenty
        ? `peak ${peak} concurrent sessions; ${twenty.sessions} sessions of ${twenty.runs} runs, ${twenty.runsDone} done, ${twenty.sessionsPerMinute} sessions/min`
        : 'not measured',
      met: !!twenty && peak >= 20 && twenty.runsDone === twenty.runs,
    },
    {
      name: 'scale: two workers share 40 runs',
      target: 'two worker processes share 40 runs with no double processing',
      measured: `${shared.runsDone}/${shared.runs} runs done, ${shared.sessions} sessions (${shared.perWorker.map((w) => w.sessions).join(' + ')}), ${shared.doubleProcessing.length} double-processing problems, ${shared.sessionsPerMinute} sessions/min`,
      met:
        shared.runs === 40 &&
        shared.runsDone === 40 &&
        shared.doubleProcessing.length === 0 &&
        shared.perWorker.every((w) => w.sessions > 0),
    },
    {
      name: 'scale: harness CPU and memory per session reported',
      target: 'reported',
      measured: perSession,
      met: results.scale.single.length > 0,
    },
  ];
}

function dashboardRows(results: Measured): TargetRow[] {
  const d = results.dashboard;
  const grid = d.api.find((timing) => timing.request.startsWith('GET /api/runs/:id/grid'));
  const worst = [...d.api].sort((a, b) => (b.ms.median ?? 0) - (a.ms.median ?? 0))[0];
  const pageRow: TargetRow = {
    name: 'dashboard page ready',
    target: `run page ready ≤ 1 s (${d.features} features, ${d.sessions} sessions)`,
    measured: `median ${ms(d.pageReadyMs.median)} (Playwright clock), ${ms(d.pageReadyInPageMs.median)} (in-page clock)`,
    met: d.pageReadyMs.median !== null && d.pageReadyMs.median <= 1_000,
  };
  if (!pageRow.met) {
    pageRow.note =
      `The grid comes from the compact grid endpoint (${Math.round((grid?.bytes ?? 0) / 1024)} KB) and renders in chunks, ` +
      `the first screen first (whole grid by ${ms(d.gridCompleteInPageMs?.median ?? null)}, in-page clock); what is left is ` +
      'Chromium parsing, styling and laying out the page while it competes for 2 shared cores (see the load table).';
  }
  return [
    {
      name: 'dashboard API',
      target: `every API call ≤ 200 ms (${d.features} features, ${d.sessions} sessions)`,
      measured: `slowest median ${worst ? `${worst.request} ${ms(worst.ms.median)} (p90 ${ms(worst.ms.p90)})` : 'n/a'}`,
      met: d.api.every((timing) => timing.ms.median !== null && timing.ms.median <= 200),
    },
    pageRow,
  ];
}

function appStartRow(results: Measured): TargetRow[] {
  const a = results.appStart;
  if (!a) return [];
  const added = a.addedAtMedianMs;
  return [
    {
      name: 'app start in the box',
      target: 'the box adds ≤ 150 ms at the median to starting the app (issue 12)',
      measured: `added ${ms(added)} at the median (p90 ${ms(a.addedAtP90Ms)}): box ${ms(a.box.startMs.median)} vs no box ${ms(a.noBox.startMs.median)} (n=${a.box.startMs.n} each)`,
      met: added !== null && added <= 150,
      ...(added !== null && added > 150
        ? {
            note:
              `Bounded by starting the relay (a node process; a bare \`node -e 0\` took ${ms(a.nodeStartMs.median)} at the ` +
              'same time) inside the box before init.sh runs — its bridges must listen before the first install connects — ' +
              'plus bwrap setting up the mounts. On an idle machine a node start is ~40 ms. Would move it: a relay that ' +
              'starts faster than node (a small static binary), or a box pre-started while the evaluator session is prepared.',
          }
        : {}),
    },
  ];
}

function checksRow(results: Measured): TargetRow[] {
  const c = results.checks;
  if (!c) return [];
  const r = c.replays;
  const median = r.perReplayMs.median;
  const met = median !== null && median <= 300 && r.modelRequests === 0;
  return [
    {
      name: 'recorded checks',
      target:
        'a sweep of 100 recorded checks on the demo app: 0 model requests, median ≤ 300 ms per check, warm browser (issue 15)',
      measured: `median ${ms(median)} (p95 ${ms(r.p95Ms)}, n=${r.n}, ${r.green} green, ${r.greenOnSharedApp ?? '?'} on the shared app), ${r.modelRequests} model requests; the LLM evaluation of the same ${c.llmEvaluation.features} features: ${Math.round(c.llmEvaluation.wallMs / 1000)} s, ${c.llmEvaluation.modelRequests} requests, $${c.llmEvaluation.costUsd ?? '?'}`,
      met,
      ...(met ? {} : { note: checksNote(r.split) }),
    },
  ];
}

function checksNote(split: NonNullable<Measured['checks']>['replays']['split']): string {
  const parts = split
    ? `Median split: page ${ms(split.pageMs)}, navigation ${ms(split.navigationMs)}, actions ${ms(split.actionsMs)}, settle ${ms(split.settleMs)}, expectations ${ms(split.expectationsMs)}. `
    : '';
  return (
    `${parts}A sweep replays on one reused context and page (cleared between checks), settles only after actions ` +
    'that started requests and waits for expectations with Playwright. What is left is CPU, not waiting ' +
    '(profiled 2026-12-03, 48 replays a variant, variants interleaved on a quiet machine): a replay kept the ' +
    "machine's 2 cores about 70 % busy, 0.73 s of CPU in 0.52 s (Chromium 0.59 s: renderer 0.30, browser process " +
    "0.20, GPU process 0.06, network 0.03; our process 0.12); a Chromium trace puts the page's scripts at " +
    "about a tenth of the renderer's main thread, the rest is Chromium's work per navigation and frame. " +
    "Chromium's `RenderDocument` (a new frame host and frame for " +
    'every same-site navigation) was about 15 % of it and is off since (workers/chromium-flags.ts): 0.55–0.67 s ' +
    'of CPU, 418–512 ms a replay against 478–582 ms with it. Turning off site isolation, low-end-device mode, ' +
    'or smooth scrolling and threaded animation gained nothing beyond the noise (the back/forward cache is off in ' +
    'every Playwright launch already); ' +
    "earlier, waiting for `domcontentloaded`, injecting Playwright's script during the load and parallel " +
    "expectations gained nothing either. Later that day the workers moved to Chromium's headless shell " +
    '(workers/chromium-path.ts): interleaved with the full Chromium on the same replays (3 rounds of 24), 525 ms ' +
    'against 642 ms median and 0.76 s against 1.06 s of machine CPU a replay, on a machine 1.6× slower than in the ' +
    'morning; unthrottled frames (`--disable-frame-rate-limit`) were slower and dearer. Would move it: a faster ' +
    'core (this figure was 848 ms on 2026-12-02 at load 1.6, 532 ms on the morning of 2026-12-03 at load 1.2 and ' +
    '391 ms after `RenderDocument` went off, on a quicker machine), and a many-core worker replaying side by side ' +
    '(`replayContexts`). Compare figures taken the same day, with their load. Where a navigation of the demo app ' +
    'goes (2026-12-04, a protocol trace and a page-timing probe on a quiet machine): about 70 ms to `load`, since ' +
    "the app's ES modules load in a three-step waterfall (app.js, then core and features, then eight feature " +
    "modules, then its list request), every file `no-store`; then about 30 ms for Playwright's injected script " +
    '(330 KB evaluated in every new document, about 20 ms even where the same text ran before). A replay makes 1.6 ' +
    'such navigations on average and clears the page (30 ms) first: 300 ms would leave about 60 ms for its 3 to 5 ' +
    'other actions, each 15–45 ms plus the wait for the requests it started. Why the injected script is paid in ' +
    'every document (2026-12-04 evening, a renderer CPU profile and probes): V8 compiles its text again, ~40 ms on ' +
    "an idle core here, since Playwright evaluates it with the protocol's `Runtime.evaluate`, whose compile cache " +
    'is per document; the same text run as a classic script (`addInitScript`) would cost nothing after the first ' +
    "document (V8's script cache is per renderer process: a 407 KB script added 0 ms to a navigation that way, 40 " +
    'ms evaluated). Only Playwright can change how it injects. That evening, at load 1 on a freshly booted machine, ' +
    'the median was 668 ms (page 42, navigation 204, actions 239, settle 110, expectations 66 ms) with the same ' +
    "code: the machine's speed moves this figure more than any change left here. Late that evening (2026-12-04, " +
    'a freshly booted machine) the code that had measured 443 ms that afternoon took 684 ms, beside 724 and 793 ms ' +
    "for the evening's code (nothing between them touches a replay), and an hour later 571 ms, while the lanes " +
    'bench ran its quickest builds yet: compare replay figures only taken side by side. On 2026-12-05 (02:05, ' +
    'load 1.0) the median was 460 ms (page 29, navigation 121, actions 144, settle 88, expectations 43 ms). A probe ' +
    "that made playwright-core's Chromium side inject its scripts with the protocol's `Runtime.compileScript` and " +
    '`Runtime.runScript` instead of `Runtime.evaluate` (the package edited in place for the probe, then restored; 3 ' +
    'rounds of 36 replays a variant, interleaved; about six injections a replay) gained nothing: 447 against 448 ms. ' +
    "So that way of changing Playwright's injection does not reach 300 ms either; the target stays missed on this " +
    'machine (issue 29 closed as blocked on it).'
  );
}

/** One row per DESIGN.md target. */
export function targetRows(results: Measured): TargetRow[] {
  return [
    handoffRow(results),
    orientationRow(results),
    overheadRow(results),
    prefixRow(results),
    evaluatorRow(results),
    ...appStartRow(results),
    ...scaleRows(results),
    ...dashboardRows(results),
    ...checksRow(results),
    ...lanesTargetRow(results.lanes),
    ...sharedLanesTargetRow(results.lanesShared),
    ...mergeQueueTargetRow(results.mergeQueue),
    ...lanesScaleTargetRow(results.lanesScale),
    ...groundingTargetRows(results.grounding),
    ...overnightTargetRows(results.overnight),
    ...overnightTargetRows(results.overnightMealPlanner, 'overnight meal-planner'),
  ];
}
