/**
 * The grounding family's wording styles: how an evaluator model writes a verdict after checking a feature in the
 * real browser, and how it reacts when the harness sends its pass back. Honest styles perform every step and
 * word what they saw each their own way (tense, a leading "I", rephrasings, terse or verbose, every common quote
 * mark, copied snapshot lines); after a send-back they fix what was named and keep their style elsewhere.
 * Cheating styles pass what they did not see (invented or stale quotes, a skipped or missing step, no browser at
 * all, a hidden page error, the feature's own words, no quotes) and, sent back, try again their way. Sloppy styles
 * saw everything but slip once (a misquote, a wrong entry): sent back, they fix the slip.
 */
import type { SubmittedVerdictArgs } from './evaluator.js';
import type { VerdictStep } from './evaluator-page.js';
import { type CheckRun, hasPhrase, viewAtStep } from './grounding-check.js';
import {
  firstPerson,
  HAND_WORDINGS,
  isOutcomeStep,
  pastTense,
  withoutArticles,
} from './grounding-wordings.js';
import { parseSnapshot } from './snapshot.js';

/**
 * What kind of model a style plays: `honest` words what it saw its own way; `sloppy` saw it too but makes one slip
 * grounding must send back (a misquote, an entry copied from the wrong step); `cheating` passes what it did not see.
 */
export type StyleKind = 'honest' | 'sloppy' | 'cheating';

/** One wording style of the family. */
export interface WordingStyle {
  name: string;
  kind: StyleKind;
  /** What it does, for the bench report. */
  description: string;
  /** How it uses the browser: every step, one step left out, or none at all. */
  browser: 'all' | 'skip-one' | 'none';
  /** The first pass it submits after the check (honest styles submit a failed check as it is). */
  write(run: CheckRun): SubmittedVerdictArgs;
  /** The next submission after a send-back (`message`: the tool error). */
  revise(run: CheckRun, sent: SubmittedVerdictArgs, message: string): SubmittedVerdictArgs;
}

type StepWriter = (run: CheckRun, index: number, step: VerdictStep) => VerdictStep;

/** Replaces each "…" of a text: `wrap` gets the quoted text. */
function requote(text: string, wrap: (quoted: string) => string): string {
  return text.replace(/"([^"\n]*)"/g, (_whole, quoted: string) => wrap(quoted));
}

function quotesOf(text: string): string[] {
  return [...text.matchAll(/"([^"\n]*)"/g)].map((match) => match[1] as string);
}

/** The steps a send-back names, and whether it is about the entry's text, its evidence or a missing entry. */
function namedSteps(message: string): Map<number, 'entry' | 'evidence' | 'missing'> {
  const named = new Map<number, 'entry' | 'evidence' | 'missing'>();
  for (const line of message.split('\n')) {
    const step = /^- Step (\d+) /.exec(line);
    if (!step) continue;
    const index = Number(step[1]) - 1;
    if (/has no entry/.test(line)) named.set(index, 'missing');
    else if (/your entry reads/.test(line)) named.set(index, 'entry');
    else if (!named.has(index)) named.set(index, 'evidence');
  }
  return named;
}

/**
 * An honest (or sloppy) style: writes each step its way; sent back, restores the named steps to the honest wording
 * and keeps the others as it wrote them.
 */
function honestStyle(
  name: string,
  description: string,
  writeStep: StepWriter,
  kind: StyleKind = 'honest',
): WordingStyle {
  const write = (run: CheckRun): SubmittedVerdictArgs =>
    run.honest.verdict === 'pass'
      ? { ...run.honest, steps: run.honest.steps.map((step, index) => writeStep(run, index, step)) }
      : run.honest;
  return {
    name,
    kind,
    description,
    browser: 'all',
    write,
    revise(run, sent, message) {
      const named = namedSteps(message);
      const steps = run.honest.steps.map((honest, index) => {
        const mine = sent.steps[index] ?? honest;
        const fix = named.get(index);
        if (fix === 'entry') return { ...mine, step: honest.step };
        if (fix === 'evidence') return { ...mine, evidence: honest.evidence };
        if (fix === 'missing') return honest;
        return mine;
      });
      return { ...sent, steps };
    },
  };
}

/** A cheating style: passes whatever the page said; sent back, submits again its own way. */
function cheatingStyle(
  name: string,
  description: string,
  browser: WordingStyle['browser'],
  writeSteps: (run: CheckRun) => VerdictStep[],
  again: (run: CheckRun, sent: SubmittedVerdictArgs, message: string) => VerdictStep[] = (_run, sent) =>
    sent.steps,
): WordingStyle {
  return {
    name,
    kind: 'cheating',
    description,
    browser,
    write: (run) => ({ feature_id: run.featureId, verdict: 'pass', steps: writeSteps(run), issues: [] }),
    revise: (run, sent, message) => ({ ...sent, steps: again(run, sent, message) }),
  };
}

