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
import { comparableText, type EvidenceQuote, evidenceQuotes } from '../handoff/evidence.js';
import type { Feature, SubmittedVerdict, VerdictStep } from '../handoff/formats.js';
import { type Action, actionsOf, namingAction, reservedFrom, takeActions } from './grounding-actions.js';
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

/**
 * What grounding keeps between steps: where the previous step's actions ended, where its evidence was seen (the
 * next step's quotes must be seen there or later), and how to say what it did.
 */
interface Cursor {
  seq: number;
  evidenceSeq: number;
  /** "pressing Enter": the latest action step, worded for a send-back ("… after pressing Enter"). */
  after: string;
  /** Set when the latest action step's evidence carried its actions past those its words ask for: to which one. */
  stretched?: { step: number; seq: number };
}

/** The session as the steps are grounded against it. */
interface SessionView {
  observations: readonly ObservationEntry[];
  typed: TypedTexts;
  seen: readonly SeenEntry[];
  actions: readonly Action[];
  feature: FeatureTexts;
  /** The browser actions each feature step's words ask for. */
  needs: readonly (readonly ActionNeed[])[];
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
    needs: feature.steps.map(stepActions),
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
 * An action step's actions: from `first` (the first its words ask for) through `end` (at least the last they ask
 * for; its quotes may carry it further). A quote that only names what an action did may carry it up to `reach`,
 * short of the actions the later steps need (grounding-actions.ts, `reservedFrom`).
 */
interface Span {
  first: number;
  end: number;
  reach: number;
}

function spanOf(view: SessionView, index: number, taken: readonly number[]): Span {
  const later = view.needs.slice(index + 1).flat();
  const reach = reservedFrom(later, view.actions) - 1;
  return { first: taken[0] as number, end: taken.at(-1) as number, reach };
}

/**
 * One step: the actions it asks for must follow the previous step's; its quotes must have been on screen at or
 * after its first action (an outcome step: after the previous step's actions), or name what its actions acted on;
 * and its evidence must say more than the feature's own words. An action step's actions run on to where its
 * evidence is (`placeQuote`), so the next step's actions are looked for after those.
 */
function groundStep(
  view: SessionView,
  index: number,
  entry: VerdictStep,
  cursor: Cursor,
): { problems: string[]; cursor: Cursor } {
  const needs = view.needs[index] as readonly ActionNeed[];
  const problems: string[] = [];
  let span: Span | undefined;
  let next = cursor;
  if (needs.length > 0) {
    const result = takeActions(needs, view.actions, cursor.seq);
    if ('found' in result) problems.push(missingActionProblem(needs, result.found, index, cursor));
    else span = spanOf(view, index, result.taken);
    next = { ...cursor, after: actionWording(view.feature.steps[index] as string) };
  }
  const quotes = evidenceQuotes(entry.evidence);
  if (quotes.length === 0 && needs.length === 0) {
    problems.push(
      `your evidence "${cut(entry.evidence)}" quotes nothing; put in quotes the text the page showed after ${next.after}.`,
    );
    return { problems, cursor: next };
  }
  const from = Math.max(span?.first ?? cursor.seq, cursor.evidenceSeq);
  const placed = placeQuotes(view, quotes, span, from, next.after);
  next = { ...next, evidenceSeq: placed.evidenceSeq };
  if (span) {
    const { stretched: _previous, ...rest } = next;
    const stretched = placed.end > span.end ? { stretched: { step: index + 1, seq: placed.end } } : {};
    next = { ...rest, seq: placed.end, ...stretched };
  }
  problems.push(...placed.problems);
  if (placed.problems.length > 0) return { problems, cursor: next };
  const shownBefore = (quote: EvidenceQuote) => placed.shownBefore.has(quote);
  const position = { index, acted: needs.length > 0 };
  const restated = restatedText(entry.evidence, quotes, view.feature, position, shownBefore);
  if (restated)
    problems.push(
      `your evidence "${cut(entry.evidence)}" only repeats ${restated}; instead quote text the page showed after ${next.after}.`,
    );
  return { problems, cursor: next };
}

/**
 * Where a step's quotes put its evidence: the latest observation they rely on, the last action of the step (for an
 * action step), the quotes that do not ground, and those the page already showed before the action that brought
 * them (they add nothing to a copy of the feature's words).
 */
interface Placed {
  evidenceSeq: number;
  end: number;
  problems: string[];
  shownBefore: Set<EvidenceQuote>;
}

function placeQuotes(
  view: SessionView,
  quotes: readonly EvidenceQuote[],
  span: Span | undefined,
  from: number,
  after: string,
): Placed {
  const placed: Placed = { evidenceSeq: from, end: span?.end ?? 0, problems: [], shownBefore: new Set() };
  for (const quote of quotes) {
    const at = placeQuote(view, quote, span, from);
    if (!at) {
      placed.problems.push(quoteProblem(quote, view, after));
      continue;
    }
    placed.evidenceSeq = Math.max(placed.evidenceSeq, at.seq);
    placed.end = Math.max(placed.end, at.lastAction);
    if (at.shownBefore) placed.shownBefore.add(quote);
  }
  return placed;
}

/** Where one quote grounds: the observation (or naming action) it relies on, and the last action up to there. */
interface QuoteAt {
  seq: number;
  lastAction: number;
  shownBefore: boolean;
}

/**
 * Where one quote grounds, in this order. (1) What the step's own actions (those its words ask for) acted on or
 * typed: a clicked "Delete Buy milk" is gone afterwards, a typed "Call mum" is not page text in its field. (2) The
 * first observation at or after `from` that showed it; never earlier, so evidence from before the step's first
 * action stays refused. The step's actions run to the last action before that observation: "Sign up as a new user"
 * is one clause but a whole form, and its "Welcome" shows only after the last click. (3) What a later action acted
 * on, up to `reach` (a form's further fields): the step's actions run to that action; it wins over (2) when it comes
 * before the action that brought the observation. In (2) and (3) the next
 * step's actions must come after, so a step whose evidence lies past the next step's only action leaves that step
 * without one, and it is refused rather than passed on another step's action.
 */
function placeQuote(
  view: SessionView,
  quote: EvidenceQuote,
  span: Span | undefined,
  from: number,
): QuoteAt | undefined {
  const own = span && namingAction(view.actions, quote.text, span.first, span.end);
  if (own) return { seq: own.seq, lastAction: own.seq, shownBefore: true };
  const seenAt = firstSeen(view.seen, quote, from);
  const later = span && namingAction(view.actions, quote.text, span.end + 1, span.reach);
  // A typed value that is page text only further on (a recipe's method, shown on the page the next step opens) is
  // placed at its typing: the earlier of the two, so the step does not take the next step's actions.
  if (later && (!seenAt || later.seq < seenAt.afterAction))
    return { seq: later.seq, lastAction: later.seq, shownBefore: true };
  if (!seenAt) return undefined;
  const before = view.seen.findLast((seen) => seen.seq < seenAt.afterAction);
  const shownBefore = !!before && seenQuote(before, quote);
  return { seq: seenAt.seq, lastAction: seenAt.afterAction, shownBefore };
}

function missingActionProblem(
  needs: readonly ActionNeed[],
  found: number,
  index: number,
  cursor: Cursor,
): string {
  const stretched = cursor.stretched;
  const since =
    (index === 0 ? 'in this session' : `after step ${index}`) +
    (stretched
      ? ` (step ${stretched.step}'s evidence comes from up to action ${stretched.seq}, so the actions up to there are that step's)`
      : '');
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
