/**
 * What people said reaches a session: the notes on its features (any role), its `ask_human` hook (a generator, or an
 * evaluator judging a feature; never a regression sweep) and the changes a person made to the feature list that the
 * session's workspace does not hold yet (applied before the session starts, roles/session.ts).
 */
import { featureListSyncOf } from '../orchestrator/feature-list-sync.js';
import type { Orchestrator } from '../orchestrator/orchestrator.js';
import { askQuestion } from '../orchestrator/questions.js';
import type { RunRecord } from '../orchestrator/run/index.js';
import type { describeAction } from '../orchestrator/session-jobs.js';
import type { RoleSessionInput } from '../roles/types.js';

/** The parts of a session's input that come from people: notes, the asker, the feature list's sync. */
export type PeopleInput = Pick<RoleSessionInput, 'humanNotes' | 'askHuman' | 'featureListSync'>;

/** The notes, `ask_human` and list sync of one session, from the run store as it is when the session starts. */
export async function peopleInput(
  orchestrator: Orchestrator,
  run: RunRecord,
  session: { seq: number; action: ReturnType<typeof describeAction> },
): Promise<PeopleInput> {
  const { role, featureIds, mode } = session.action;
  if (role === 'initializer') return {};
  const features = await orchestrator.store.listFeatures(run.id);
  const humanNotes = Object.fromEntries(
    features
      .filter((feature) => featureIds.includes(feature.id) && feature.humanNotes.length > 0)
      .map((feature) => [feature.id, feature.humanNotes]),
  );
  const mayAsk = role === 'generator' || mode === 'evaluate';
  return {
    humanNotes,
    featureListSync: featureListSyncOf(features),
    ...(mayAsk
      ? {
          askHuman: async (request: { featureId: string; question: string; options: string[] }) => {
            const asked = await askQuestion(orchestrator, run.id, { ...request, role, seq: session.seq });
            return asked.kind === 'asked' ? { kind: 'asked' as const, question: asked.question } : asked;
          },
        }
      : {}),
  };
}
