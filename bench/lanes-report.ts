/** The lanes section of the benchmark report: the table, the target row and why a missed target was missed. */
import os from 'node:os';
import type { LanesResult, LanesRun } from './lanes.js';
import { phaseTable } from './phase-spans.js';

/** The speed-up of `lanes` lanes over one, from the median wall times of their builds (null when either is missing). */
export function speedup(result: LanesResult, lanes: number): number | null {
  const one = medianWallMs(result, 1);
  const many = medianWallMs(result, lanes);
  if (one === null || many === null || many <= 0) return null;
  return Number((one / many).toFixed(2));
}

/** The median wall time of the builds with `lanes` lanes (one build: its own), or null when there is none. */
export function medianWallMs(result: LanesResult, lanes: number): number | null {
  const walls = result.runs
    .filter((run) => run.lanes === lanes)
    .map((run) => run.wallMs)
    .sort((a, b) => a - b);
  if (walls.length === 0) return null;
  const middle = Math.floor(walls.length / 2);
  return walls.length % 2 === 1
    ? (walls[middle] as number)
    : ((walls[middle - 1] as number) + (walls[middle] as number)) / 2;
}

/** Each lane count's wall time: `4: 67 s`, or with several builds their median and each (`4: 67 s (62, 67, 70)`). */
function wallsText(result: LanesResult): string {
  const counts = [...new Set(result.runs.map((run) => run.lanes))];
  return counts
    .map((lanes) => {
      const builds = result.runs.filter((run) => run.lanes === lanes);
      const median = Math.round((medianWallMs(result, lanes) ?? 0) / 1000);
      const each = builds.map((run) => Math.round(run.wallMs / 1000)).join(', ');
      return builds.length > 1 ? `${lanes}: ${median} s (builds ${each})` : `${lanes}: ${median} s`;
    })
    .join(', ');
}

/** A build's name in the report: `4 lanes`, or `4 lanes (build 2)` when that count was built more than once. */
function buildLabel(result: LanesResult, run: LanesRun): string {
  return `${run.lanes} lane${run.lanes === 1 ? '' : 's'}${whichBuild(result, run)}`;
}

/** ` (build 2)` for the second of several builds with the same lane count; nothing for a count built once. */
function whichBuild(result: LanesResult, run: LanesRun): string {
  const builds = result.runs.filter((other) => other.lanes === run.lanes);
  return builds.length > 1 ? ` (build ${builds.indexOf(run) + 1})` : '';
}

/** The target row: ≥ 3× faster at 4 lanes than at 1, every feature passing, no commit lost (issue 16). */
export function lanesTargetRow(
  result: LanesResult | undefined,
): Array<{ name: string; target: string; measured: string; met: boolean; note?: string }> {
  if (!result) return [];
  const at4 = speedup(result, 4);
  const complete = result.runs.every((run) => run.passing === result.features && run.commitsLost === 0);
  const walls = wallsText(result);
  const conflicts = result.runs.reduce((sum, run) => sum + run.merges.conflict, 0);
  const met = at4 !== null && at4 >= 3 && complete;
  return [
    {
      name: 'parallel lanes',
      target: `${result.features} independent features, 2 worker processes: ≥ 3× faster at 4 lanes than at 1, 0 commits lost (issue 16)`,
      measured: `${at4 ?? '?'}× at 4 lanes (wall ${walls}); ${conflicts} merge conflicts seen and resolved; ${result.runs.reduce((sum, run) => sum + run.commitsLost, 0)} commits lost`,
      met,
      ...(met
        ? {}
        : {
            note: lanesMissNote(result),
          }),
    },
  ];
}

