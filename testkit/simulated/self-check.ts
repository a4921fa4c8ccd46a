/**
 * The quickstart-style loop's self-verification (bench/overnight-quickstart.ts): a session whose brief lists passing
 * features to re-check runs each one's shell check (the generator's own curl check) before it starts its feature,
 * as the quickstart's coding prompt asks ("verify a few passing features still work"). Nightshift's briefs never
 * hold the section, so its generators are unchanged. The check sees what curl sees: a client module that is served
 * but no longer registered (a regression, a half-done feature) looks fine to it — the blind spot of
 * self-verification the overnight bench measures against an independent evaluator.
 */
import { exampleOf } from '../policies/examples.js';
import { parseGeneratorBrief } from '../policies/generator.js';
import type { ScriptIO } from '../policies/script.js';

/** The heading of the brief's section listing passing features to re-check, one `- F-nnn` a line. */
export const RECHECK_HEADING = '## Re-check these passing features first';

/** The marker a re-check prints when a feature still passes (the loop reads it back). */
export function recheckPassedMessage(featureId: string): string {
  return `${featureId} still passes`;
}

/** The feature ids listed under the re-check heading. */
export function featuresToRecheck(firstMessage: string): string[] {
  const at = firstMessage.indexOf(RECHECK_HEADING);
  if (at < 0) return [];
  const section = firstMessage.slice(at + RECHECK_HEADING.length).split(/\n#/)[0] ?? '';
  return [...section.matchAll(/^- (F-\d{3,})\b/gm)].map((match) => match[1] as string);
}

/**
 * Runs the shell check of every listed feature in one turn (nothing when the brief lists none). The listed ids are
 * positions in the feature list of the example the session's own feature belongs to.
 */
export function recheckPassing(io: ScriptIO): void {
  const own = parseGeneratorBrief(io.firstMessage)?.feature;
  if (!own) return;
  const example = exampleOf(own);
  const listed = featuresToRecheck(io.firstMessage).flatMap((id) => {
    const feature = example.features[Number(id.slice(2)) - 1];
    return feature ? [{ id, feature }] : [];
  });
  if (listed.length === 0) return;
  io.act(
    listed.map(({ id, feature }) => ({
      name: 'bash',
      arguments: { command: example.verifyCommand(feature.verify, recheckPassedMessage(id)) },
    })),
    `Before my feature, re-checking ${listed.map(({ id }) => id).join(', ')} from the shell.`,
  );
}
