import type { Feature, VerdictRecord, VerdictValue } from '../../../handoff/formats.js';
import { RunConfig, type RunConfigInput } from '../../../orchestrator/config.js';
import {
  emptyCounters,
  type FeatureState,
  type RunCounters,
  type RunRecord,
  type RunState,
  summarizeFeatures,
  toFeatureState,
} from '../../../orchestrator/run/run-state.js';
import type { SessionResult } from '../../../roles/session-result.js';

export const T0 = new Date('2026-01-01T00:00:00.000Z');

/** A feature list entry F-00n. */
export function feature(n: number, passes = false): Feature {
  return {
    id: `F-${String(n).padStart(3, '0')}`,
    category: 'functional',
    description: `feature ${n}`,
    steps: [`step of ${n}`],
    passes,
  };
}

/** Stored feature n with harness fields overridden. */
export function featureState(n: number, patch: Partial<FeatureState> = {}): FeatureState {
  return { ...toFeatureState(feature(n), n - 1), ...patch };
}

/** A run record with the given config, counters and last session. */
export function makeRun(
  options: {
    config?: RunConfigInput;
    counters?: Partial<RunCounters>;
    status?: RunRecord['status'];
    lastSession?: RunRecord['lastSession'];
    pausedReason?: RunRecord['pausedReason'];
    lanes?: RunRecord['lanes'];
    mainSeq?: number;
    questions?: RunRecord['questions'];
  } = {},
): RunRecord {
  return {
    id: 'r-test',
    rev: 0,
    name: 'A test app',
    spec: { path: '/spec.md', name: 'spec.md' },
    workspace: { kind: 'local', path: '/tmp/ws' },
    config: RunConfig.parse(options.config ?? {}),
    status: options.status ?? 'building',
    pausedReason: options.pausedReason ?? null,
    detail: null,
    createdAt: T0.toISOString(),
    startedAt: T0.toISOString(),
    updatedAt: T0.toISOString(),
    finishedAt: null,
    seq: 0,
    counters: { ...emptyCounters(), ...(options.counters ?? {}) },
    features: summarizeFeatures([]),
    lastSession: options.lastSession ?? null,
    lanes: options.lanes ?? [],
    mainSeq: options.mainSeq ?? 0,
    questions: options.questions ?? [],
  };
}

/** A run state. */
export function makeState(features: FeatureState[], options: Parameters<typeof makeRun>[0] = {}): RunState {
  const run = makeRun(options);
  return { run: { ...run, features: summarizeFeatures(features) }, features };
}

/** A session result of `role` on `featureIds`. */
export function result(
  role: SessionResult['role'],
  featureIds: string[],
  patch: Partial<SessionResult> = {},
): SessionResult {
  return {
    role,
    featureIds,
    outcome: 'completed',
    model: 'anthropic:claude-sonnet-4-5',
    startCommit: 'a',
    endCommit: 'b',
    commits: ['b'],
    usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 },
    costUsd: 0.5,
    steps: 3,
    startedAt: T0.toISOString(),
    durationMs: 1000,
    violations: [],
    verdicts: [],
    ...patch,
  };
}

/** A verdict record. */
export function verdict(
  featureId: string,
  value: VerdictValue,
  seq: number,
  mode: VerdictRecord['mode'] = 'evaluate',
): VerdictRecord {
  return {
    featureId,
    verdict: value,
    steps: [],
    issues: value === 'fail' ? ['button does nothing'] : [],
    mode,
    runId: 'r-test',
    session: seq,
    at: T0.toISOString(),
    evidence: [],
  };
}
