import type { Redis } from 'ioredis';
import { moduleLogger } from '../../core/log.js';
import type { RunKeys } from '../keys.js';
import { RunConflictError, RunNotFoundError } from './run-errors.js';
import { FeatureState, RunRecord, SessionRecord } from './run-state.js';

const log = moduleLogger('orchestrator/run-cas');

// Optimistic concurrency: every write carries the revision it was computed from; a stale one is refused.
// KEYS: run, features, sessions, session index. ARGV: rev, run JSON, replace features (1/0), n, n×(id, JSON),
// session seq or '', session JSON or ''.
const CAS_SCRIPT = `
local current = redis.call('GET', KEYS[1])
if not current then return -1 end
if tostring(cjson.decode(current)['rev']) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
if ARGV[3] == '1' then redis.call('DEL', KEYS[2]) end
local n = tonumber(ARGV[4])
local i = 5
for _ = 1, n do
  redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1])
  i = i + 2
end
if ARGV[i] ~= '' then
  redis.call('HSET', KEYS[3], ARGV[i], ARGV[i + 1])
  redis.call('ZADD', KEYS[4], ARGV[i], ARGV[i])
end
return 1`;

const MAX_CAS_ATTEMPTS = 100;

/** One atomic change of a run: the new record, features to write (or the whole list), a session to write. */
export interface RunWrite {
  run: RunRecord;
  features?: FeatureState[];
  /** Replace the whole feature hash with `features`. */
  replaceFeatures?: boolean;
  session?: SessionRecord;
}

/** What a CAS update reads with the run, at the same revision. */
export interface RunReadNeeds {
  /** All features (in list order). */
  features?: boolean;
  /** One session by seq. */
  session?: number;
}

/** Computes a write from what was read, or undefined for no change. May run several times (after conflicts). */
export type RunCompute = (
  run: RunRecord,
  features: FeatureState[],
  session: SessionRecord | undefined,
) => RunWrite | undefined;

/**
 * Read–compute–compare-and-set on a run's revision, retried on conflict; every record is validated both ways.
 * Returns the run as written (or as read when `compute` changed nothing). Throws RunNotFoundError, RunConflictError.
 */
export async function casUpdateRun(
  redis: Redis,
  keys: RunKeys,
  runId: string,
  needs: RunReadNeeds,
  compute: RunCompute,
): Promise<RunRecord> {
  for (let attempt = 1; attempt <= MAX_CAS_ATTEMPTS; attempt++) {
    const snapshot = await readSnapshot(redis, keys, needs);
    if (!snapshot.json) throw new RunNotFoundError(runId);
    const run = decodeRun(snapshot.json, snapshot.seq);
    const session = snapshot.session ? SessionRecord.parse(JSON.parse(snapshot.session)) : undefined;
    const write = compute(run, decodeFeatures(snapshot.features), session);
    if (!write) return run;
    const next = RunRecord.parse({ ...write.run, rev: run.rev + 1 });
    const args: (string | number)[] = [run.rev, JSON.stringify(next), write.replaceFeatures ? '1' : '0'];
    const features = (write.features ?? []).map((feature) => FeatureState.parse(feature));
    args.push(features.length);
    for (const feature of features) args.push(feature.id, JSON.stringify(feature));
    const written = write.session ? SessionRecord.parse(write.session) : undefined;
    args.push(written ? written.seq : '', written ? JSON.stringify(written) : '');
    const status = await redis.eval(
      CAS_SCRIPT,
      4,
      keys.run,
      keys.features,
      keys.sessions,
      keys.sessionIndex,
      ...args,
    );
    if (status === 1) return next;
    if (status === -1) throw new RunNotFoundError(runId);
    if (attempt > 3)
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(50, attempt * 2)));
  }
  log.warn({ runId }, 'run update kept conflicting');
  throw new RunConflictError(runId, MAX_CAS_ATTEMPTS);
}

async function readSnapshot(redis: Redis, keys: RunKeys, needs: RunReadNeeds) {
  const batch = redis.multi().get(keys.run).get(keys.seq);
  if (needs.features) batch.hgetall(keys.features);
  if (needs.session !== undefined) batch.hget(keys.sessions, String(needs.session));
  const replies = ((await batch.exec()) ?? []).map(([error, value]) => {
    if (error) throw error;
    return value;
  });
  return {
    json: replies[0] as string | null,
    seq: replies[1] as string | null,
    features: needs.features ? (replies[2] as Record<string, string>) : {},
    session: needs.session !== undefined ? (replies[needs.features ? 3 : 2] as string | null) : null,
  };
}

/** A run record from its stored JSON and its seq counter (validated). */
export function decodeRun(json: string, seq: string | null | undefined): RunRecord {
  const run = RunRecord.parse(JSON.parse(json));
  return { ...run, seq: Math.max(run.seq, Number(seq ?? 0)) };
}

/** Features from the feature hash, validated, in list order. */
export function decodeFeatures(hash: Record<string, string>): FeatureState[] {
  return Object.values(hash)
    .map((json) => FeatureState.parse(JSON.parse(json)))
    .sort((a, b) => a.position - b.position);
}
