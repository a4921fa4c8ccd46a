import { InputError } from '../core/errors.js';

/** Prefix of every nightshift Redis key unless configured otherwise. */
export const DEFAULT_KEY_PREFIX = 'nightshift:';

/** Run ids: short, url-safe, no `:` (they end up in BullMQ job ids `<runId>-<seq>` and in URLs). */
export const RUN_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/** The Redis keys of one run. The `{runId}` hash tag keeps them in one cluster slot (Lua touches several). */
export interface RunKeys {
  /** JSON of the run record. */
  run: string;
  /** Hash: feature id → JSON FeatureState. */
  features: string;
  /** Hash: seq → JSON SessionRecord. */
  sessions: string;
  /** Sorted set of session seqs (score = seq), for paging. */
  sessionIndex: string;
  /** Counter behind `nextSeq`. */
  seq: string;
  /** Stream of RunEvents. */
  events: string;
  /** Pub/sub channel announcing each appended event. */
  channel: string;
  /** The per-run session lock (owned by orchestrator/locks). */
  lock: string;
}

/** Throws an InputError unless `runId` is a valid run id. */
export function assertRunId(runId: string): void {
  if (!RUN_ID_PATTERN.test(runId)) {
    throw new InputError('RUN_ID_INVALID', `"${runId}" is not a run id.`, {
      hint: 'Run ids use letters, digits, - and _ only (see `nightshift runs`).',
    });
  }
}

/** Every key of run `runId` under `prefix`. */
export function runKeys(prefix: string, runId: string): RunKeys {
  assertRunId(runId);
  const base = `${prefix}run:{${runId}}`;
  return {
    run: base,
    features: `${base}:features`,
    sessions: `${base}:sessions`,
    sessionIndex: `${base}:session-index`,
    seq: `${base}:seq`,
    events: `${base}:events`,
    channel: `${base}:events:live`,
    lock: `${base}:lock`,
  };
}

/** Sorted set of every run id, scored by creation time (ms). */
export function runsIndexKey(prefix: string): string {
  return `${prefix}runs`;
}

/** The BullMQ job id of session `seq` of a run. */
export function sessionJobId(runId: string, seq: number): string {
  return `${runId}-${seq}`;
}
