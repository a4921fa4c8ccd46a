import { RecordedCheck, type RecordedCheckInput } from '../../../checks/format.js';

/** A version-1 check of the feature with these actions and expectations, recorded in run `origin.runId`'s session 1. */
export function recordedCheck(
  featureId: string,
  input: Pick<RecordedCheckInput, 'actions' | 'expectations'>,
  origin: { runId: string; reason: 'manual' | 'evaluate' } = { runId: 'r-test', reason: 'manual' },
): RecordedCheck {
  return RecordedCheck.parse({
    featureId,
    version: 1,
    recordedAt: '2026-01-01T00:00:00.000Z',
    origin: { runId: origin.runId, session: 1, reason: origin.reason },
    ...input,
  });
}