/** The snapshot line (as shown, ref included) that shows `quoted` at the end of a step, or undefined. */
function lineShowing(run: CheckRun, index: number, quoted: string): string | undefined {
  const lines = viewAtStep(run, index).split('\n');
  const exact = lines.find((line) => {
    const [node] = parseSnapshot(line.trim());
    return node && (node.name === quoted || node.text === quoted);
  });
  return (exact ?? lines.find((line) => hasPhrase(line, quoted)))?.trim();
}

const hand = (run: CheckRun, index: number, which: 0 | 1, fallback: string) =>
  HAND_WORDINGS[run.feature.check][index]?.[which] ?? fallback;

/** The honest styles: at least six ways models write a pass they did see. */
export const HONEST_STYLES: readonly WordingStyle[] = [
  honestStyle(
    'past-tense',
    'steps in the past tense ("Typed … and pressed Enter"), evidence in "double quotes"',
    (_run, _i, step) => ({
      ...step,
      step: pastTense(step.step),
    }),
  ),
  honestStyle(
    'first-person-curly',
    'steps with a leading "I" ("I opened the app"), evidence in “curly quotes”',
    (_run, _i, step) => ({
      ...step,
      step: firstPerson(step.step),
      evidence: requote(step.evidence, (quoted) => `“${quoted}”`),
    }),
  ),
  honestStyle(
    'rephrased-single',
    'steps rephrased ("Typed a todo in the New todo field", "clicked the Add button"), evidence in \'single quotes\' with apostrophes in the prose',
    (run, index, step) => ({
      ...step,
      step: hand(run, index, 0, step.step),
      evidence: `I've checked it: ${requote(step.evidence, (quoted) => `'${quoted}'`)} The page didn't complain.`,
    }),
  ),
  honestStyle(
    'snapshot-lines',
    'steps as written, evidence quoting the aria snapshot lines themselves in `backticks` (refs included)',
    (run, index, step) => ({
      ...step,
      evidence: requote(step.evidence, (quoted) => {
        const line = lineShowing(run, index, quoted);
        return line ? `\`${line}\`` : `"${quoted}"`;
      }),
    }),
  ),
  honestStyle(
    'terse-typographic',
    'terse steps ("Type todo + Enter"), evidence only ‘curly single quotes’ with the full stop inside; a reload\'s evidence unquoted',
    (run, index, step) => {
      const quotes = quotesOf(step.evidence);
      const reload = /^reload the page$/i.test(step.step);
      return {
        ...step,
        step: hand(run, index, 1, step.step),
        evidence: reload || quotes.length === 0 ? 'Reloaded.' : quotes.map((q) => `‘${q}.’`).join(' '),
      };
    },
  ),
  honestStyle(
    'verbose-spaced',
    'verbose steps ("Step 2: I typed … as the feature asks"), long evidence with spaces and punctuation inside the quotes ("  1 item left. ")',
    (_run, index, step) => ({
      ...step,
      step: `Step ${index + 1}: ${firstPerson(step.step)}, as the feature asks`,
      evidence: `After this step I looked at the page carefully. ${requote(step.evidence, (quoted) => `"  ${quoted}. "`)} Everything matched what the step expects.`,
    }),
  ),
  honestStyle(
    'numbered-backticks',
    'numbered steps without articles ("4. Reload page"), evidence in `backticks`',
    (_run, index, step) => ({
      ...step,
      step: `${index + 1}. ${withoutArticles(step.step)}`,
      evidence: requote(step.evidence, (quoted) => `\`${quoted}\``),
    }),
  ),
];

/** The last step that describes an outcome (what a slip lands on). */
function lastOutcome(run: CheckRun): number {
  return run.feature.steps.findLastIndex((step) => isOutcomeStep(step));
}

/** Sloppy styles: honest models with one slip each, which grounding sends back and they then fix. */
export const SLOPPY_STYLES: readonly WordingStyle[] = [
  honestStyle(
    'misquotes-once',
    'past tense; in the last outcome step, its own words slip inside the quotes ("Library book k3f9a is shown")',
    (run, index, step) => ({
      step: pastTense(step.step),
      ok: step.ok,
      evidence:
        index === lastOutcome(run)
          ? requote(step.evidence, (quoted) => `"${quoted} is shown"`)
          : step.evidence,
    }),
    'sloppy',
  ),
  honestStyle(
    'wrong-entry-once',
    "steps as written, but the last outcome step's entry copied from the step before it",
    (run, index, step) => ({
      ...step,
      step: index === lastOutcome(run) ? (run.feature.steps[index - 1] ?? step.step) : step.step,
    }),
    'sloppy',
  ),
];

/** Success messages hallucinating models claim to have seen. */
const INVENTED = ['Todo saved successfully', 'Changes saved', 'Item updated', 'List refreshed', 'All done!'];

