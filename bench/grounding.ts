/**
 * Grounded verdicts as models write them (issue 25): every wording style of the grounding family
 * (testkit/policies/grounding-styles.ts) on every feature of the finished todo app, one evaluator session each,
 * through the real harness, the real browser and both wire formats (alternating). Reports honest passes accepted
 * the first time, after the send-back and ever blocked, cheating passes accepted, and the scores the matcher's
 * thresholds are chosen from.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { RESTATED_SHARE, restatementShare } from '../evaluation/grounding-seen.js';
import {
  STEP_FLOOR,
  STEP_MARGIN,
  stepActions,
  stepOverlap,
  stepWords,
} from '../evaluation/grounding-steps.js';
import { comparableText, evidenceQuotes } from '../handoff/evidence.js';
import type { SubmittedVerdict } from '../handoff/formats.js';
import { WORDING_STYLES } from '../testkit/policies/grounding-styles.js';
import { TODO_FEATURES } from '../testkit/policies/todo-features.js';
import { startModelServer } from '../testkit/server.js';
import { createBrowserPool } from '../workers/browser-pool.js';
import {
  noteSubmissions,
  runTrial,
  styleWorkspace,
  TrialOutcome,
  trialTemplates,
} from './grounding-trial.js';
import { Spread, spread } from './stats.js';

/** Counts of one group of trials. */
const Tally = z.object({
  trials: z.number().int(),
  /** Trials whose pass was accepted as first submitted. */
  firstTime: z.number().int(),
  /** Trials sent back once whose next submission was accepted. */
  afterSendBack: z.number().int(),
  /** Trials whose verdict ended `blocked`. */
  blocked: z.number().int(),
});
type Tally = z.infer<typeof Tally>;

/** The scores behind the matcher's thresholds, from the styles' first submissions. */
const ThresholdData = z.object({
  /** Honest entries: score against their own step; margin = own − best other step of the feature. */
  honestOwnScore: Spread,
  honestMinOwnScore: z.number(),
  honestMinMargin: z.number(),
  /** The honest entry with the lowest margin, and its step. */
  closestCall: z.object({ entry: z.string(), step: z.string() }).optional(),
  /** Honest entries put at another step's place: how many of them that step would accept. */
  misplacedAccepted: z.number().int(),
  misplacedTotal: z.number().int(),
  /**
   * Evidence vs the feature's texts where the repetition rule applies (quotes only the feature's own, an outcome
   * step or another step's text): the highest share honest evidence repeats, the lowest a copy does.
   */
  honestMaxRestated: z.number(),
  honestMaxRestatedExample: z.string().optional(),
  copiesMinRestated: z.number(),
});
type ThresholdData = z.infer<typeof ThresholdData>;

/** The grounding section of the report. */
export const GroundingResult = z.object({
  features: z.number().int(),
  styles: z.array(z.object({ name: z.string(), kind: TrialOutcome.shape.kind, description: z.string() })),
  /** Trials of honest styles whose check passed; sloppy ones likewise (one slip each); cheating trials all claim a pass. */
  honest: Tally,
  sloppy: Tally,
  cheating: Tally,
  perStyle: z.array(Tally.extend({ style: z.string(), kind: TrialOutcome.shape.kind })),
  thresholds: ThresholdData,
  /** Every trial, without its submissions' text (kept short): verdict, each refusal's first problem, time. */
  trials: z.array(TrialOutcome.omit({ submissions: true })),
  trialMs: Spread,
});
export type GroundingResult = z.infer<typeof GroundingResult>;

function tally(trials: readonly TrialOutcome[]): Tally {
  return {
    trials: trials.length,
    firstTime: trials.filter((trial) => trial.verdict === 'pass' && trial.refusals.length === 0).length,
    afterSendBack: trials.filter((trial) => trial.verdict === 'pass' && trial.refusals.length > 0).length,
    blocked: trials.filter((trial) => trial.verdict === 'blocked').length,
  };
}

const round = (value: number) => Number(value.toFixed(3));

/** The feature of a trial (ids follow the catalogue's order). */
function featureOf(trial: TrialOutcome) {
  return TODO_FEATURES[Number(trial.featureId.slice(2)) - 1];
}

/** The first pass a trial submitted, with its feature. */
function firstPasses(trials: readonly TrialOutcome[], keep: (trial: TrialOutcome) => boolean) {
  return trials.flatMap((trial) => {
    const feature = featureOf(trial);
    const first: SubmittedVerdict | undefined = trial.submissions[0];
    return keep(trial) && feature && first?.verdict === 'pass' ? [{ trial, feature, first }] : [];
  });
}