/** Why 4 lanes fall short of 3× (the figures of this result, the profiles of 2026-12-03 in words). */
function lanesMissNote(result: LanesResult, cores = os.cpus().length): string {
  const one = result.runs.find((run) => run.lanes === 1);
  const four = result.runs.find((run) => run.lanes === 4);
  const trains =
    four?.mergeSteps && four.mergeSteps > 0
      ? ` (${four.merges.merged} merges in ${four.mergeSteps} trains)`
      : '';
  const floor =
    one && four?.cpuMs !== undefined
      ? ` The 4-lane build used ${Math.round(four.cpuMs / 1000)} s of CPU: even with all ${cores} cores busy all the time it could not take less than ${Math.round(four.cpuMs / 1000 / cores)} s, at most ${(one.wallMs / (four.cpuMs / cores)).toFixed(2)}× the 1-lane build's ${Math.round(one.wallMs / 1000)} s${one.cpuMs !== undefined ? ` (which used ${Math.round(one.cpuMs / 1000)} s)` : ''}.`
      : '';
  return (
    'A lane no longer waits for the merge queue: its passed feature frees its place and the next feature starts ' +
    `meanwhile (pipelining), and the queue merges what waits in trains${trains}.${floor} ` +
    "Where that CPU goes (2026-12-03, process accounting over 4-lane builds of this spec): with Chromium's " +
    "headless shell, Chromium about a third, the worker processes (the harness, Playwright's driver, the browser " +
    'gate) about a third, git and the process that starts it about a fifth. The harness runs about 110 git ' +
    'processes per feature. Started from the worker, each froze its event loop for 22 ms (Node forks the ~280 MB ' +
    'worker) and cost it 7 ms of CPU; a process helper has started them since 2026-12-03 (core/spawn-helper.ts: one ' +
    '4-lane build 106 → 91 s, its CPU 152 → 128 s), and since 2026-12-04 the helper is a Python program where Python ' +
    "3 is installed (CPython starts a child with vfork): the helper's CPU in a 4-lane build fell from 12.6 s to 3.4 s, " +
    'the build from about 112 s of CPU to about 100 s. Since 2026-12-04 a lane branch is pushed once, by its ' +
    'session, pass gates, merge steps and sweeps borrow kept browser contexts instead of opening new ones, and a ' +
    'boxed evaluator refreshes no backup mirror (this bench runs unboxed): in 4-lane builds side by side, 82 → 74 s ' +
    "and 105 → 91 s of CPU with all three. Since that afternoon a lane's sync fetches nothing when the run's " +
    'repository has not moved past the clone (an evaluator after its own generator: lane fetches 34 → 17 a build), ' +
    "and the mirror's refresh overlaps the session's first model request (tools wait for it). A lane's feature " +
    "waits for the model (4 requests of 1.5 s), for its sessions' git handoffs (a generator's fetch, the push: " +
    "0.3–0.7 s each under load) and for the evaluator's app start (about 0.6 s under load). Since the evening of 2026-12-04 an " +
    "app copy borrows the workspace's objects for its checkout instead of fetching the head (0.54 → 0.23 s under " +
    'load), a worker loads playwright-core before its first job (loaded at the first evaluation, it paused every ' +
    'session of the worker for about a second: the longest event-loop pause of a 4-lane build 1.0–1.2 s → about ' +
    "0.2 s), and a lane's session trusts the head its sync reports (no second HEAD read and rollback): side by side, " +
    '4-lane builds 83 and 91 s → 80 and 79 s, 108–123 → 101–107 s of CPU; a lane generator runs 38 git processes, ' +
    'an evaluator 34 (44 and 40 before). Tried and left out: ' +
    "starting the evaluator's app during the model's first request " +
    '(its first tool call waiting for it) made 4-lane builds slower here, 86–87 s against 78–81 s and 8 s more CPU: ' +
    'with both cores busy, overlapping moves work, it does not remove it. Phase by phase (2026-12-04 evening, ' +
    '`NSBENCH_PHASES=1`, a 1-lane build of 209 s against a 4-lane one of 81 s; docs/lanes.md has the table): a ' +
    "generator session's time outside its two model requests grows from about 0.4 s to 2.1 s; an evaluator's is " +
    "3.9 s at 4 lanes (an app copy of 0.54 s and a start of 0.35 s, twice: its own app and the pass gate's); a " +
    "lane's generator runs 44 git processes (24 serially) at 43 ms each " +
    'under load (15 ms at 1 lane), its evaluator 40 at 61 ms: git is about 2 s of every lane session. ' +
    "Figures move with the machine's load by up " +
    'to 1.6× in a day. Would move it: fewer git processes per session and merge (each fetch or push starts 6; a ' +
    "local run's lane clone could borrow the run repository's objects and take its heads without a fetch), and " +
    'more cores.'
  );
}

