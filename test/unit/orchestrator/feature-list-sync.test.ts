import { describe, expect, it } from 'vitest';
import { featureListSyncOf, reopenedSinceVerdict } from '../../../orchestrator/feature-list-sync.js';
import { featureState, T0 } from './fixtures.js';

describe("the workspace list's sync", () => {
  const reopen = (at: string) => ({ kind: 'reopen' as const, text: 'flickers', by: 'cli:ann', at });
  const later = new Date(T0.getTime() + 60_000).toISOString();

  it('sets failing only what a person reopened and nobody judged since', () => {
    const reopened = featureState(1, { humanNotes: [reopen(later)], lastVerdictAt: T0.toISOString() });
    const judgedSince = featureState(2, { humanNotes: [reopen(T0.toISOString())], lastVerdictAt: later });
    // Failing in the store for another reason (a lane's pass sent back by the merge queue): not touched.
    const sentBack = featureState(3, { lastVerdictAt: T0.toISOString() });
    expect([reopened, judgedSince, sentBack].map(reopenedSinceVerdict)).toEqual([true, false, false]);
    const sync = featureListSyncOf([reopened, judgedSince, sentBack, featureState(4, { passes: true })]);
    expect(sync.failing).toEqual(['F-001']);
    expect(sync.features.map((feature) => feature.id)).toEqual(['F-001', 'F-002', 'F-003', 'F-004']);
    // The entries as the workspace holds them: no harness field.
    expect(Object.keys(sync.features[0] ?? {})).toEqual(['id', 'category', 'description', 'steps', 'passes']);
  });
});
