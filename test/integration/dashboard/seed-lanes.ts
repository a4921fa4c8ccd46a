// Seeds parallel lanes into a seeded run through the run store's own lane writes (claimSlot, recordMergeResults):
// lane 1 merged F-003 and now runs a generator on F-004; lane 2 passed F-005 and the merge queue is merging it;
// lane 3's F-006 had a conflict, then a red merged head, and waits for the merge queue again.
import type { LaneAction } from '../../../orchestrator/lanes/lane-scheduler.js';
import { MAIN_SLOT } from '../../../orchestrator/lanes/lane-scheduler.js';
import { claimSlot, recordMergeResults } from '../../../orchestrator/lanes/lane-store.js';
import type { RunStore } from '../../../orchestrator/run/index.js';
import { casUpdateRun } from '../../../orchestrator/run/run-cas.js';
import { summarizeFeatures } from '../../../orchestrator/run/run-state.js';
import type { SteppingClock } from './seed.js';
import { seededResult } from './seed.js';

/** The seqs the lanes seeding used. */
export interface SeededLanes {
  /** Lane 1's generator session on F-004 (in flight). */
  generatorSeq: number;
  /** Lane 2's evaluator session on F-005 (finished; it overlapped lane 1's). */
  evaluatorSeq: number;
  /** The merge queue's job merging lane 2. */
  mergingSeq: number;
}

/** Sets `featureId`'s mergePending (passed on its lane) the way the session result does, in one step. */
async function setMergePending(store: RunStore, runId: string, featureId: string): Promise<void> {
  await casUpdateRun(store.redis, store.keys(runId), runId, { features: true }, (run, features) => {
    const feature = features.find((candidate) => candidate.id === featureId)!;
    const changed = { ...feature, mergePending: true };
    const next = features.map((candidate) => (candidate.id === featureId ? changed : candidate));
    return { run: { ...run, features: summarizeFeatures(next) }, features: [changed] };
  });
}

/** Seeds the three lanes above into `runId` (its config is set to 3 lanes). */
export async function seedLanes(store: RunStore, runId: string, clock: SteppingClock): Promise<SeededLanes> {
  await store.updateConfig(runId, (config) => ({ ...config, lanes: 3 }));
  const claim = async (slot: number, action: LaneAction, assign = false) => {
    const seq = await store.nextSeq(runId);
    await claimSlot(store, runId, { slot, seq, action, assign }, clock.now());
    return seq;
  };
  const merge = async (lane: number, featureId: string, outcome: 'merged' | 'conflict' | 'rejected') => {
    await setMergePending(store, runId, featureId);
    const seq = await claim(MAIN_SLOT, { kind: 'merge', lanes: [{ lane, featureId }] });
    const detail =
      outcome === 'conflict'
        ? 'conflicting files: src/list.ts, src/store.ts'
        : outcome === 'rejected'
          ? 'F-001: the task list is empty after a reload'
          : '';
    const merged = outcome === 'merged';
    await recordMergeResults(
      store,
      runId,
      seq,
      [
        {
          lane,
          featureId,
          outcome,
          detail,
          head: merged ? 'c0ffee1234567' : null,
          checked: merged ? ['F-001'] : [],
        },
      ],
      clock.now(),
    );
    clock.advance(30_000);
  };
  await claim(1, { kind: 'generate', featureId: 'F-003' }, true);
  await merge(1, 'F-003', 'merged');
  await claim(3, { kind: 'generate', featureId: 'F-006' }, true);
  await merge(3, 'F-006', 'conflict');
  await merge(3, 'F-006', 'rejected');
  await setMergePending(store, runId, 'F-006');
  // Lane 1's generator and lane 2's evaluator overlap in time.
  const generatorSeq = await claim(1, { kind: 'generate', featureId: 'F-004' }, true);
  await store.recordSessionStarted(runId, {
    seq: generatorSeq,
    jobId: `${runId}-${generatorSeq}`,
    role: 'generator',
    kind: 'generate',
    featureIds: ['F-004'],
    workerId: 'worker-a',
    lane: 1,
  });
  const evaluatorSeq = await claim(2, { kind: 'evaluate', featureId: 'F-005' }, true);
  const startedAt = clock.now().toISOString();
  await store.recordSessionStarted(runId, {
    seq: evaluatorSeq,
    jobId: `${runId}-${evaluatorSeq}`,
    role: 'evaluator',
    kind: 'evaluate',
    featureIds: ['F-005'],
    workerId: 'worker-b',
    lane: 2,
  });
  clock.advance(60_000);
  const pass = {
    featureId: 'F-005',
    verdict: 'pass' as const,
    steps: [{ step: 'Show an empty state', ok: true, evidence: 'The list says "Nothing to do".' }],
    issues: [],
    mode: 'evaluate' as const,
    runId,
    session: evaluatorSeq,
    at: clock.now().toISOString(),
    evidence: [],
  };
  // A pass on a lane leaves the feature waiting for the merge queue (mergePending), not passing yet.
  await store.recordSessionResult(
    runId,
    evaluatorSeq,
    seededResult('evaluator', ['F-005'], startedAt, 60_000, [pass], evaluatorSeq),
  );
  const mergingSeq = await claim(MAIN_SLOT, { kind: 'merge', lanes: [{ lane: 2, featureId: 'F-005' }] });
  return { generatorSeq, evaluatorSeq, mergingSeq };
}
