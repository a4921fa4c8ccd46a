/**
 * Grounding of a `pass` (pure): the harness, not the model, decides whether a pass is backed by what the
 * evaluator's browser session actually showed. A pass counts only when it lists one entry per feature step, in
 * order, each naming its step (in any wording: grounding-steps.ts) and ok; when the browser actions each step asks
 * for were performed, in order; when each step's evidence quotes text the page showed after the step's action
 * (any quote marks, or a copied snapshot line: handoff/evidence.ts) rather than repeating the feature's own words;
 * when the session performed at least one browser action; and when every page error is explained by a step.
 * Each refusal names the feature's exact step, what was written, and the one thing to change.
 */
import type { ObservationEntry } from '../agent/tools/browser-log.js';
import { comparableText, containsPhrase, type EvidenceQuote, evidenceQuotes } from '../handoff/evidence.js';
import type { Feature, SubmittedVerdict, VerdictStep } from '../handoff/formats.js';
import {
  type FeatureTexts,
  restatedText,
  type SeenEntry,
  seenEntries,
  seenQuote,
  type TypedTexts,
  typedTexts,
  wasTyped,
} from './grounding-seen.js';
import {
  type ActionNeed,
  actionWording,
  alignEntries,
  closestStep,
  namesStep,
  stepActions,
  stepWords,
} from './grounding-steps.js';

/** The result of grounding one pass: grounded, or the list of what is missing (written for the model). */
export type Grounding = { grounded: true } | { grounded: false; problems: string[] };

/** What grounding needs of a feature: its steps, and its description when known (evidence must not repeat it). */
export type GroundedFeature = Pick<Feature, 'steps'> & Partial<Pick<Feature, 'description'>>;

/** Characters of a step or quote repeated in a problem message. */
const QUOTE_MAX = 80;

/** Checks a submitted pass against the feature and the session's observation log. */
export function groundPass(
  feature: GroundedFeature,
  verdict: Pick<SubmittedVerdict, 'steps'>,
  observations: readonly ObservationEntry[],
): Grounding {
  const problems = [...stepShapeProblems(feature.steps, verdict.steps), ...actionProblems(observations)];
  if (problems.length === 0) problems.push(...evidenceProblems(feature, verdict.steps, observations));
  problems.push(...pageErrorProblems(verdict.steps, observations));
  return problems.length === 0 ? { grounded: true } : { grounded: false, problems };
}

/** `Step 3 "Press Enter"`: how every problem about a step starts. */
function stepLabel(index: number, featureStep: string): string {
  return `Step ${index + 1} "${cut(featureStep)}"`;
}

function stepShapeProblems(featureSteps: readonly string[], entries: readonly VerdictStep[]): string[] {
  const words = featureSteps.map(stepWords);
  const problems: string[] = [];
  if (entries.length !== featureSteps.length) {
    const paired = alignEntries(
      entries.map((entry) => entry.step),
      words,
    );
    const rule = `one entry per feature step, ${featureSteps.length} in all, in the feature's order`;
    featureSteps.forEach((step, index) => {
      if (paired[index] === undefined)
        problems.push(`${stepLabel(index, step)} has no entry in your pass — add one (${rule}).`);
    });
    entries.forEach((entry, index) => {
      if (!paired.includes(index))
        problems.push(
          `Your entry ${index + 1} "${cut(entry.step)}" is not a step of this feature — remove it (${rule}).`,
        );
    });
    return problems;
  }
  featureSteps.forEach((step, index) => {
    const entry = entries[index] as VerdictStep;
    if (!namesStep(entry.step, words, index)) {
      const closest = closestStep(entry.step, words);
      const like = closest !== undefined && closest !== index ? `, which reads like step ${closest + 1}` : '';
      problems.push(
        `${stepLabel(index, step)} — your entry reads "${cut(entry.step)}"${like}; write this step as the feature has it.`,
      );
    }
    if (!entry.ok)
      problems.push(
        `${stepLabel(index, step)} — you marked it not ok; a pass needs every step ok, so submit fail if it is not.`,
      );
  });
  return problems;
}

function actionProblems(observations: readonly ObservationEntry[]): string[] {
  const acted = observations.some((entry) => entry.kind === 'action' && entry.ok);
  return acted
    ? []
    : ['No browser action was performed in this session: open the app and perform the steps before passing.'];
}

/** The successful browser actions of a session, in order, and whether each navigated. */
interface Action {
  seq: number;
  navigates: boolean;
}

