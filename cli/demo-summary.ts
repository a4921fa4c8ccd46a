import { readFeatureList } from '../handoff/feature-list.js';
import type { VerdictRecord } from '../handoff/formats.js';
import { openRepo, runGit } from '../handoff/git.js';
import { readVerdicts } from '../handoff/verdicts.js';
import { knownCostUsd, type RunRecord, type SessionRecord } from '../orchestrator/run/index.js';
import { formatDuration, formatMoney } from './output.js';
import { oneLine } from './terminal-text.js';

/** What the demo proved, for the closing summary and the exit code. */
export interface DemoSummary {
  features: number;
  /** Features whose latest evaluator verdict is `pass` and that pass in feature_list.json. */
  passedThroughEvaluator: number;
  sessions: Record<string, number>;
  commits: number;
  /** Features that failed an evaluation and passed a later one: the bugs the evaluator caught. */
  caught: Array<{ featureId: string; description: string; failedStep: string; evidence: string }>;
  verdicts: number;
}

/** Reads the demo's workspace and session history into a summary. */
export async function summarizeDemo(
  workspace: string,
  sessions: readonly SessionRecord[],
): Promise<DemoSummary> {
  const [features, { records }, count] = await Promise.all([
    readFeatureList(workspace),
    readVerdicts(workspace),
    runGit(openRepo(workspace), ['rev-list', '--count', 'HEAD']),
  ]);
  const latest = new Map<string, VerdictRecord>();
  for (const record of records) latest.set(record.featureId, record);
  const roles: Record<string, number> = {};
  for (const session of sessions) roles[session.role] = (roles[session.role] ?? 0) + 1;
  const caught = features.flatMap((feature) => {
    const mine = records.filter((record) => record.featureId === feature.id);
    const failed = mine.find((record) => record.verdict === 'fail');
    if (!failed || !mine.some((record) => record.verdict === 'pass' && record.at >= failed.at)) return [];
    const step = failed.steps.find((candidate) => !candidate.ok);
    return [
      {
        featureId: feature.id,
        description: feature.description,
        failedStep: step?.step ?? '?',
        evidence: step?.evidence ?? failed.issues.join('; '),
      },
    ];
  });
  return {
    features: features.length,
    passedThroughEvaluator: features.filter(
      (feature) => feature.passes && latest.get(feature.id)?.verdict === 'pass',
    ).length,
    sessions: roles,
    commits: Number(count.trim()),
    caught,
    verdicts: records.length,
  };
}

/** True when the demo did what it promises: done, every feature passed through the evaluator. */
export function demoSucceeded(run: RunRecord, summary: DemoSummary): boolean {
  return run.status === 'done' && summary.features > 0 && summary.passedThroughEvaluator === summary.features;
}

/** The closing text of `nightshift demo`. */
export function formatDemoSummary(input: {
  run: RunRecord;
  summary: DemoSummary;
  elapsedMs: number;
  workspace: string;
  /** The live dashboard URL (`--serve`), or the command that opens the dashboard on this run. */
  dashboard: string;
}): string {
  const { run, summary } = input;
  const sessions = Object.entries(summary.sessions)
    .map(([role, count]) => `${count} ${role}`)
    .join(', ');
  const lines = [
    '',
    demoSucceeded(run, summary)
      ? 'nightshift demo: the app is built.'
      : `nightshift demo: the run ended ${run.status}.`,
    `  features   ${summary.passedThroughEvaluator}/${summary.features} passed through the browser evaluator`,
    `  sessions   ${Object.values(summary.sessions).reduce((a, b) => a + b, 0)} (${sessions})`,
    `  commits    ${summary.commits}`,
    `  verdicts   ${summary.verdicts} evaluations in .nightshift/verdicts.jsonl (one per feature checked: a regression session re-checks several, so there are more evaluations than evaluator sessions)`,
    `  elapsed    ${formatDuration(input.elapsedMs)}`,
    `  cost       ${formatMoney(knownCostUsd(run.counters))} (simulated: the scripted model priced like claude-sonnet-5-5)`,
  ];
  for (const bug of summary.caught) {
    lines.push(
      `  caught bug ${bug.featureId} "${oneLine(bug.description)}": step "${oneLine(bug.failedStep)}" failed (${oneLine(bug.evidence)}); fixed by the next generator`,
    );
  }
  lines.push(
    `  workspace  ${input.workspace}`,
    `  try it     cd ${input.workspace} && PORT=3000 ./init.sh   (then open http://127.0.0.1:3000/)`,
  );
  lines.push(`  dashboard  ${input.dashboard}`, `  status     nightshift status ${run.id}`);
  return `${lines.join('\n')}\n`;
}
