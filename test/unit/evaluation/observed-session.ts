/** Scripted browser sessions for the grounding tests, recorded by the real observation log, and the passes on them. */
import {
  type ObservationEntry,
  ObservationLog,
  type ObservedDocument,
  type ObservedTarget,
} from '../../../agent/tools/browser-log.js';
import type { VerdictStep } from '../../../handoff/formats.js';

/**
 * One browser tool call and the page it showed; `look` for a snapshot, `consoleBefore` for a line before it,
 * `document` for the document it ended on (as the browser tools read it).
 */
export interface SessionMove {
  tool: string;
  args: Record<string, unknown>;
  target?: ObservedTarget;
  view: string;
  document?: ObservedDocument;
  look?: boolean;
  consoleBefore?: string;
}

/** The observation log of `moves` made in order on the page at `url`. */
export function observedSession(moves: readonly SessionMove[], url: string): readonly ObservationEntry[] {
  const log = new ObservationLog(() => 0);
  for (const move of moves) {
    if (move.consoleBefore) log.noteConsole(move.consoleBefore);
    log.record({
      tool: move.tool,
      kind: move.look ? 'observation' : 'action',
      args: move.args,
      ...(move.target ? { target: move.target } : {}),
      ...(move.document ? { document: move.document } : {}),
      ok: true,
      url,
      snapshot: move.view,
    });
  }
  return log.entries();
}

/** A pass with one ok entry per step, each naming its step as the feature has it, with the evidence given. */
export function passOf(steps: readonly string[], evidence: readonly string[]): VerdictStep[] {
  return steps.map((step, index) => ({ step, ok: true, evidence: evidence[index] ?? '' }));
}
