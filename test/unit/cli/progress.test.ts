import { describe, expect, it } from 'vitest';
import {
  createProgressRenderer,
  formatAppStartFailure,
  formatProgressLine,
  type ProgressUpdate,
} from '../../../cli/progress.js';

const NOW = new Date('2026-01-01T01:00:00.000Z');

function update(
  patch: Partial<ProgressUpdate> = {},
  features = { total: 10, passing: 3, failing: 6, blocked: 1 },
) {
  return {
    run: { id: 'r-1', status: 'building', pausedReason: null, features },
    current: { role: 'generator', featureIds: ['F-004'], startedAt: '2026-01-01T00:57:50.000Z' },
    costUsd: 1.234,
    elapsedMs: 3_720_000,
    ...patch,
  } as ProgressUpdate;
}

function stream(columns = 200) {
  const out = {
    text: '',
    columns,
    write: (chunk: string) => {
      out.text += chunk;
      return true;
    },
  };
  return out;
}

describe('progress line', () => {
  it('shows the bar, passing/total, blocked, current role and feature, cost and elapsed', () => {
    expect(formatProgressLine(update(), NOW)).toBe(
      '[██████░░░░░░░░░░░░░░] 3/10 passing · 1 blocked · generator F-004 (2m 10s) · $1.23 · 1h 02m',
    );
  });

  it('says when no worker is connected to work the run', () => {
    expect(formatProgressLine(update({ current: null, noWorker: true }), NOW)).toBe(
      '[██████░░░░░░░░░░░░░░] 3/10 passing · 1 blocked · no worker is connected: start one with `nightshift worker` · $1.23 · 1h 02m',
    );
    expect(formatProgressLine(update({ current: null }), NOW)).toContain(' · building · ');
  });

  it('says when there is no feature list yet, when paused, and unknown cost', () => {
    const line = formatProgressLine(
      update({
        run: {
          id: 'r-1',
          status: 'paused',
          pausedReason: 'budget',
          features: { total: 0, passing: 0, failing: 0, blocked: 0 },
        },
        costUsd: null,
      }),
      NOW,
    );
    expect(line).toBe('no feature list yet · paused (budget) · unknown · 1h 02m');
  });
});

describe('progress renderer', () => {
  it('redraws one line in place on a TTY, cut to the terminal width, and ends with the summary', () => {
    const out = stream(40);
    const renderer = createProgressRenderer({ stream: out, isTTY: true, now: () => NOW });
    renderer.update(update());
    renderer.update(update({ elapsedMs: 3_780_000 }));
    expect(out.text.split('\r\x1b[2K')).toHaveLength(3);
    expect(out.text).not.toContain('\n');
    for (const line of out.text.split('\r\x1b[2K').slice(1)) expect(line.length).toBeLessThanOrEqual(39);
    renderer.done({
      status: 'done',
      features: { total: 10, passing: 9, failing: 0, blocked: 1 },
      sessions: 31,
      costUsd: 4.5,
      elapsedMs: 7_200_000,
    });
    expect(
      out.text.endsWith('\r\x1b[2Krun done — 9/10 features passing, 1 blocked, 31 sessions, $4.50, 2h 00m\n'),
    ).toBe(true);
  });

  it('prints a line per change (not per tick) when not a TTY', () => {
    const out = stream();
    const renderer = createProgressRenderer({ stream: out, isTTY: false, now: () => NOW });
    renderer.update(update());
    renderer.update(update({ elapsedMs: 3_800_000, costUsd: 1.5 })); // only the clock and cost moved
    renderer.update(
      update({ current: { role: 'evaluator', featureIds: ['F-004'], startedAt: NOW.toISOString() } }),
    );
    renderer.update(update({}, { total: 10, passing: 4, failing: 5, blocked: 1 }));
    const lines = out.text.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain('evaluator F-004');
    expect(lines[2]).toContain('4/10 passing');
    expect(out.text).not.toContain('\x1b');
    renderer.done({
      status: 'paused',
      pausedReason: 'budget',
      detail: 'cost $20.00 reached the budget of $20.00',
      features: { total: 10, passing: 4, failing: 5, blocked: 1 },
      sessions: 12,
      costUsd: 20,
      elapsedMs: 60_000,
    });
    expect(out.text.trimEnd().split('\n').at(-1)).toBe(
      'run paused (budget): cost $20.00 reached the budget of $20.00 — 4/10 features passing, 1 blocked, 12 sessions, $20.00, 1m 00s',
    );
  });
});

describe('an app start failure while following a run', () => {
  const failure = {
    seq: 4,
    role: 'evaluator' as const,
    exitCode: 1,
    logTail: ['> node server.js', "Error: Cannot find module 'express'"],
    logFile: 'runs/r-1/sessions/4-app.log',
  };

  it('is one line with the exit code, the last log line and the log', () => {
    expect(formatAppStartFailure(failure)).toBe(
      "session 4: the app did not start (init.sh exited with code 1); last log line: Error: Cannot find module 'express'; log: runs/r-1/sessions/4-app.log",
    );
    expect(formatAppStartFailure({ ...failure, role: 'initializer', exitCode: null, logTail: [] })).toBe(
      'session 4: the app did not start after the initializer (init.sh did not answer in time); log: runs/r-1/sessions/4-app.log',
    );
  });

  it('stays above the progress line on a terminal, which is drawn again after it', () => {
    const out = stream();
    const renderer = createProgressRenderer({ stream: out, isTTY: true, now: () => NOW });
    renderer.update(update());
    renderer.note('session 4: the app did not start');
    renderer.update(update());
    const [first, second] = out.text.split('\n');
    expect(first).toMatch(/passing.*\r\x1b\[2Ksession 4: the app did not start$/);
    expect(second).toMatch(/^\r\x1b\[2K.*3\/10 passing/);
  });
});