/** A build's worker CPU and that CPU spread over the machine's cores: the least wall time it could have taken. */
export function cpuCell(run: LanesRun, cores = os.cpus().length): string {
  if (run.cpuMs === undefined) return '—';
  return `${(run.cpuMs / 1000).toFixed(0)} s (${(run.cpuMs / 1000 / cores).toFixed(0)} s on ${cores})`;
}

/** The report's lanes section. */
export function lanesSection(result: LanesResult | undefined, load: string): string {
  if (!result) return '';
  const rows = result.runs.map(
    (run) =>
      `| ${run.lanes}${whichBuild(result, run)} | ${run.status} ${run.passing}/${result.features} | ${(run.wallMs / 1000).toFixed(1)} s | ${speedup(result, run.lanes) ?? '—'}× | ${run.sessions} | ${run.peakConcurrentSessions} | ${run.merges.merged} / ${run.merges.conflict} / ${run.merges.rejected} / ${run.merges.error}${run.mergeSteps ? ` in ${run.mergeSteps} steps` : ''} | ${run.commitsLost} | ${run.modelRequests} | ${cpuCell(run)} |`,
  );
  return [
    '## Parallel lanes',
    '',
    `The same spec of ${result.features} independent features (every fourth also appends to one shared file, so lanes that run together conflict) built with 1, 2, 4 and 8 lanes by ${result.workers} worker processes, each with a slot per lane plus one for the merge queue. Every model request waits ${result.latencyMs} ms (a simulated model). One lane is the serial loop (no merge queue). Wall time is from the first session's start to the run's end.${result.runs.length > new Set(result.runs.map((run) => run.lanes)).size ? ' A lane count built more than once has a row per build; its speed-up is from the median wall time of its builds (one build moves ±5 s here).' : ''} Worker CPU is what both worker processes and their children (git, the apps, Chromium) used; spread over the cores it is a floor under the wall time that no number of lanes can go below (absent in runs recorded before 2026-12-03). With \`NSBENCH_PHASES=1\` the workers also sum their OpenTelemetry spans by phase (a table below; docs/operations.md, Traces).`,
    '',
    '| lanes | run | wall time | speed-up | sessions | most at once | merges: merged / conflict / rejected / error | commits lost | model requests | worker CPU (over the cores) |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    ...eventLoopPart(result),
    `Load average when this section started: ${load}.`,
    '',
    ...phasesPart(result),
  ].join('\n');
}

/** The longest pause of a worker's event loop per build (every session of that worker waited through it). */
function eventLoopPart(result: LanesResult): string[] {
  const builds = result.runs.flatMap((run) =>
    run.eventLoopMaxMs === undefined ? [] : [`${buildLabel(result, run)} ${run.eventLoopMaxMs} ms`],
  );
  if (builds.length === 0) return [];
  return [
    `The longest pause of a worker process's event loop during a build (every session of that worker waits through it): ${builds.join(', ')}.`,
    '',
  ];
}

/** Where the builds' time went, phase by phase, when the workers recorded their spans (`NSBENCH_PHASES=1`). */
function phasesPart(result: LanesResult): string[] {
  const builds = result.runs.flatMap((run) =>
    run.phases ? [{ label: buildLabel(result, run), phases: run.phases }] : [],
  );
  if (builds.length === 0) return [];
  return [
    "Where the time went (`NSBENCH_PHASES=1`: the harness's OpenTelemetry spans, summed by name under the session role, merge step or full sweep they ran in; spans nest, so rows overlap; `-`: outside any of them, e.g. apps started ahead for pass gates):",
    '',
    ...phaseTable(builds),
    '',
  ];
}
