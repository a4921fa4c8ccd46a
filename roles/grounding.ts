/**
 * Grounding of a `pass` (pure): the harness, not the model, decides whether a pass is backed by what the
 * evaluator's browser session actually showed. A pass counts only when it lists one step entry per feature step,
 * in order, each ok with evidence that quotes text the session saw after acting, in the order of the steps; when
 * the session performed at least one browser action; and when every page error is explained by a step.
 */
import { type ObservationEntry, seenText } from '../agent/tools/browser-log.js';
import type { Feature, SubmittedVerdict } from '../handoff/formats.js';

/** The result of grounding one pass: grounded, or the list of what is missing (written for the model). */
export type Grounding = { grounded: true } | { grounded: false; problems: string[] };

/** Characters of a step or quote repeated in a problem message. */
const QUOTE_MAX = 80;

/** Share of a feature step's significant words a step entry must repeat to count as the same step. */
const STEP_WORD_SHARE = 0.6;

/** Checks a submitted pass against the feature and the session's observation log. */
export function groundPass(
  feature: Pick<Feature, 'steps'>,
  verdict: Pick<SubmittedVerdict, 'steps'>,
  observations: readonly ObservationEntry[],
): Grounding {
  const problems = [...stepShapeProblems(feature.steps, verdict.steps), ...actionProblems(observations)];
  if (problems.length === 0) problems.push(...evidenceProblems(verdict.steps, observations));
  problems.push(...pageErrorProblems(verdict.steps, observations));
  return problems.length === 0 ? { grounded: true } : { grounded: false, problems };
}

function stepShapeProblems(featureSteps: readonly string[], entries: SubmittedVerdict['steps']): string[] {
  const problems: string[] = [];
  if (entries.length !== featureSteps.length) {
    problems.push(
      `The pass lists ${entries.length} step(s) but the feature has ${featureSteps.length}: give one entry per feature step, in the feature's order.`,
    );
  }
  featureSteps.forEach((wanted, index) => {
    const entry = entries[index];
    if (!entry) return;
    const n = index + 1;
    if (!sameStep(wanted, entry.step)) {
      problems.push(
        `Step ${n} is "${cut(entry.step)}" but the feature's step ${n} is "${cut(wanted)}": copy each feature step as written.`,
      );
    }
    if (!entry.ok) problems.push(`Step ${n} is not ok: a pass needs every step ok.`);
    if (entry.evidence.trim() === '') problems.push(`Step ${n} has no evidence.`);
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
 * Each step's quotes must appear in what the page showed after an action, at or after where the previous
 * step's evidence was seen (so evidence from before the step's action does not count).
 */
function evidenceProblems(
  entries: SubmittedVerdict['steps'],
  observations: readonly ObservationEntry[],
): string[] {
  const seen = observations
    .filter((entry) => entry.ok)
    .map((entry) => ({ entry, text: normalize(stripRefs(seenText(entry))) }));
  const problems: string[] = [];
  let from = 0; // seq of the entry where the previous step's evidence was seen
  entries.forEach((entry, index) => {
    const n = index + 1;
    const quotes = quotesIn(entry.evidence);
    if (quotes.length === 0) {
      problems.push(
        `Step ${n}'s evidence quotes nothing: put the exact text you saw on the page in double quotes, e.g. "3 items left".`,
      );
      return;
    }
    let at = from;
    for (const quote of quotes) {
      const wanted = normalize(quote);
      const hit = seen.find(
        ({ entry: seenEntry, text }) =>
          seenEntry.afterAction > 0 && seenEntry.seq >= from && text.includes(wanted),
      );
      if (hit) {
        at = Math.max(at, hit.entry.seq);
        continue;
      }
      const earlier = seen.find(({ text }) => text.includes(wanted));
      problems.push(
        earlier
          ? `Step ${n}'s evidence "${cut(quote)}" was only on screen before the step's action (observation ${earlier.entry.seq}); perform the step and quote what the page shows afterwards.`
          : `Step ${n}'s evidence "${cut(quote)}" was never shown to you by the browser tools in this session; quote only text you saw after acting.`,
      );
    }
    from = at;
  });
  return problems;
}

function pageErrorProblems(
  entries: SubmittedVerdict['steps'],
  observations: readonly ObservationEntry[],
): string[] {
  const told = normalize(entries.map((entry) => entry.evidence).join('\n'));
  const problems: string[] = [];
  for (const entry of observations) {
    for (const line of entry.pageErrors) {
      const message = normalize(line.replace(/^\[(pageerror|crash)\]\s*/, ''));
      if (message && told.includes(message.slice(0, QUOTE_MAX))) continue;
      problems.push(
        `The page raised an error (observation ${entry.seq}): ${cut(line)}. A pass over a page error needs a step whose evidence quotes and explains it; otherwise submit fail.`,
      );
    }
  }
  return problems;
}

/** Quoted fragments of an evidence text: "…", “…” and `…`. */
export function quotesIn(evidence: string): string[] {
  const quotes: string[] = [];
  for (const match of evidence.matchAll(/"([^"]+)"|“([^”]+)”|`([^`]+)`/g)) {
    const quote = (match[1] ?? match[2] ?? match[3] ?? '').trim();
    if (quote) quotes.push(quote);
  }
  return quotes;
}

/** Whether a step entry names the same step as the feature's (verbatim, contained, or most words shared). */
export function sameStep(featureStep: string, entryStep: string): boolean {
  const wanted = words(featureStep);
  const given = words(entryStep.replace(/^\s*(step\s*)?\d+\s*[.):-]\s*/i, ''));
  const a = wanted.join(' ');
  const b = given.join(' ');
  if (a === b || (b.length > 0 && (a.includes(b) || b.includes(a)))) return true;
  const significant = wanted.filter((word) => word.length >= 3);
  if (significant.length === 0) return false;
  const shared = significant.filter((word) => given.includes(word)).length;
  return shared / significant.length >= STEP_WORD_SHARE;
}

function words(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

function normalize(text: string): string {
  return text.toLowerCase().replace(/\s+/g, ' ').trim();
}

/** Snapshot refs (`[ref=e12]`) are tool plumbing, not page text: a quoted "12" must not match them. */
function stripRefs(text: string): string {
  return text.replace(/\s*\[ref=(?:f\d+)?e\d+\]/g, '');
}

function cut(text: string): string {
  return text.length > QUOTE_MAX ? `${text.slice(0, QUOTE_MAX)}…` : text;
}
