/** The overnight section of docs/benchmarks.md and its target rows (issue 28). */

import type { OvernightResult } from './overnight.js';
import {
  longestPath,
  OVERNIGHT_EXAMPLES,
  type OvernightExampleName,
  roundsWithLanes,
} from './overnight-examples.js';
import type { OvernightBuild, PhaseBreakdown } from './overnight-figures.js';

/** A target row (bench/results.ts `TargetRow`). */
interface Row {
  name: string;
  target: string;
  measured: string;
  met: boolean;
  note?: string;
}

const minutes = (ms: number) => `${(ms / 60_000).toFixed(1)} min`;
const per = (value: number, count: number) => (count > 0 ? value / count : Number.NaN);
const dollars = (value: number) => (Number.isFinite(value) ? `$${value.toFixed(3)}` : 'n/a');
const totalTokens = (build: OvernightBuild) =>
  build.tokens.input + build.tokens.output + build.tokens.cacheRead + build.tokens.cacheWrite;

/** Dollars per feature whose final code works. */
export function dollarsPerPassing(build: OvernightBuild): number {
  return per(build.costUsd, build.passing);
}

const PHASE_LABELS: Record<keyof PhaseBreakdown, string> = {
  modelWait: 'model wait',
  toolsBash: 'tools/bash',
  appStart: 'app start',
  evaluationBrowser: 'evaluation/browser',
  gitHandoff: 'git/handoff',
  mergeQueue: 'merge queue',
  idle: 'idle',
};

function phaseShares(phases: PhaseBreakdown): Array<[keyof PhaseBreakdown, number]> {
  const sum = Object.values(phases).reduce((total, value) => total + value, 0);
  return (Object.keys(PHASE_LABELS) as Array<keyof PhaseBreakdown>).map((key) => [
    key,
    sum > 0 ? phases[key] / sum : 0,
  ]);
}

/** What dominates a build's time, and after the model what comes next. */
export function dominantPhases(build: OvernightBuild): string {
  const sorted = phaseShares(build.phases).sort((a, b) => b[1] - a[1]);
  return sorted
    .slice(0, 3)
    .map(([key, share]) => `${PHASE_LABELS[key]} ${Math.round(share * 100)} %`)
    .join(', ');
}

function buildRow(build: OvernightBuild): string {
  const mergeShare = build.projectedWallMs > 0 ? build.phases.mergeQueue / build.projectedWallMs : 0;
  return [
    build.label,
    build.status,
    `${build.passing} / ${build.claimedPassing} / ${build.features}`,
    `${minutes(build.projectedWallMs)} (${minutes(build.measuredWallMs)})`,
    per(build.sessions, build.passing).toFixed(1),
    Math.round(per(totalTokens(build), build.passing)).toLocaleString('en-US'),
    dollars(dollarsPerPassing(build)),
    per(build.failedEvaluations, build.features).toFixed(2),
    `${build.blocked} (${build.falseBlocks})`,
    `${build.regressionsMade} / ${build.regressionsCaughtByChecks} / ${build.regressionsCaughtByModel}`,
    `${Math.round(mergeShare * 100)} %`,
    build.checksGreen === null ? '—' : `${build.checksGreen} / ${build.claimedPassing}`,
  ].join(' | ');
}

function phaseRow(build: OvernightBuild): string {
  const shares = phaseShares(build.phases);
  return [
    build.label,
    ...shares.map(([key, share]) => `${minutes(build.phases[key])} (${Math.round(share * 100)} %)`),
  ].join(' | ');
}