/** How honest step entries score against their own step and the others. */
function stepScores(
  trials: readonly TrialOutcome[],
): Omit<ThresholdData, 'honestMaxRestated' | 'copiesMinRestated'> {
  const own: number[] = [];
  let margin = { value: 1, entry: '', step: '' };
  let misplacedAccepted = 0;
  let misplacedTotal = 0;
  for (const { feature, first } of firstPasses(trials, (trial) => trial.kind === 'honest')) {
    const words = feature.steps.map(stepWords);
    first.steps.forEach((entry, index) => {
      const scores = words.map((step) => stepOverlap(entry.step, step).score);
      const mine = scores[index] ?? 0;
      own.push(mine);
      const gap = mine - Math.max(0, ...scores.filter((_, at) => at !== index));
      if (gap < margin.value) margin = { value: gap, entry: entry.step, step: feature.steps[index] ?? '' };
      scores.forEach((score, at) => {
        if (at === index) return;
        misplacedTotal += 1;
        const best = Math.max(...scores.filter((_, other) => other !== at));
        if (score >= STEP_FLOOR && best <= score + STEP_MARGIN) misplacedAccepted += 1;
      });
    });
  }
  return {
    honestOwnScore: spread(own, 2),
    honestMinOwnScore: round(Math.min(...own)),
    honestMinMargin: round(margin.value),
    closestCall: { entry: margin.entry, step: margin.step },
    misplacedAccepted,
    misplacedTotal,
  };
}

/** Whether every quote of an evidence is one the feature itself quotes (the repetition rule's first condition). */
function quotesOnlyTheFeature(
  evidence: string,
  feature: { description: string; steps: readonly string[] },
): boolean {
  const own = new Set(
    [feature.description, ...feature.steps].flatMap((text) =>
      evidenceQuotes(text).map((q) => comparableText(q.text)),
    ),
  );
  return evidenceQuotes(evidence).every((quote) => own.has(comparableText(quote.text)));
}

/** How much of the feature's texts honest evidence and copies repeat, where the repetition rule applies. */
function restatementScores(
  trials: readonly TrialOutcome[],
): Pick<ThresholdData, 'honestMaxRestated' | 'honestMaxRestatedExample' | 'copiesMinRestated'> {
  let honest = { value: 0, example: '' };
  let copies = 1;
  for (const { trial, feature, first } of firstPasses(trials, () => true)) {
    first.steps.forEach((entry, index) => {
      const acts = stepActions(feature.steps[index] ?? '').length > 0;
      const texts = [feature.description, ...feature.steps.filter((_, at) => !(acts && at === index))];
      if (trial.kind === 'honest' && quotesOnlyTheFeature(entry.evidence, feature)) {
        const share = Math.max(...texts.map((text) => restatementShare(entry.evidence, text)));
        if (share > honest.value) honest = { value: share, example: entry.evidence };
      }
      const copied =
        trial.style === 'quotes-description'
          ? feature.description
          : trial.style === 'copies-steps' && !acts
            ? feature.steps[index]
            : undefined;
      if (copied !== undefined) copies = Math.min(copies, restatementShare(entry.evidence, copied));
    });
  }
  return {
    honestMaxRestated: round(honest.value),
    ...(honest.example ? { honestMaxRestatedExample: honest.example } : {}),
    copiesMinRestated: round(copies),
  };
}

/** Step and evidence scores of the first submissions, for choosing and checking the thresholds. */
function thresholdData(trials: readonly TrialOutcome[]): ThresholdData {
  return { ...stepScores(trials), ...restatementScores(trials) };
}

/** Runs every style on every feature (one session each; wire formats alternate) and tallies the outcomes. */
export async function measureGrounding(
  options: { log?: (line: string) => void } = {},
): Promise<GroundingResult> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'ns-bench-grounding-'));
  const submissions: { model: string; verdict: SubmittedVerdict }[] = [];
  const server = await startModelServer({ policy: noteSubmissions(submissions) });
  const browser = createBrowserPool();
  const trials: TrialOutcome[] = [];
  try {
    const templates = await trialTemplates(root);
    let session = 0;
    for (const [styleIndex, style] of WORDING_STYLES.entries()) {
      const workspace = styleWorkspace(templates, root, style.name);
      for (const [featureIndex, featureId] of templates.ids.entries()) {
        session += 1;
        const format = (styleIndex + featureIndex) % 2 === 0 ? 'anthropic' : 'openai';
        const dataDir = path.join(root, 'data');
        const trial = await runTrial(server, {
          browser,
          workspace,
          dataDir,
          style: style.name,
          featureId,
          session,
          format,
          submissions,
        });
        trials.push(trial);
        options.log?.(
          `${style.name} ${featureId} (${format}): ${trial.verdict}, ${trial.refusals.length} send-back(s)`,
        );
      }
    }
  } finally {
    await browser.close();
    await server.close();
    await rm(root, { recursive: true, force: true });
  }
  return groundingResult(trials);
}

