/**
 * Which of a session's browser actions belong to which feature step (pure). A step's words give the fewest actions
 * it takes ("Sign up as a new user": one), but a step may take more ("Sign up" is a form: fill name, email,
 * password, click): its span runs from the first action its words ask for to the last action before its own
 * evidence was first on screen (grounding.ts places the quotes), so later steps are matched against their own
 * actions, not this step's leftovers. Quotes that only name what an action did (no page showed them) may stretch
 * the span over later actions too, but never onto the actions the later steps need.
 */
import type { ObservationEntry } from '../agent/tools/browser-log.js';
import { comparableText, containsPhrase } from '../handoff/evidence.js';
import type { ActionNeed } from './grounding-steps.js';

/** A successful browser action of the session: its seq, whether it navigated, and what it named (comparable). */
export interface Action {
  seq: number;
  navigates: boolean;
  names: string[];
}

/** The session's successful browser actions, in order. */
export function actionsOf(observations: readonly ObservationEntry[]): Action[] {
  return observations
    .filter((entry) => entry.kind === 'action' && entry.ok)
    .map((entry) => ({ seq: entry.seq, navigates: navigates(entry), names: actedOn(entry) }));
}

/** A navigation, a back navigation, or a reload key. */
function navigates(entry: ObservationEntry): boolean {
  if (entry.tool === 'browser_navigate' || entry.tool === 'browser_navigate_back') return true;
  const key = typeof entry.args.key === 'string' ? entry.args.key.toLowerCase() : '';
  return entry.tool === 'browser_press_key' && /^(f5|(control|meta)\+r)$/.test(key);
}

/** What an action names: its target (name, label, text) and what it typed or chose. */
function actedOn(entry: ObservationEntry): string[] {
  const { target, args } = entry;
  const names = [target?.name, target?.label, target?.text].filter((name): name is string => !!name);
  if (typeof args.text === 'string') names.push(args.text);
  if (Array.isArray(args.values)) names.push(...args.values.filter((value) => typeof value === 'string'));
  return names.map(comparableText);
}

function fits(need: ActionNeed, action: Action): boolean {
  return need === 'any' || action.navigates;
}

/**
 * The actions a step's words ask for, taken in order from the session's actions after `from` (extra actions in
 * between are skipped): their seqs, or how many were found when some are missing.
 */
export function takeActions(
  needs: readonly ActionNeed[],
  actions: readonly Action[],
  from: number,
): { taken: number[] } | { found: number } {
  const taken: number[] = [];
  for (const need of needs) {
    const at = taken.at(-1) ?? from;
    const next = actions.find((action) => action.seq > at && fits(need, action));
    if (!next) return { found: taken.length };
    taken.push(next.seq);
  }
  return { taken };
}

/**
 * The seq of the first action the later steps need when their actions are taken as late as the session allows
 * (Infinity when they need none, or the session cannot give them all: then there is nothing to keep free). A step
 * that stretches over actions by name alone must stop before it: those actions are the later steps' own.
 */
export function reservedFrom(later: readonly ActionNeed[], actions: readonly Action[]): number {
  let at = actions.length;
  for (let index = later.length - 1; index >= 0; index -= 1) {
    const need = later[index] as ActionNeed;
    do at -= 1;
    while (at >= 0 && !fits(need, actions[at] as Action));
    if (at < 0) return Number.POSITIVE_INFINITY;
  }
  return at < actions.length ? (actions[at] as Action).seq : Number.POSITIVE_INFINITY;
}

/** The first action among those with seq in [from, to] that named `text` (its target, or what it typed), if any. */
export function namingAction(
  actions: readonly Action[],
  text: string,
  from: number,
  to: number,
): Action | undefined {
  const wanted = comparableText(text);
  return actions.find(
    (action) =>
      action.seq >= from &&
      action.seq <= to &&
      action.names.some((name) => name === wanted || containsPhrase(name, wanted)),
  );
}
