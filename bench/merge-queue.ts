/**
 * Merge-queue time per merge as the app grows (issue 29): a workspace whose run branch already holds N passing
 * features, each brought in by a merge of the queue (`nightshift(merge): F-… from lane …`) with a page and a script
 * of its own, its script imported by one shared route table and its page linked from one shared nav list, and a
 * recorded check (open its page, click its button, see the text it shows). Then lanes that each add one more such
 * feature are merged one after another by the merge queue's own step (`mergeLanes`: merge, pick the checks, start
 * the app, replay them in Chromium, keep the merge), with the default selection and with `mergeChecks.affected:
 * all` (every passing feature's check on every merge, as before issue 29). No model, no Redis: the step's input is
 * the run's state in memory. `npm run bench -- --only merge-queue`.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { CheckFile } from '../checks/format.js';
import { checkFilePath } from '../checks/store.js';
import type { AffectedStrategy } from '../evaluation/affected-checks.js';
import { replayContexts } from '../evaluation/sweep-replays.js';
import { RunConfig } from '../orchestrator/config.js';
import type { LaneRecord } from '../orchestrator/lanes/lanes.js';
import { NewRun, newRunRecord } from '../orchestrator/run/run-records.js';
import { type FeatureState, type RunState, toFeatureState } from '../orchestrator/run/run-state.js';
import { type BrowserPool, createBrowserPool } from '../workers/browser-pool.js';
import { type MergeContext, mergeLanes } from '../workers/merge-train.js';
import { coveredMs, type GitSpanRecorder, recordGitSpans } from './git-spans.js';
import { AFFECTED_SIMULATION } from './report-notes.js';
import { formatSpread, Spread, spread } from './stats.js';
import { benchRunConfig } from './wiring.js';

/** One app size and selection: the merges measured there. */
export const MergeQueueSize = z.object({
  /** Passing features on the run branch when the first of these merges started. */
  passing: z.number().int(),
  strategy: z.string(),
  /** The whole merge-queue step per merge: merge, selection, app start, replays, result. */
  mergeMs: Spread,
  /** Of it, the harness's git processes (merge, the selection's log and diff, the app copy's fetch and checkout). */
  gitMs: Spread,
  /** Checks replayed per merge (the lane's own included), mean. */
  checksPerMerge: z.number(),
});
export type MergeQueueSize = z.infer<typeof MergeQueueSize>;

/** The merge-queue section of the report. */
export const MergeQueueResult = z.object({
  sizes: z.array(MergeQueueSize),
  /** Browser contexts the replays ran in at once (sized from the machine when the section started). */
  contexts: z.number().int(),
  /** Building the workspaces' histories (plain git, not measured). */
  buildMs: z.number(),
});
export type MergeQueueResult = z.infer<typeof MergeQueueResult>;

const RUN_ID = 'r-benchmerge';
const ROUTES_MARKER = '// -- pages: add imports above this line --';
const NAV_MARKER = '<!-- pages: add links above this line -->';

const SERVER = `const http = require('node:http');
const fs = require('node:fs');
const path = require('node:path');
const root = path.join(__dirname, 'public');
const types = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };
http
  .createServer((req, res) => {
    const { pathname } = new URL(req.url ?? '/', 'http://app');
    const file = path.join(root, pathname === '/' ? 'index.html' : decodeURIComponent(pathname));
    if (!file.startsWith(root + path.sep)) return res.writeHead(404).end();
    fs.readFile(file, (error, body) => {
      if (error) return res.writeHead(404).end('not found');
      res.writeHead(200, { 'content-type': types[path.extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-store' });
      res.end(body);
    });
  })
  .listen(Number(process.env.PORT), '127.0.0.1');
`;

function id(n: number): string {
  return `F-${String(n).padStart(3, '0')}`;
}

/** Plain git in the workspace (building the history is not what is measured). */
function git(dir: string, args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@localhost', ...args], {
    cwd: dir,
    encoding: 'utf8',
  });
}

function write(dir: string, file: string, text: string): void {
  fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  fs.writeFileSync(path.join(dir, file), text);
}

function insertAbove(dir: string, file: string, marker: string, line: string): void {
  const text = fs.readFileSync(path.join(dir, file), 'utf8');
  fs.writeFileSync(path.join(dir, file), text.replace(marker, `${line}\n${marker}`));
}

