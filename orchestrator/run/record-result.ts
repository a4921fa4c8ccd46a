/** One write of a session's result, the step RunStore.recordSessionResult makes durable (replica-ack.ts). */
import type { Redis } from 'ioredis';
import type { Feature } from '../../handoff/formats.js';
import type { SessionResult } from '../../roles/session-result.js';
import type { RunEvent } from '../events.js';
import { type RunKeys, sessionJobId } from '../keys.js';
import { applySessionResult } from './apply-result.js';
import { casUpdateRun } from './run-cas.js';
import { emptySession, type RunRecord } from './run-state.js';

/** What recordSessionResult did. */
export interface RecordResultOutcome {
  /** False when this seq already had a result (a duplicate delivery): nothing changed. */
  applied: boolean;
  run: RunRecord;
  /** The events it appended. */
  events: RunEvent[];
}

/** What the write needs of the store. */
export interface ResultStore {
  readonly redis: Redis;
  keys(runId: string): RunKeys;
  appendEvent(runId: string, event: RunEvent): Promise<string>;
}

/** A validated result to record. */
export interface ResultWrite {
  runId: string;
  seq: number;
  result: SessionResult;
  newFeatures: Feature[] | undefined;
  now: () => Date;
}

/** Applies the result in one compare-and-set (nothing when the seq has one already), then appends its events. */
export async function applyResultOnce(store: ResultStore, input: ResultWrite): Promise<RecordResultOutcome> {
  const { runId, seq, result, newFeatures } = input;
  let events: RunEvent[] = [];
  let applied = false;
  const run = await casUpdateRun(
    store.redis,
    store.keys(runId),
    runId,
    { features: true, session: seq },
    (current, features, existing) => {
      events = []; // compute may run again after a conflict
      applied = false;
      const now = input.now().toISOString();
      const session = existing ?? emptySession(seq, sessionJobId(runId, seq), result.role, result.startedAt);
      if (session.finishedAt) return undefined;
      const out = applySessionResult({ run: current, features, session, result, newFeatures, now });
      events = out.events;
      applied = true;
      return { run: out.run, features: out.changed, replaceFeatures: out.replaced, session: out.session };
    },
  );
  for (const event of events) await store.appendEvent(runId, event);
  return { applied, run, events };
}