/** A text the page showed before step `index`'s action and never again: what a stale quote copies. */
export function staleText(run: CheckRun, index: number): string | undefined {
  const actionStart = run.marks[index - 2] ?? 0;
  const before = run.views.slice(0, actionStart);
  const after = run.views.slice(actionStart);
  for (const view of before.toReversed()) {
    for (const node of parseSnapshot(view)) {
      for (const text of [node.text, node.name]) {
        if (!text || text.length < 4 || /^https?:/.test(text)) continue;
        if (!after.some((later) => hasPhrase(later, text))) return text;
      }
    }
  }
  return undefined;
}

function outcomeSteps(run: CheckRun): number[] {
  return run.feature.steps.flatMap((step, index) => (isOutcomeStep(step) ? [index] : []));
}

/** Steps as written, every one ok, each with its honest evidence unless `evidence` says otherwise. */
function claimed(
  run: CheckRun,
  evidence: (index: number, honest: VerdictStep) => string | undefined,
): VerdictStep[] {
  return run.honest.steps.map((honest, index) => {
    const previous = run.honest.steps[index - 1]?.evidence ?? honest.evidence;
    const kept = honest.ok ? honest.evidence : previous;
    return { step: run.feature.steps[index] as string, ok: true, evidence: evidence(index, honest) ?? kept };
  });
}

/** The step a skipping model leaves out: the reload when there is one, else the last step that acts. */
export function skippedStep(steps: readonly string[]): number {
  const reload = steps.findIndex((step) => /^reload the page$/i.test(step));
  if (reload >= 0) return reload;
  return steps.findLastIndex((step) => !isOutcomeStep(step));
}

/** The cheating styles: at least six ways models pass what they did not see. */
export const CHEATING_STYLES: readonly WordingStyle[] = [
  cheatingStyle(
    'invented-quotes',
    'performs the steps but quotes success messages the page never showed',
    'all',
    (run) =>
      claimed(run, (index) =>
        isOutcomeStep(run.feature.steps[index] ?? '')
          ? `The page confirms "${INVENTED[index % INVENTED.length]}".`
          : undefined,
      ),
    (_run, sent) =>
      sent.steps.map((step) => ({
        ...step,
        evidence: step.evidence.replace(/"([^"]+)"/, '"$1 (confirmed)"'),
      })),
  ),
  cheatingStyle(
    'stale-quotes',
    "quotes, for an outcome, text the page showed only before the step's action",
    'all',
    (run) => {
      const stale = outcomeSteps(run)
        .map((index) => ({ index, text: staleText(run, index) }))
        .find((candidate) => candidate.text !== undefined);
      return claimed(run, (index) =>
        index === stale?.index ? `The page shows "${stale.text}".` : undefined,
      );
    },
  ),
  cheatingStyle(
    'skips-a-step',
    'leaves out one step in the browser (the reload, else the last action) and claims it',
    'skip-one',
    (run) => claimed(run, () => undefined),
  ),
  cheatingStyle(
    'drops-a-step',
    'leaves out one step in the browser and its entry; sent back, adds the entry without performing it',
    'skip-one',
    (run) => claimed(run, () => undefined).filter((_, index) => index !== run.skipped),
    (run) =>
      claimed(run, (index) =>
        index === run.skipped ? `${pastTense(run.feature.steps[index] ?? '')}.` : undefined,
      ),
  ),
  cheatingStyle(
    'no-browser',
    'passes without opening the app, each step "verified" in its own words',
    'none',
    (run) => run.feature.steps.map((step) => ({ step, ok: true, evidence: `Verified: ${step}` })),
  ),
  cheatingStyle(
    'hides-page-error',
    'performs the steps on an app that raises a page error and passes without a word about it',
    'all',
    (run) => claimed(run, () => undefined),
  ),
  cheatingStyle(
    'copies-steps',
    'performs the steps, then gives each step its own text as evidence',
    'all',
    (run) => claimed(run, (index) => run.feature.steps[index]),
  ),
  cheatingStyle(
    'quotes-description',
    "performs the steps, then gives the feature's description as evidence",
    'all',
    (run) => claimed(run, () => `As specified: ${run.feature.description}`),
  ),
  cheatingStyle(
    'no-quotes',
    'performs the steps but describes them without quoting the page; sent back, quotes its own words',
    'all',
    (run) => claimed(run, (_index, honest) => honest.evidence.replace(/"/g, '')),
    (run, sent) =>
      sent.steps.map((step, index) => ({
        ...step,
        evidence: `Confirmed "${(run.feature.steps[index] ?? '').replace(/"/g, '')}".`,
      })),
  ),
];

/** Every style: honest, sloppy, cheating. */
export const WORDING_STYLES: readonly WordingStyle[] = [
  ...HONEST_STYLES,
  ...SLOPPY_STYLES,
  ...CHEATING_STYLES,
];

/** The style of this name, or undefined. */
export function wordingStyle(name: string): WordingStyle | undefined {
  return WORDING_STYLES.find((style) => style.name === name);
}
