/**
 * Which feature step a verdict's step entry names, and what a step asks the browser to do (pure). An entry names
 * its feature step when it shares enough of the step's words (after the normalization of grounding-words.ts) and
 * names no other step of the feature clearly better: "Typed a todo in the New todo field and
 * pressed Enter" is "Type a new todo text into the "New todo" box and press Enter"; "Clicked Add" is not "Reload
 * the page". A step led by action verbs ("Click", "Type", "Reload") needs that many browser actions.
 */
import { contentWords, type Overlap, overlap, stem } from './grounding-words.js';

/**
 * An entry names its step when it shares words with it, scores at least this (the harmonic mean of the shares of
 * words repeated each way), and no other step of the feature scores more than {@link STEP_MARGIN} above it.
 * Both chosen from the scripted wording styles (docs/benchmarks.md, "Grounding").
 */
export const STEP_FLOOR = 0.25;

/** How far another step may outscore an entry's own step (terse and rephrased entries sit between two steps). */
export const STEP_MARGIN = 0.2;

/** The words of a feature step for matching: all of them, and those outside parentheses (its core). */
export interface StepWords {
  all: string[];
  core: string[];
}

/** The words of a feature step (examples in parentheses count when repeated, but are not required). */
export function stepWords(step: string): StepWords {
  const core = contentWords(step.replace(/\([^)]*\)/g, ' '));
  return { all: contentWords(step), core: core.length ? core : contentWords(step) };
}

/** An entry's step text without the numbering models add ("Step 2:", "2.", "(2)"). */
export function entryText(entryStep: string): string {
  return entryStep.replace(/^\s*(?:step\s*)?[#(]?\d+\s*[.):\-–—]?\s*/i, '');
}

/** How an entry's words compare with a feature step's: recall against its core, precision against all of it. */
export function stepOverlap(entryStep: string, featureStep: StepWords): Overlap {
  return overlapOfWords(contentWords(entryText(entryStep)), featureStep);
}

function overlapOfWords(given: readonly string[], featureStep: StepWords): Overlap {
  const shared = overlap(given, featureStep.all);
  const recall = overlap(given, featureStep.core).recall;
  const precision = shared.precision;
  const score = shared.shared ? (2 * recall * precision) / (recall + precision || 1) : 0;
  return { shared: shared.shared, recall, precision, score };
}

/** An entry's overlap with each feature step, in order (its words computed once). */
export function stepScores(entryStep: string, featureSteps: readonly StepWords[]): Overlap[] {
  const given = contentWords(entryText(entryStep));
  return featureSteps.map((step) => overlapOfWords(given, step));
}

/** Whether an entry with these {@link stepScores} names feature step `index` (0-based). */
function namesStepByScores(scores: readonly Overlap[], index: number): boolean {
  const mine = scores[index];
  if (!mine || mine.shared === 0 || mine.score < STEP_FLOOR) return false;
  return scores.every((other, at) => at === index || other.score <= mine.score + STEP_MARGIN);
}

/** Whether entry text names feature step `index` (0-based) of `featureSteps`. */
export function namesStep(entryStep: string, featureSteps: readonly StepWords[], index: number): boolean {
  return namesStepByScores(stepScores(entryStep, featureSteps), index);
}

/** The feature step (0-based) an entry names best, when it names one at all. */
export function closestStep(entryStep: string, featureSteps: readonly StepWords[]): number | undefined {
  let best: number | undefined;
  let bestScore = 0;
  stepScores(entryStep, featureSteps).forEach(({ score }, index) => {
    if (score > bestScore) {
      best = index;
      bestScore = score;
    }
  });
  return best;
}

/**
 * Pairs feature steps with entries in order, when their counts differ: the longest run of pairs in which each
 * entry names its step. Returns, for each feature step, the entry index paired with it (or undefined).
 */
export function alignEntries(
  entrySteps: readonly string[],
  featureSteps: readonly StepWords[],
): (number | undefined)[] {
  const n = featureSteps.length;
  const m = entrySteps.length;
  const scores = entrySteps.map((entry) => stepScores(entry, featureSteps));
  const pairs = (i: number, j: number) => namesStepByScores(scores[j] as Overlap[], i);
  // best[i][j]: most pairs using feature steps from i and entries from j.
  const best = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  const at = (i: number, j: number) => (best[i] as number[])[j] as number;
  for (let i = n - 1; i >= 0; i -= 1) {
    for (let j = m - 1; j >= 0; j -= 1) {
      const skip = Math.max(at(i + 1, j), at(i, j + 1));
      (best[i] as number[])[j] = pairs(i, j) ? Math.max(skip, 1 + at(i + 1, j + 1)) : skip;
    }
  }
  const paired: (number | undefined)[] = new Array(n).fill(undefined);
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (pairs(i, j) && at(i, j) === 1 + at(i + 1, j + 1)) {
      paired[i] = j;
      i += 1;
      j += 1;
    } else if (at(i, j) === at(i + 1, j)) i += 1;
    else j += 1;
  }
  return paired;
}

/** Verbs (stemmed) that make a step (or a clause of it) an action in the browser. */
const ACTION_VERBS = new Set(
  (
    'add append click tap double press hit type enter fill write tick untick uncheck toggl select choos pick ' +
    'submit drag drop hover upload clear delet remov edit renam replac search sort filter switch close expand ' +
    'collaps swip paste log sign creat move open reload refresh visit navigat go load return revisit restart ' +
    'mark unmark'
  ).split(/\s+/),
);

/** Verbs (stemmed) that reach the page through a navigation when their object is the app or a page. */
const NAVIGATION_VERBS = new Set(['open', 'visit', 'navigat', 'go', 'load', 'return', 'revisit', 'restart']);
const RELOAD_VERBS = new Set(['reload', 'refresh']);
const PAGE_WORDS = new Set(['app', 'application', 'page', 'site', 'website', 'homepage', 'home', 'url']);
/** Verbs after which "press Enter" is part of the same browser call (`browser_type` with `submit`). */
const TYPING_VERBS = new Set(['type', 'enter', 'fill', 'write', 'replac', 'edit', 'renam', 'search']);
const COUNTS: Record<string, number> = { two: 2, '2': 2, three: 3, '3': 3, four: 4, '4': 4 };

/** Words before a clause's verb that do not change what it asks ("Then click", "I click"). */
const LEAD_WORDS = new Set(['then', 'now', 'next', 'finally', 'first', 'i', 'we', 'you', 'again', 'also']);
const ARTICLES = new Set(['a', 'an', 'the', 'that', 'this', 'its', 'their']);

/** One browser action a step asks for: a navigation (open the app, reload) or any action. */
export type ActionNeed = 'navigate' | 'any';

/**
 * The browser actions a feature step asks for, in order (empty for an outcome to look at: "The list shows …",
 * "Check that …"). Each clause led by an action verb asks for one ("Open the app, add a todo and tick it": three),
 * a count after the verb for that many ("add two todos": two), another quoted item for one more ("Add "A" and
 * "B"": two); "press Enter" right after typing is part of the typing. Opening the app or a page and reloading ask for a navigation.
 */
export function stepActions(step: string): ActionNeed[] {
  const text = step.replace(/\([^)]*\)/g, ' ').replace(/"[^"]*"|“[^”]*”/g, ' quoted ');
  const needs: ActionNeed[] = [];
  let previousVerb = '';
  for (const clause of text.split(/,|;|\band\b|\bthen\b/i)) {
    const words = clause
      .toLowerCase()
      .split(/[^\p{L}\p{N}]+/u)
      .filter(Boolean);
    const at = words.findIndex((word) => !LEAD_WORDS.has(word));
    const word = words[at] ?? '';
    const verb = stem(word);
    // "Add "Alpha" and "Beta"": a clause that is only another quoted item repeats the action before it.
    if (word === 'quoted' && words.length === 1 && previousVerb && !RELOAD_VERBS.has(previousVerb)) {
      needs.push(needs.at(-1) ?? 'any');
      continue;
    }
    if (ARTICLES.has(word) || !ACTION_VERBS.has(verb)) {
      // A clause that is not an action ends the step's actions at its start only ("Open the app and note N").
      previousVerb = '';
      continue;
    }
    const object = words.slice(at + 1, at + 4);
    const folded = /^(press|hit)$/.test(verb) && /^(enter|return)$/.test(words[at + 1] ?? '');
    if (folded && TYPING_VERBS.has(previousVerb)) continue;
    previousVerb = verb;
    const navigate =
      RELOAD_VERBS.has(verb) || (NAVIGATION_VERBS.has(verb) && object.some((w) => PAGE_WORDS.has(w)));
    const count = COUNTS[words[at + 1] ?? ''] ?? 1;
    for (let index = 0; index < count; index += 1) needs.push(navigate ? 'navigate' : 'any');
  }
  return needs;
}