function actionsOf(observations: readonly ObservationEntry[]): Action[] {
  return observations
    .filter((entry) => entry.kind === 'action' && entry.ok)
    .map((entry) => ({ seq: entry.seq, navigates: navigates(entry) }));
}

/** A navigation, a back navigation, or a reload key. */
function navigates(entry: ObservationEntry): boolean {
  if (entry.tool === 'browser_navigate' || entry.tool === 'browser_navigate_back') return true;
  const key = typeof entry.args.key === 'string' ? entry.args.key.toLowerCase() : '';
  return entry.tool === 'browser_press_key' && /^(f5|(control|meta)\+r)$/.test(key);
}

/**
 * The actions a step asks for, taken in order from the session's actions after `from` (extra actions in between
 * are skipped): their seqs, or how many were found when some are missing.
 */
function takeActions(
  needs: readonly ActionNeed[],
  actions: readonly Action[],
  from: number,
): { taken: number[] } | { found: number } {
  const taken: number[] = [];
  for (const need of needs) {
    const at = taken.at(-1) ?? from;
    const next = actions.find((action) => action.seq > at && (need === 'any' || action.navigates));
    if (!next) return { found: taken.length };
    taken.push(next.seq);
  }
  return { taken };
}

/** What the step's own actions name: their targets (name, label, text) and what they typed or chose. */
function actedOn(observations: readonly ObservationEntry[], seqs: readonly number[]): string[] {
  const names: string[] = [];
  for (const seq of seqs) {
    const entry = observations.find((candidate) => candidate.seq === seq);
    if (!entry) continue;
    const { target, args } = entry;
    names.push(...[target?.name, target?.label, target?.text].filter((name): name is string => !!name));
    if (typeof args.text === 'string') names.push(args.text);
    if (Array.isArray(args.values)) names.push(...args.values.filter((value) => typeof value === 'string'));
  }
  return names.map(comparableText);
}

/**
 * What grounding keeps between steps: where the previous step's actions ended, where its evidence was seen (the
 * next step's quotes must be seen there or later), and how to say what it did.
 */
interface Cursor {
  seq: number;
  evidenceSeq: number;
  /** "pressing Enter": the latest action step, worded for a send-back ("… after pressing Enter"). */
  after: string;
}

/** The session as the steps are grounded against it. */
interface SessionView {
  observations: readonly ObservationEntry[];
  typed: TypedTexts;
  seen: readonly SeenEntry[];
  actions: readonly Action[];
  feature: FeatureTexts;
}

/** Each step in order, the cursor moving along the session's actions. */
function evidenceProblems(
  feature: GroundedFeature,
  entries: readonly VerdictStep[],
  observations: readonly ObservationEntry[],
): string[] {
  const typed = typedTexts(observations);
  const view: SessionView = {
    observations,
    typed,
    seen: seenEntries(observations, typed),
    actions: actionsOf(observations),
    feature: { description: feature.description ?? '', steps: feature.steps },
  };
  const problems: string[] = [];
  let cursor: Cursor = { seq: 0, evidenceSeq: 0, after: 'acting' };
  feature.steps.forEach((step, index) => {
    const grounded = groundStep(view, index, entries[index] as VerdictStep, cursor);
    // One line per distinct problem (two quotes of one snapshot line fail alike).
    const distinct = [...new Set(grounded.problems)];
    problems.push(...distinct.map((problem) => `${stepLabel(index, step)} — ${problem}`));
    cursor = grounded.cursor;
  });
  return problems;
}

/**
 * One step: the actions it asks for must follow the previous step's; its quotes must have been on screen at or
 * after its first action (an outcome step: after the previous step's actions), or name what its actions acted on;
 * and its evidence must say more than the feature's own words.
 */
