// Where a nightshift build's time went, from its session records and event log: an evaluator's time before its first
// model request is app start, after its last agent event the check gate; a generator's are git/handoff; model waits
// are stretched by the compression; the merge queue runs from the lane's last evaluation of the feature to the merge
// event (whose seq is the merge step's own); idle is what no session or merge covers.
import { describe, expect, it } from 'vitest';
import { nightshiftPhases } from '../../../bench/overnight-phases.js';
import type { RunEvent } from '../../../orchestrator/events.js';
import { SessionRecord } from '../../../orchestrator/run/index.js';

const T0 = Date.parse('2026-12-01T00:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();

function session(seq: number, role: 'generator' | 'evaluator', from: number, to: number): SessionRecord {
  return SessionRecord.parse({
    seq,
    jobId: `r-${seq}`,
    role,
    kind: role === 'generator' ? 'generate' : 'evaluate',
    featureIds: ['F-001'],
    workerId: 'w',
    startedAt: at(from),
    finishedAt: at(to),
    outcome: 'completed',
    reason: null,
    model: 'anthropic:simulated',
    usage: null,
    costUsd: null,
    durationMs: to - from,
    steps: 1,
    startCommit: null,
    endCommit: null,
    commits: [],
    violations: 0,
    verdicts: [],
  });
}

function agent(seq: number, ms: number, event: Record<string, unknown>): RunEvent {
  return {
    type: 'agent',
    runId: 'r',
    at: at(ms),
    seq,
    event: { at: at(ms), sessionId: `s${seq}`, ...event },
  } as RunEvent;
}

describe('nightshiftPhases', () => {
  it('splits sessions into app start, model wait, tools, browser, git/handoff, merge queue and idle', () => {
    const sessions = [session(1, 'generator', 0, 1_000), session(2, 'evaluator', 1_200, 3_000)];
    const events: RunEvent[] = [
      agent(1, 100, { type: 'model.request', step: 1, messages: 1, bytes: 10 }),
      agent(1, 400, {
        type: 'model.usage',
        step: 1,
        usage: { inputTokens: 0, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
        costUsd: null,
        durationMs: 300,
      }),
      agent(1, 600, {
        type: 'tool.ended',
        step: 1,
        callId: 'c',
        name: 'bash',
        isError: false,
        durationMs: 200,
        outputBytes: 1,
        truncated: false,
      }),
      agent(1, 900, { type: 'session.ended', outcome: 'completed', steps: 1 }),
      agent(2, 1_700, { type: 'model.request', step: 1, messages: 1, bytes: 10 }),
      agent(2, 1_800, {
        type: 'model.usage',
        step: 1,
        usage: { inputTokens: 0, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
        costUsd: null,
        durationMs: 100,
      }),
      agent(2, 2_200, {
        type: 'tool.ended',
        step: 1,
        callId: 'd',
        name: 'browser_snapshot',
        isError: false,
        durationMs: 400,
        outputBytes: 1,
        truncated: false,
      }),
      agent(2, 2_400, { type: 'session.ended', outcome: 'completed', steps: 1 }),
      {
        type: 'lane.merge',
        runId: 'r',
        at: at(3_500),
        seq: 3,
        lane: 1,
        featureId: 'F-001',
        outcome: 'merged',
        detail: '',
        head: null,
        checked: [],
      },
    ];
    const phases = nightshiftPhases({ sessions, events, compression: 10 }, [0, 4_000]);
    expect(phases).toEqual({
      modelWait: (300 + 100) * 10,
      toolsBash: 200,
      appStart: 500,
      evaluationBrowser: 400 + 600,
      // Generator: 100 before its first request, 100 after its last event, 300 of harness between its calls; the
      // evaluator's 200 between its calls.
      gitHandoff: 100 + 100 + 300 + 200,
      mergeQueue: 500,
      idle: 200 + 500,
    });
  });
});