/** The app and an all-failing list of `total` features, committed on `main`. */
function createWorkspace(dir: string, total: number): void {
  const features = Array.from({ length: total }, (_, index) => ({
    id: id(index + 1),
    category: 'functional',
    description: `Page ${index + 1}: its button shows "Shown ${index + 1}"`,
    steps: [`Open /pages/f${index + 1}.html`, `Click "Show ${index + 1}"`, `See "Shown ${index + 1}"`],
    passes: false,
  }));
  const files: Record<string, string> = {
    'feature_list.json': `${JSON.stringify(features, null, 2)}\n`,
    'progress.md': '# Progress\n',
    'init.sh': '#!/usr/bin/env bash\nexec env PORT="$PORT" node server.js\n',
    'server.js': SERVER,
    'public/index.html': `<!doctype html>\n<title>Pages</title>\n<link rel="stylesheet" href="/style.css">\n<script type="module" src="/routes.js"></script>\n<ul>\n${NAV_MARKER}\n</ul>\n`,
    'public/routes.js': `// Every page's script.\n${ROUTES_MARKER}\n`,
    'public/style.css': 'body { font-family: system-ui, sans-serif; }\n',
    '.gitignore': '*.log\n',
  };
  for (const [file, text] of Object.entries(files)) write(dir, file, text);
  fs.chmodSync(path.join(dir, 'init.sh'), 0o755);
  git(dir, ['init', '-q', '-b', 'main']);
  git(dir, ['add', '-A']);
  git(dir, ['commit', '-q', '-m', 'the app']);
}

/** Feature n's change, as its lane's generator and evaluator leave it: page, script, registrations, check, flag. */
function addFeature(dir: string, n: number): void {
  write(
    dir,
    `public/pages/f${n}.html`,
    `<!doctype html>\n<title>Page ${n}</title>\n<link rel="stylesheet" href="/style.css">\n<h1>Page ${n}</h1>\n<button type="button">Show ${n}</button>\n<p id="out"></p>\n<script type="module" src="/pages/f${n}.js"></script>\n`,
  );
  write(
    dir,
    `public/pages/f${n}.js`,
    `const out = document.getElementById('out');\ndocument.querySelector('button')?.addEventListener('click', () => {\n  if (out) out.textContent = 'Shown ${n}';\n});\n`,
  );
  insertAbove(dir, 'public/routes.js', ROUTES_MARKER, `import './pages/f${n}.js';`);
  insertAbove(dir, 'public/index.html', NAV_MARKER, `<li><a href="/pages/f${n}.html">Page ${n}</a></li>`);
  fs.appendFileSync(path.join(dir, 'progress.md'), `- ${id(n)}: page ${n} and its button.\n`);
  const listFile = path.join(dir, 'feature_list.json');
  const list = JSON.parse(fs.readFileSync(listFile, 'utf8')) as Array<{ passes: boolean }>;
  (list[n - 1] as { passes: boolean }).passes = true;
  fs.writeFileSync(listFile, `${JSON.stringify(list, null, 2)}\n`);
  const check = {
    featureId: id(n),
    version: 1,
    recordedAt: new Date().toISOString(),
    origin: { runId: RUN_ID, session: n, reason: 'evaluate' as const },
    actions: [
      { kind: 'goto' as const, path: `/pages/f${n}.html` },
      { kind: 'click' as const, target: `getByRole('button', { name: 'Show ${n}', exact: true })` },
    ],
    expectations: [{ kind: 'text' as const, text: `Shown ${n}`, visible: true }],
  };
  const file = CheckFile.parse({ featureId: id(n), current: check, history: [], flaky: null });
  write(dir, checkFilePath(id(n)), `${JSON.stringify(file, null, 2)}\n`);
}

/** Features `from`…`to` merged by the queue into `main`, each from a lane branch of its own. */
function mergeFeatures(dir: string, from: number, to: number): void {
  if (from > to) return;
  for (let n = from; n <= to; n++) {
    const lane = (n % 4) + 1;
    git(dir, ['checkout', '-q', '-B', 'bench-lane', 'main']);
    addFeature(dir, n);
    git(dir, ['add', '-A']);
    git(dir, ['commit', '-q', '-m', `${id(n)}: page ${n}`]);
    git(dir, ['checkout', '-q', 'main']);
    git(dir, ['merge', '-q', '--no-ff', '-m', `nightshift(merge): ${id(n)} from lane ${lane}`, 'bench-lane']);
  }
  git(dir, ['branch', '-q', '-D', 'bench-lane']);
}

/** The run's state: features 1…passing pass on the run branch. */
function runState(dir: string, passing: number, strategy: AffectedStrategy): RunState {
  const config = benchRunConfig({ lanes: 4, mergeChecks: { affected: strategy } });
  const run = newRunRecord(
    NewRun.parse({
      id: RUN_ID,
      spec: { path: path.join(dir, 'app_spec.md'), name: 'app_spec.md' },
      workspace: { kind: 'local', path: dir },
      config,
    }),
    new Date(),
  );
  const list = JSON.parse(fs.readFileSync(path.join(dir, 'feature_list.json'), 'utf8')) as Array<{
    id: string;
    category: string;
    description: string;
    steps: string[];
  }>;
  const features: FeatureState[] = list.map((feature, index) =>
    toFeatureState({ ...feature, passes: index < passing }, index),
  );
  return { run: { ...run, status: 'building' }, features };
}