/** What bounds the 4-lane build's time next to the loop's (and next to 1 lane). */
function timeNote(
  result: OvernightResult,
  four: OvernightBuild,
  quick: OvernightBuild,
  one: OvernightBuild | undefined,
): string {
  const conflicts = four.merges.conflict ?? 0;
  const attempts = Object.values(four.merges).reduce((sum, count) => sum + count, 0);
  if (result.example !== 'todo') return mealPlannerTimeNote(result, four, quick, one);
  const conflictCost =
    conflicts > 0
      ? `, and at 4 lanes ${conflicts} merge conflicts sent to a model in ${attempts} merge attempts, each one more generator and evaluator round`
      : `; at 4 lanes ${attempts} merge attempts and none sent to a model (every todo feature registers itself above the same marker lines of api/modules.js and public/features.js: the harness merges such additions by rule)`;
  return (
    `Model wait is most of the night (4 lanes: ${dominantPhases(four)}), so model turns decide it. Nightshift made ` +
    `${four.modelRequests} model requests at 4 lanes${one ? ` and ${one.modelRequests} at 1` : ''} to the loop's ` +
    `${quick.modelRequests}: an independent evaluator session per evaluation on top of each generator${conflictCost}` +
    `${one ? ` (${four.sessions} sessions against ${one.sessions} at 1 lane)` : ''}. ${ceilingNote(result, quick, one)} ` +
    'The loop is quick partly because it claims what it ' +
    `never checked: ${quick.claimedPassing - quick.passing} of its ${quick.claimedPassing} features do not work. ` +
    'The projection stretches harness work of one lane that overlapped a model wait of another (an upper bound for ' +
    'lanes). Would move it: fewer evaluator turns per feature (a feature whose recorded check exists is replayed, ' +
    'not re-evaluated), and an example with many independent features (the meal planner: its own section below).'
  );
}

/** What bounds the 4-lane meal-planner build's time next to the loop's. */
function mealPlannerTimeNote(
  result: OvernightResult,
  four: OvernightBuild,
  quick: OvernightBuild,
  one: OvernightBuild | undefined,
) {
  const conflicts = four.merges.conflict ?? 0;
  const attempts = Object.values(four.merges).reduce((sum, count) => sum + count, 0);
  return (
    `4 lanes: ${dominantPhases(four)}. Nightshift made ${four.modelRequests} model requests at 4 lanes` +
    `${one ? ` and ${one.modelRequests} at 1` : ''} to the loop's ${quick.modelRequests} (an evaluator session per ` +
    `evaluation on top of each generator); ${conflicts} merge conflicts in ${attempts} merge attempts (the route ` +
    'table and the nav menu are shared by most features). The loop claims ' +
    `${quick.claimedPassing} features of which ${quick.passing} work. ${ceilingNote(result, quick, one)} The ` +
    'projection stretches harness work of one lane that overlapped a model wait of another (an upper bound for lanes).'
  );
}

/**
 * The most 4 lanes could gain on this example's `depends_on` graph (roundsWithLanes), and what 4× the loop would
 * then ask of a single lane.
 */
function ceilingNote(
  result: OvernightResult,
  quick: OvernightBuild,
  one: OvernightBuild | undefined,
): string {
  const example = OVERNIGHT_EXAMPLES[result.example as OvernightExampleName];
  if (!example) return '';
  const rounds = roundsWithLanes(example.dependsOn, result.features, 4);
  const longest = longestPath(example.dependsOn, result.features);
  const gain = result.features / rounds;
  const bound = `4 lanes need at least ${rounds} rounds of generator and evaluator where 1 lane does ${result.features} (the longest \`depends_on\` chain is ${longest})`;
  if (!one) return `${bound}.`;
  const best = (quick.projectedWallMs / one.projectedWallMs) * gain;
  return (
    `${bound}: even perfectly parallel, 4 lanes would finish ${gain.toFixed(2)}× sooner than 1 lane, ` +
    `${best.toFixed(2)}× the loop; 4× the loop would need 1 lane within ${(gain / 4).toFixed(2)}× of the loop's time, ` +
    `where it takes ${(one.projectedWallMs / quick.projectedWallMs).toFixed(2)}×.`
  );
}