function groundStep(
  view: SessionView,
  index: number,
  entry: VerdictStep,
  cursor: Cursor,
): { problems: string[]; cursor: Cursor } {
  const step = view.feature.steps[index] as string;
  const needs = stepActions(step);
  const problems: string[] = [];
  let from = Math.max(cursor.seq, cursor.evidenceSeq);
  let named: string[] = [];
  let next = cursor;
  if (needs.length > 0) {
    const result = takeActions(needs, view.actions, cursor.seq);
    const after = actionWording(step);
    if ('found' in result) {
      problems.push(missingActionProblem(needs, result.found, index));
      next = { ...cursor, after };
    } else {
      from = Math.max(result.taken[0] as number, cursor.evidenceSeq);
      named = actedOn(view.observations, result.taken);
      next = { ...cursor, seq: result.taken.at(-1) as number, after };
    }
  }
  const quotes = evidenceQuotes(entry.evidence);
  if (quotes.length === 0 && needs.length === 0) {
    problems.push(
      `your evidence "${cut(entry.evidence)}" quotes nothing; put in quotes the text the page showed after ${next.after}.`,
    );
    return { problems, cursor: next };
  }
  let evidenceSeq = from;
  // Quotes the page already showed before the action that brought them add nothing to a copy of the feature's words.
  const alreadyShown = new Set<EvidenceQuote>();
  const quoteProblems = quotes.flatMap((quote) => {
    // An action step may name what it acted on ("Clicked "Delete Buy milk""), gone from the page afterwards.
    const wanted = comparableText(quote.text);
    if (named.some((name) => name === wanted || containsPhrase(name, wanted))) {
      alreadyShown.add(quote);
      return [];
    }
    const seenAt = firstSeen(view.seen, quote, from);
    if (!seenAt) return [quoteProblem(quote, view, next.after)];
    evidenceSeq = Math.max(evidenceSeq, seenAt.seq);
    const before = view.seen.findLast((seen) => seen.seq < seenAt.afterAction);
    if (before && seenQuote(before, quote)) alreadyShown.add(quote);
    return [];
  });
  next = { ...next, evidenceSeq };
  problems.push(...quoteProblems);
  if (quoteProblems.length > 0) return { problems, cursor: next };
  const shownBefore = (quote: EvidenceQuote) => alreadyShown.has(quote);
  const position = { index, acted: needs.length > 0 };
  const restated = restatedText(entry.evidence, quotes, view.feature, position, shownBefore);
  if (restated)
    problems.push(
      `your evidence "${cut(entry.evidence)}" only repeats ${restated}; instead quote text the page showed after ${next.after}.`,
    );
  return { problems, cursor: next };
}

function missingActionProblem(needs: readonly ActionNeed[], found: number, index: number): string {
  const since = index === 0 ? 'in this session' : `after step ${index}`;
  if (needs.length === 1 && needs[0] === 'navigate')
    return `the session shows no navigation or reload ${since}; perform it (browser_navigate), then quote what the page showed.`;
  return `it needs ${needs.length} browser action(s) ${since} and the session shows ${found}; perform the step as written, then quote what the page showed.`;
}

/** The first observation at or after `from` (and after an action) that showed the quote. */
function firstSeen(seen: readonly SeenEntry[], quote: EvidenceQuote, from: number): SeenEntry | undefined {
  return seen.find((entry) => entry.afterAction > 0 && entry.seq >= from && seenQuote(entry, quote));
}

/** Why a quote that was not seen where it had to be does not ground a step. */
function quoteProblem(quote: EvidenceQuote, view: SessionView, after: string): string {
  const { seen, typed } = view;
  const shown = `"${cut(quote.written)}"`;
  const earlier = seen.find((entry) => seenQuote(entry, quote));
  if (earlier)
    return `your evidence quotes ${shown}, which the page showed only before ${after} (observation ${earlier.seq}); quote what it showed after.`;
  if (wasTyped(typed, quote.text))
    return `your evidence quotes ${shown}, which the page showed only in a field you typed it into; quote where the page itself shows it after ${after}.`;
  return `your evidence quotes ${shown} but the browser never showed that text in this session; quote text the page showed after ${after}.`;
}

function pageErrorProblems(
  entries: readonly VerdictStep[],
  observations: readonly ObservationEntry[],
): string[] {
  const told = comparableText(entries.map((entry) => entry.evidence).join('\n'));
  const problems: string[] = [];
  for (const entry of observations) {
    for (const line of entry.pageErrors) {
      const message = comparableText(line.replace(/^\[(pageerror|crash)\]\s*/, ''));
      // Explained when the evidence repeats the message (its first characters: long messages get cut).
      if (message && told.includes(message.slice(0, QUOTE_MAX).trim())) continue;
      problems.push(
        `The page raised an error (observation ${entry.seq}): ${cut(line)}. A pass over a page error needs a step whose evidence quotes and explains it; otherwise submit fail.`,
      );
    }
  }
  return problems;
}

function cut(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > QUOTE_MAX ? `${line.slice(0, QUOTE_MAX)}…` : line;
}
