import { describe, expect, it } from 'vitest';
import {
  formatRunStatus,
  formatRunsTable,
  RunStatusJson,
  statusLabel,
  toRunStatusJson,
  workspaceLabel,
} from '../../../cli/admin.js';
import type { SessionRecord } from '../../../orchestrator/run/index.js';
import { emptySession } from '../../../orchestrator/run/run-state.js';
import { makeRun, T0 } from '../orchestrator/fixtures.js';

const run = {
  ...makeRun({ counters: { sessions: 7, costUsd: 2.5, costUnknownSessions: 1 } }),
  features: { total: 8, passing: 4, failing: 3, blocked: 1 },
};

describe('status JSON', () => {
  it('has the DESIGN.md fields first, then what the text view shows, and nothing else', () => {
    const json = toRunStatusJson(run);
    expect(json).toMatchObject({
      id: 'r-test',
      status: 'building',
      pausedReason: null,
      workspace: '/tmp/ws',
      features: { total: 8, passing: 4, failing: 3, blocked: 1 },
      sessions: 7,
      costUsd: 2.5,
      costUnknownSessions: 1,
      startedAt: T0.toISOString(),
      updatedAt: T0.toISOString(),
      budgets: { costUsd: 2.5, sessions: 7 },
    });
    expect(Object.keys(json)).toEqual(Object.keys(RunStatusJson.shape));
    expect(() => RunStatusJson.parse({ ...json, extra: 1 })).toThrow();
  });

  it('says null, never 0, for the cost of a run whose sessions all had no price', () => {
    const unpriced = makeRun({
      counters: { sessions: 3, costUnknownSessions: 3, unpricedTokens: 1_500_000 },
    });
    expect(toRunStatusJson(unpriced)).toMatchObject({ costUsd: null, costUnknownSessions: 3 });
    const text = formatRunStatus({ run: unpriced, lastSession: undefined, next: null, workers: 1, now: T0 });
    expect(text).toMatch(
      /cost\s+unknown \(\+3 sessions of unknown cost: models without a price, 1\.5M of 20\.0M tokens\)/,
    );
    expect(text).not.toContain('$0.00');
    const [, row] = formatRunsTable([unpriced]).split('\n');
    expect(row).toMatch(/\s3\s+unknown\s/);
  });

  it('writes a remote workspace as url#branch and a paused status with its reason', () => {
    expect(workspaceLabel({ kind: 'remote', url: 'git@host:app.git', branch: 'main' })).toBe(
      'git@host:app.git#main',
    );
    expect(statusLabel({ status: 'paused', pausedReason: 'deadline' })).toBe('paused (deadline)');
  });
});

describe('human status', () => {
  const finished: SessionRecord = {
    ...emptySession(7, 'r-test-7', 'evaluator', T0.toISOString()),
    featureIds: ['F-004'],
    finishedAt: T0.toISOString(),
    outcome: 'completed',
    durationMs: 190_000,
    costUsd: 0.12,
    verdicts: [{ featureId: 'F-004', verdict: 'fail', mode: 'evaluate' }],
  };
  const now = new Date(T0.getTime() + 3_720_000);

  it('shows progress, cost with the unknown part, elapsed, the last session and the next step', () => {
    const text = formatRunStatus({
      run,
      lastSession: finished,
      next: { kind: 'generate', featureId: 'F-004' },
      workers: 1,
      now,
    });
    expect(text).toContain('4/8 passing · 3 failing · 1 blocked');
    expect(text).toContain(
      '$2.50 of $20.00 (+1 sessions of unknown cost: models without a price, 0 of 20.0M tokens)',
    );
    expect(text).toMatch(/elapsed\s+1h 02m/);
    expect(text).toMatch(/last session\s+#7 evaluator F-004 → completed \(F-004 fail\), 3m 10s, \$0\.12/);
    expect(text).toMatch(/next\s+generator session on F-004$/m);
  });

  it('tells how to go on from a pause, a failure and a missing worker', () => {
    const paused = formatRunStatus({
      run: { ...run, status: 'paused', pausedReason: 'budget', detail: 'cost reached' },
      lastSession: undefined,
      next: null,
      workers: null,
      now,
    });
    expect(paused).toMatch(/status\s+paused \(budget\): cost reached/);
    expect(paused).toContain('nightshift resume r-test');
    expect(paused).toMatch(/last session\s+none yet/);
    const failed = formatRunStatus({
      run: { ...run, status: 'failed' },
      lastSession: undefined,
      next: null,
      workers: null,
      now,
    });
    expect(failed).toContain('fix the cause above, then `nightshift resume r-test`');
    const idle = formatRunStatus({
      run,
      lastSession: { ...finished, finishedAt: null, outcome: null },
      next: null,
      workers: 0,
      now,
    });
    expect(idle).toMatch(/last session\s+#7 evaluator F-004, running for 1h 02m/);
    expect(idle).toContain('no worker is connected: start one with `nightshift worker`');
  });

  it('lists runs in a table, or says there are none', () => {
    expect(formatRunsTable([])).toContain('No runs yet');
    const [header, row] = formatRunsTable([run]).split('\n');
    expect(header).toMatch(/^RUN\s+NAME\s+STATUS\s+FEATURES/);
    expect(row).toMatch(
      /^r-test\s+A test app\s+building\s+\[█████░░░░░\] 4\/8\s+7\s+\$2\.50 \+\?\s+2026-01-01 00:00Z$/,
    );
  });
});