/** What bounds the 4-lane build's dollars per working feature next to the loop's. */
function dollarNote(four: OvernightBuild, quick: OvernightBuild): string {
  return (
    `The loop checks its own work with one curl call per feature (a real quickstart agent tests in a browser, so its ` +
    `dollars here are a lower bound) and claims what curl cannot see: ${quick.claimedPassing - quick.passing} of its ` +
    `${quick.claimedPassing} claimed features do not work. Nightshift pays ${per(four.sessions, four.passing).toFixed(1)} ` +
    `sessions per working feature (the loop ${per(quick.sessions, quick.passing).toFixed(1)}): every pass is an LLM ` +
    'evaluation in a browser. Would move it: a cheaper evaluator model, and evaluations that reuse the recorded check ' +
    'where the feature has not changed.'
  );
}

/** The share of a build's time that is neither model wait nor idle. */
function harnessShare(build: OvernightBuild): number {
  const sum = Object.values(build.phases).reduce((total, value) => total + value, 0);
  return sum > 0 ? (sum - build.phases.modelWait - build.phases.idle) / sum : 0;
}

/** The section's closing note: what dominates the night, and what comes after the model. */
function closingNote(example: string, four: OvernightBuild, one: OvernightBuild | undefined): string {
  const conflicts = four.merges.conflict ?? 0;
  const shared = example === 'todo' ? 'the shared registry files' : 'the route table and nav menu';
  return (
    `What dominates the night: model wait (4 lanes: ${dominantPhases(four)}). After it, at 4 lanes, the cost is ` +
    `rounds rather than harness time: ${conflicts} merge conflicts on ${shared} sent features back ` +
    `to a generator and an evaluator${one ? ` (${four.sessions} sessions, against ${one.sessions} at 1 lane)` : ''}. ` +
    `The harness itself (tools, app start, browser, git, merge queue) is ${Math.round(harnessShare(four) * 100)} % ` +
    "of the 4 lanes' session time, led by evaluation in the browser."
  );
}

const find = (result: OvernightResult, name: string) => result.builds.find((build) => build.name === name);

/** What the section says of its example: the todo app's judge, or the meal planner's. */
function exampleNote(example: string): string {
  if (example === 'todo') {
    return '"Working" is the truth from the final code (files, registrations, planted bug fixed), not what the run claims. The meal-planner example has a section of its own (`overnight-meal-planner`).';
  }
  return '"Working" is the truth from the final code (files, every inserted line, the catalogue regression not planted, the server\'s imports), not what the run claims. Every app start runs `npm ci` of sql.js and dayjs from verdaccio on the loopback (offline, on the package cache), never the internet; the boxes are off (as in the other sections), npm pointed at the registry by `sandbox.npmRegistry`.';
}

/** Where the model turns and dollars went, by role, for the builds that measured it. */
function roleLines(builds: readonly OvernightBuild[]): string[] {
  const lines = builds
    .filter((build) => Object.keys(build.byRole).length > 0)
    .map((build) => {
      const roles = Object.entries(build.byRole)
        .sort(([, a], [, b]) => b.turns - a.turns)
        .map(
          ([role, figures]) =>
            `${role} ${figures.sessions} sessions, ${figures.turns} turns (${(figures.turns / Math.max(1, figures.sessions)).toFixed(1)} a session), ${dollars(figures.costUsd)}`,
        );
      return `- ${build.label}: ${roles.join('; ')}`;
    });
  return lines.length ? ['Model turns and dollars by role:', '', ...lines, ''] : [];
}