/** The section's figures from the trials. */
export function groundingResult(trials: readonly TrialOutcome[]): GroundingResult {
  const passing = (kind: TrialOutcome['kind']) =>
    trials.filter((trial) => trial.kind === kind && trial.submissions[0]?.verdict === 'pass');
  return {
    features: new Set(trials.map((trial) => trial.featureId)).size,
    styles: WORDING_STYLES.map(({ name, kind, description }) => ({ name, kind, description })),
    honest: tally(passing('honest')),
    sloppy: tally(passing('sloppy')),
    cheating: tally(trials.filter((trial) => trial.kind === 'cheating')),
    perStyle: WORDING_STYLES.map((style) => ({
      style: style.name,
      kind: style.kind,
      ...tally(trials.filter((trial) => trial.style === style.name)),
    })),
    thresholds: thresholdData(trials),
    trials: trials.map(({ submissions: _submissions, ...rest }) => ({
      ...rest,
      refusals: rest.refusals.map((refusal) => ({ ...refusal, problems: refusal.problems.slice(0, 1) })),
    })),
    trialMs: spread(trials.map((trial) => trial.wallMs)),
  };
}

const percent = (part: number, whole: number) => (whole ? `${((100 * part) / whole).toFixed(1)} %` : 'n/a');

/** The section's target rows (issue 25). */
export function groundingTargetRows(
  result: GroundingResult | undefined,
): Array<{ name: string; target: string; measured: string; met: boolean; note?: string }> {
  if (!result) return [];
  const { honest: h, sloppy: s, cheating: c } = result;
  const styles = (kind: TrialOutcome['kind']) => result.styles.filter((style) => style.kind === kind).length;
  return [
    {
      name: 'grounding: honest passes accepted first time',
      target: `≥ 95 % of honest passes (${styles('honest')} wording styles × ${result.features} features)`,
      measured: `${h.firstTime}/${h.trials} (${percent(h.firstTime, h.trials)}); ${h.afterSendBack} more after the send-back`,
      met: h.trials > 0 && h.firstTime / h.trials >= 0.95,
    },
    {
      name: 'grounding: honest passes ever blocked',
      target: `0 (honest styles, and ${styles('sloppy')} sloppy ones that slip once and are sent back)`,
      measured: `${h.blocked} of ${h.trials} honest; sloppy: ${s.afterSendBack} of ${s.trials} accepted after the send-back, ${s.firstTime} first time, ${s.blocked} blocked`,
      met: h.trials > 0 && h.blocked === 0 && s.blocked === 0,
    },
    {
      name: 'grounding: cheating passes accepted',
      target: `0 (${styles('cheating')} cheating styles × ${result.features} features, first try and after the send-back)`,
      measured: `${c.firstTime} first time, ${c.afterSendBack} after the send-back, of ${c.trials}; ${c.blocked} recorded blocked`,
      met: c.trials > 0 && c.firstTime + c.afterSendBack === 0,
    },
  ];
}

/** The section of docs/benchmarks.md. */
export function groundingSection(result: GroundingResult | undefined, load: string): string {
  if (!result) return '';
  const t = result.thresholds;
  const rows = result.perStyle.map((style) => {
    const described = result.styles.find((candidate) => candidate.name === style.style)?.description ?? '';
    return `| ${style.kind} | \`${style.style}\` — ${described} | ${style.trials} | ${style.firstTime} | ${style.afterSendBack} | ${style.blocked} |`;
  });
  return [
    '## Grounded verdicts as models write them',
    '',
    `Every wording style of the grounding family on each of the ${result.features} features of the finished todo app: one evaluator session per style and feature through the real harness (the app started, a fresh browser context, the browser tools, \`submit_verdict\` with grounding and the pass gate), Anthropic and OpenAI wire formats alternating. A session took ${formatMs(result.trialMs)}. Load: ${load}.`,
    '',
    '| kind | style | trials | accepted first time | accepted after the send-back | blocked |',
    '|---|---|---|---|---|---|',
    ...rows,
    '',
    '**Thresholds from the data** (first submissions):',
    '',
    `- step entries: honest rewordings score ${t.honestMinOwnScore}–1 against their own step (median ${t.honestOwnScore.median ?? '—'}); the lowest margin over the best other step of the feature is ${t.honestMinMargin}${t.closestCall ? ` ("${t.closestCall.entry}" for "${t.closestCall.step}")` : ''}. Accepted when the score is ≥ ${STEP_FLOOR} and no other step scores more than ${STEP_MARGIN} higher. Put at another step's place, ${t.misplacedAccepted} of ${t.misplacedTotal} honest entries would still be accepted there (similar steps such as "The checkbox is checked" / "… still checked"): the step text is a weak check; the actions and the evidence are the strong ones.`,
    `- evidence that repeats the feature, where the rule applies (it quotes only what the feature quotes; an outcome step, or a text other than its own action step): honest evidence repeats at most ${t.honestMaxRestated} of a feature text (the smaller share both ways${t.honestMaxRestatedExample ? `, "${t.honestMaxRestatedExample}"` : ''}); copies of a step or of the description repeat at least ${t.copiesMinRestated}. Refused at ≥ ${RESTATED_SHARE} when, besides, its quotes were already on the page before the action that brought them.`,
    '',
  ].join('\n');
}

function formatMs(value: z.infer<typeof Spread>): string {
  return value.median === null
    ? '—'
    : `${(value.median / 1000).toFixed(1)} s median (p90 ${((value.p90 ?? 0) / 1000).toFixed(1)} s)`;
}