/** One lane of feature n merged by the queue's step: its time, the harness git in it, the checks replayed. */
async function measuredMerge(
  context: MergeContext & { git: GitSpanRecorder },
  dir: string,
  n: number,
  strategy: AffectedStrategy,
): Promise<{ mergeMs: number; gitMs: number; checks: number }> {
  const branch = `nightshift/${RUN_ID}/lane-1-${id(n)}`;
  git(dir, ['checkout', '-q', '-B', branch, 'main']);
  addFeature(dir, n);
  git(dir, ['add', '-A']);
  git(dir, ['commit', '-q', '-m', `${id(n)}: page ${n}`]);
  git(dir, ['checkout', '-q', 'main']);
  const state = runState(dir, n - 1, strategy);
  const lane: LaneRecord = { lane: 1, featureId: id(n), branch, seq: n, last: null, mergeSetbacks: 0 };
  const started = Date.now();
  const [result] = await mergeLanes(context, state, [lane], n);
  const ended = Date.now();
  if (result?.outcome !== 'merged')
    throw new Error(`the merge of ${id(n)} ended ${result?.outcome}: ${result?.detail}`);
  git(dir, ['branch', '-q', '-D', branch]);
  return {
    mergeMs: ended - started,
    gitMs: coveredMs(context.git.spans, started, ended),
    checks: result.checked.length,
  };
}

/** Measures `merges` merges at each size with each strategy. */
export async function measureMergeQueue(options: {
  sizes: readonly number[];
  merges: number;
  /** Merges per size with `affected: all` (they replay every check: minutes at 200). */
  allMerges: number;
  log?: (line: string) => void;
}): Promise<MergeQueueResult> {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'nsbench-merge-')));
  const dir = path.join(root, 'app');
  const browser: BrowserPool = createBrowserPool();
  // The bench's own git (building the history) runs through execFileSync: only the harness's spawned git is timed.
  const gitSpans = recordGitSpans();
  const context = { dataDir: path.join(root, 'data'), workerId: 'bench', browser, git: gitSpans };
  const perSize = options.merges + options.allMerges;
  const total = Math.max(...options.sizes) + perSize * options.sizes.length + 1;
  const sizes: MergeQueueSize[] = [];
  const contexts = replayContexts();
  let buildMs = 0;
  try {
    fs.mkdirSync(dir, { recursive: true });
    createWorkspace(dir, total);
    let merged = 0;
    for (const [index, size] of options.sizes.entries()) {
      const buildStarted = performance.now();
      mergeFeatures(dir, merged + 1, size);
      merged = Math.max(merged, size);
      buildMs += performance.now() - buildStarted;
      // The first merge warms the browser and the page cache up; it is not counted.
      if (index === 0) await measuredMerge(context, dir, ++merged, 'lines');
      for (const strategy of ['lines', 'all'] as const) {
        const count = strategy === 'all' ? options.allMerges : options.merges;
        const passing = merged;
        const runs = [];
        for (let merge = 0; merge < count; merge++)
          runs.push(await measuredMerge(context, dir, ++merged, strategy));
        if (runs.length === 0) continue;
        const figures = {
          passing,
          strategy,
          mergeMs: spread(runs.map((run) => run.mergeMs)),
          gitMs: spread(runs.map((run) => run.gitMs)),
          checksPerMerge: Number((runs.reduce((sum, run) => sum + run.checks, 0) / runs.length).toFixed(1)),
        };
        options.log?.(
          `${passing} passing, ${strategy}: ${formatSpread(figures.mergeMs, ' ms')} per merge, ${figures.checksPerMerge} checks`,
        );
        sizes.push(figures);
      }
    }
  } finally {
    gitSpans.stop();
    await browser.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
  return { sizes, contexts, buildMs: Math.round(buildMs) };
}

/** The default selection's figures at each size, smallest first. */
function affectedSizes(result: MergeQueueResult): MergeQueueSize[] {
  return result.sizes.filter((size) => size.strategy !== 'all').sort((a, b) => a.passing - b.passing);
}

