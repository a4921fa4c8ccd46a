/**
 * The quickstart-style loop's self-verification (bench/overnight-quickstart.ts): a session whose brief lists passing
 * features to re-check runs each one's shell check (the generator's own curl check) before it starts its feature,
 * as the quickstart's coding prompt asks ("verify a few passing features still work"). Nightshift's briefs never
 * hold the section, so its generators are unchanged. The check sees what curl sees: a client module that is served
 * but no longer registered (a regression, a half-done feature) looks fine to it — the blind spot of
 * self-verification the overnight bench measures against an independent evaluator.
 */
import type { ScriptIO } from '../policies/script.js';
import { TODO_FEATURES, verifyCommand } from '../policies/todo-features.js';

/** The heading of the brief's section listing passing features to re-check, one `- F-nnn` a line. */
export const RECHECK_HEADING = '## Re-check these passing features first';

/** The marker a re-check prints when a feature still passes (the loop reads it back). */
export function recheckPassedMessage(featureId: string): string {
  return `${featureId} still passes`;
}

/** The feature ids listed under the re-check heading (todo features only). */
export function featuresToRecheck(firstMessage: string): string[] {
  const at = firstMessage.indexOf(RECHECK_HEADING);
  if (at < 0) return [];
  const section = firstMessage.slice(at + RECHECK_HEADING.length).split(/\n#/)[0] ?? '';
  return [...section.matchAll(/^- (F-\d{3,})\b/gm)].map((match) => match[1] as string);
}

/** Runs the shell check of every listed feature in one turn (nothing when the brief lists none). */
export function recheckPassing(io: ScriptIO): void {
  const ids = featuresToRecheck(io.firstMessage).filter(
    (id) => TODO_FEATURES[Number(id.slice(2)) - 1] !== undefined,
  );
  if (ids.length === 0) return;
  io.act(
    ids.map((id) => {
      const feature = TODO_FEATURES[Number(id.slice(2)) - 1] as (typeof TODO_FEATURES)[number];
      return {
        name: 'bash',
        arguments: { command: verifyCommand(feature.verify, recheckPassedMessage(id)) },
      };
    }),
    `Before my feature, re-checking ${ids.join(', ')} from the shell.`,
  );
}