/** Verbs that look rather than act ("note the number"): worded like actions in a send-back, but ask for none. */
const LOOK_VERBS = new Set(['note', 'check', 'verify', 'look', 'see', 'read', 'wait', 'confirm', 'observ']);

/** Action verbs and their -ing form, for "after pressing Enter". */
function gerund(verb: string): string {
  const lower = verb.toLowerCase();
  if (lower.endsWith('ie')) return `${lower.slice(0, -2)}ying`;
  if (/[^aeiou]e$/.test(lower) && lower !== 'be') return `${lower.slice(0, -1)}ing`;
  if (/^(?:[^aeiou]*[aeiou])[bdgmnprt]$/.test(lower) && !/[aeiou]{2}.$/.test(lower))
    return `${lower}${lower.at(-1)}ing`;
  return `${lower}ing`;
}

/**
 * A step's action as "after …" wording for a send-back: "Type X and press Enter" → "typing X and pressing
 * Enter". Each clause's leading action verb becomes its -ing form; parentheses are dropped; long steps are cut.
 */
export function actionWording(step: string, max = 100): string {
  const clauses = step.replace(/\s*\([^)]*\)/g, '').split(/(,\s+(?:and\s+)?|\s+and\s+)/);
  const worded = clauses.map((clause, index) => {
    if (index % 2 === 1) return clause;
    const match = /^(\s*)(\p{L}+)(.*)$/su.exec(clause);
    if (!match) return clause;
    const [, space = '', verb = '', rest = ''] = match;
    const base = stem(verb.toLowerCase());
    return ACTION_VERBS.has(base) || LOOK_VERBS.has(base) ? `${space}${gerund(verb)}${rest}` : clause;
  });
  const text = worded.join('').trim();
  return text.length > max ? `${text.slice(0, max).trimEnd()}…` : text;
}