/** The report's overnight section (`heading`: one per example). */
export function overnightSection(
  result: OvernightResult | undefined,
  load: string,
  heading = '## The overnight run',
): string {
  if (!result) return '';
  const four = find(result, 'nightshift-4');
  const mistakes = result.builds
    .map((build) => `${build.label}: ${JSON.stringify(build.mistakesMade).replace(/"/g, '')}`)
    .join('; ');
  return [
    heading,
    '',
    `The ${result.example} example's ${result.features} features (with \`depends_on\`) built to done by the simulated model (seed ${result.seed}; turns median ${result.latency.medianMs / 1000} s, p95 ${result.latency.p95Ms / 1000} s, run ${result.compression}× compressed), three ways: nightshift with 1 lane (one worker process), nightshift with 4 lanes (two worker processes), and the quickstart-style loop (one agent session per feature, self-verification from the shell, the model re-checking the 2 last passing features, the 3 s pause; its self-check is one curl call, cheaper than the quickstart's browser self-test, so its dollars are a lower bound). Wall times are projected to real turn times (every moment a model request was in flight stretched by the compression; measured in brackets). Dollars at ${result.pricedAs} prices. ${exampleNote(result.example)}`,
    '',
    '| build | run | working / claimed / features | wall, projected (measured) | sessions per working feature | tokens per working feature | $ per working feature | failed evaluations per feature | blocked (false) | regressions made / caught by checks / by the model | merge queue share of wall | checks green at the end |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...result.builds.map((build) => `| ${buildRow(build)} |`),
    '',
    `Mistakes the model made: ${mistakes}.`,
    '',
    'Where the time went (sum over sessions, so lanes add up to more than the wall; model wait projected):',
    '',
    `| build | ${Object.values(PHASE_LABELS).join(' | ')} |`,
    `|---|${Object.values(PHASE_LABELS)
      .map(() => '---')
      .join('|')}|`,
    ...result.builds.map((build) => `| ${phaseRow(build)} |`),
    '',
    ...roleLines(result.builds),
    ...(four ? [closingNote(result.example, four, find(result, 'nightshift-1')), ''] : []),
    `Load average when this section started: ${load}.`,
    '',
  ].join('\n');
}

/**
 * The issue 28 targets: 4 lanes ≥ 4× sooner and ≤ 60 % of the dollars per passing feature of the quickstart loop
 * (`prefix` names the section: `overnight`, `overnight meal-planner`).
 */
export function overnightTargetRows(result: OvernightResult | undefined, prefix = 'overnight'): Row[] {
  if (!result) return [];
  const four = find(result, 'nightshift-4');
  const quick = find(result, 'quickstart');
  const nightshift = result.builds.filter((build) => build.name.startsWith('nightshift'));
  if (!four || !quick) return [];
  const speedup = quick.projectedWallMs / four.projectedWallMs;
  const dollarShare = dollarsPerPassing(four) / dollarsPerPassing(quick);
  const falseBlocks = nightshift.reduce((sum, build) => sum + build.falseBlocks, 0);
  const checksOk = nightshift.every(
    (build) => build.checksGreen === build.claimedPassing && build.falsePasses === 0,
  );
  return [
    {
      name: `${prefix}: time to done`,
      target:
        '4 lanes finish ≥ 4× sooner than the quickstart-style loop (projected to real turn times; issue 28)',
      measured: `${speedup.toFixed(2)}× (${minutes(four.projectedWallMs)} vs ${minutes(quick.projectedWallMs)}); 4 lanes' time: ${dominantPhases(four)}`,
      met: speedup >= 4,
      ...(speedup >= 4 ? {} : { note: timeNote(result, four, quick, find(result, 'nightshift-1')) }),
    },
    {
      name: `${prefix}: dollars per passing feature`,
      target: '4 lanes ≤ 60 % of the quickstart-style loop (features whose final code works; issue 28)',
      measured: `${Math.round(dollarShare * 100)} % (${dollars(dollarsPerPassing(four))} vs ${dollars(dollarsPerPassing(quick))}; quickstart claims ${quick.claimedPassing}, ${quick.passing} work)`,
      met: dollarShare <= 0.6,
      ...(dollarShare <= 0.6 ? {} : { note: dollarNote(four, quick) }),
    },
    {
      name: `${prefix}: false blocks`,
      target: '0 blocked features whose final code is correct (issue 28)',
      measured: `${falseBlocks} (${nightshift.map((build) => `${build.label}: ${build.blocked} blocked`).join(', ')})`,
      met: falseBlocks === 0,
    },
    {
      name: `${prefix}: passing features checked`,
      target:
        'every passing feature ends with a recorded check that replays green, none passes broken (issue 28)',
      measured: nightshift
        .map(
          (build) =>
            `${build.label}: ${build.checksGreen ?? 0}/${build.claimedPassing} green, ${build.falsePasses} false passes`,
        )
        .join('; '),
      met: checksOk,
    },
  ];
}