/** The target row: merge-queue time per merge flat from 24 to 200 passing features (the largest within 1.5×). */
export function mergeQueueTargetRow(
  result: MergeQueueResult | undefined,
): Array<{ name: string; target: string; measured: string; met: boolean; note?: string }> {
  const sizes = result ? affectedSizes(result) : [];
  const first = sizes[0];
  const last = sizes.at(-1);
  if (!result || !first || !last || first === last) return [];
  const ratio =
    first.mergeMs.median && last.mergeMs.median
      ? Number((last.mergeMs.median / first.mergeMs.median).toFixed(2))
      : null;
  const met = ratio !== null && ratio <= 1.5;
  const seconds = (size: MergeQueueSize) => `${((size.mergeMs.median ?? 0) / 1000).toFixed(1)} s`;
  const all = result.sizes.filter((size) => size.strategy === 'all');
  return [
    {
      name: 'merge queue at scale',
      target: `merge-queue time per merge with a real browser at ${sizes.map((size) => size.passing).join(', ')} passing features: flat, the largest within 1.5× of the smallest (issue 29)`,
      measured: `${sizes.map((size) => `${size.passing}: ${seconds(size)} (${size.checksPerMerge} checks)`).join(', ')}: ${ratio ?? '?'}×; replaying every check instead: ${all.map((size) => `${size.passing}: ${seconds(size)}`).join(', ')}`,
      met,
      ...(met
        ? {}
        : {
            note: `Harness git took ${sizes.map((size) => `${size.gitMs.median} ms`).join(' → ')} of it (the merge, the selection's log and diff, the app copy's fetch and checkout of the head's tree, which grows with the app's files); the rest is the selection's reads, the app start and the replays (one or two checks).`,
          }),
    },
  ];
}

/** The report's section: the strategy simulation (by hand, `bench/affected-sim.ts`) and the measured merges. */
export function affectedChecksSection(result: MergeQueueResult | undefined, load: string): string {
  const measured = result
    ? [
        '### Merge-queue time per merge with a browser',
        '',
        `\`npm run bench -- --only merge-queue\`: a run branch already holding N passing features, each merged by the queue with a page and a script of its own, its script imported by one shared route table and its page linked from one shared nav list, and a recorded check (open the page, click its button, see its text). Lanes adding one more such feature each are then merged one after another by the merge queue's own step (\`mergeLanes\`: merge, pick the checks, start the app, replay in Chromium, keep the merge), with the default selection and with \`affected: all\` (every check, as before issue 29). Replays in ${result.contexts} browser context(s) at once (sized from the machine); the app without the box; the first merge (browser warm-up) not counted. Harness git grows with the app's files, not its history: the app's copy checks out the head's tree (three files per feature here) for every start.`,
        '',
        '| passing features | selection | merge-queue time per merge | of it, harness git | checks replayed per merge |',
        '|---|---|---|---|---|',
        ...[...result.sizes]
          .sort((a, b) => a.passing - b.passing || a.strategy.localeCompare(b.strategy))
          .map(
            (size) =>
              `| ${size.passing} | ${size.strategy === 'all' ? '`all` (every check)' : `\`${size.strategy}\` (default)`} | ${formatSpread(size.mergeMs, ' ms')} | ${formatSpread(size.gitMs, ' ms')} | ${size.checksPerMerge} |`,
          ),
        '',
        sweepShare(result),
        '',
        NOT_MEASURED,
        '',
        `Load average when this section started: ${load}.`,
        '',
      ]
    : [];
  return [AFFECTED_SIMULATION, ...measured].join('\n');
}

/** Merges between scheduled full sweeps by default (`mergeChecks.fullSweepEveryMerges`). */
const SWEEP_EVERY = RunConfig.parse({}).mergeChecks.fullSweepEveryMerges;

/** What the scheduled full sweeps add per merge: a sweep replays every check, about an `all` merge's time. */
function sweepShare(result: MergeQueueResult): string {
  const all = result.sizes.filter((size) => size.strategy === 'all').sort((a, b) => a.passing - b.passing);
  if (all.length === 0) return '';
  const perMerge = all
    .map((size) => `${size.passing}: ${((size.mergeMs.median ?? 0) / SWEEP_EVERY / 1000).toFixed(1)} s`)
    .join(', ');
  return (
    `What still grows with the app is the scheduled full sweep: it replays every passing feature's check (about an \`all\` merge's time) ` +
    `in the merge queue's step, every ${SWEEP_EVERY} merges by default, so spread over ${SWEEP_EVERY} merges it would add ${perMerge} per merge. ` +
    'Since 2026-12-03 a sweep due by merges also waits three times as long as the last sweep took (`mergeChecks.fullSweepMaxShare` 0.25), ' +
    'so sweeps take at most a quarter of the queue\'s time at any size (the 20-minute bound still holds); "Lanes at 200 features" measures it in a whole run. ' +
    'Not done: the sweep off the merge queue (a slot of its own on a snapshot of the head, bisecting as now).'
  );
}

/** Where the 200-feature 4-lane run the issue asks for is. */
const NOT_MEASURED =
  'A whole run at 200 features (wall time, merge-queue share, Redis commands per session) is the section "Lanes at ' +
  '200 features" (`npm run bench -- --only lanes-200`).';
