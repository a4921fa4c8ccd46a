import { describe, expect, it } from 'vitest';
import { eventLine, verdictLine } from '../../../cli/event-lines.js';
import { EXIT_CODES, exitCodeOf, goOnLine } from '../../../cli/foreground.js';
import { toRunStatusJson } from '../../../cli/status.js';
import { oneLine, printable, stampLines } from '../../../cli/terminal-text.js';
import { shortArguments, TranscriptFormatter } from '../../../cli/transcript-lines.js';
import { RunConfig } from '../../../orchestrator/config.js';
import { emptyCounters, type RunRecord, summarizeFeatures } from '../../../orchestrator/run/run-state.js';

const at = '2026-05-01T03:12:04.120Z';
const applied = {
  type: 'verdict.applied',
  runId: 'r-1',
  at,
  seq: 7,
  featureId: 'F-003',
  mode: 'evaluate',
} as const;

describe('verdict lines', () => {
  it('says pass, fail with its attempt and reason, blocked with its reason', () => {
    expect(verdictLine({ ...applied, verdict: 'pass', passes: true, attempts: 0 })).toBe(
      'F-003 pass (session 7)',
    );
    expect(
      verdictLine({
        ...applied,
        verdict: 'fail',
        passes: false,
        attempts: 2,
        reason: 'It shows "3 items left".',
      }),
    ).toBe('F-003 fail (attempt 2): It shows "3 items left". (session 7)');
    expect(
      verdictLine({
        ...applied,
        verdict: 'blocked',
        passes: false,
        attempts: 0,
        reason: 'the app did not start',
      }),
    ).toBe('F-003 blocked: the app did not start (session 7)');
    expect(verdictLine({ ...applied, mode: 'regression', verdict: 'fail', passes: false, attempts: 0 })).toBe(
      'F-003 regression check: fail: no reason given (session 7)',
    );
  });

  it('escapes what a model wrote: a reason cannot move the cursor or recolour the terminal', () => {
    const line = verdictLine({
      ...applied,
      verdict: 'fail',
      passes: false,
      attempts: 1,
      reason: 'red \u001b[31mtext\u001b[0m\r\u009b2J and\nmore',
    });
    expect(line).toBe('F-003 fail (attempt 1): red \\x1b[31mtext\\x1b[0m \\u009b2J and more (session 7)');
    expect(line).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
  });

  it('gives the event log a line per run event and none for the agent events', () => {
    expect(
      eventLine({
        type: 'run.status',
        runId: 'r-1',
        at,
        status: 'paused',
        previous: 'building',
        reason: 'user',
        detail: 'paused from the dashboard',
      }),
    ).toBe('run paused (user): paused from the dashboard');
    expect(
      eventLine({
        type: 'session.finished',
        runId: 'r-1',
        at,
        seq: 4,
        role: 'evaluator',
        featureIds: ['F-002'],
        outcome: 'aborted',
        reason: 'interrupted, not judged: the run was paused',
        costUsd: 0.0312,
        durationMs: 4_200,
      }),
    ).toBe(
      'session 4 evaluator F-002 ended aborted: interrupted, not judged: the run was paused (4s, $0.03)',
    );
    const replayed = { type: 'check.replayed', runId: 'r-1', at, seq: 9, where: 'sweep' } as const;
    expect(eventLine({ ...replayed, passed: ['F-001', 'F-002'], failed: ['F-004'] })).toBe(
      'session 9 replayed recorded checks (sweep): 2 held, red: F-004',
    );
    expect(eventLine({ ...replayed, where: 'gate', passed: ['F-003'], failed: [] })).toBe(
      'session 9 replayed recorded checks (gate): 1 held',
    );
    expect(
      eventLine({
        type: 'agent',
        runId: 'r-1',
        at,
        seq: 4,
        event: { type: 'text', at, sessionId: 's', step: 1, text: 'hello' },
      }),
    ).toBeNull();
  });
});

describe('transcript lines', () => {
  it('shows the brief, the model text, tool calls with short arguments and the first line of each result', () => {
    const formatter = new TranscriptFormatter();
    const lines = [
      { kind: 'system' as const, at, system: 'You are…', tools: ['bash', 'commit'] },
      {
        kind: 'message' as const,
        at,
        message: {
          role: 'user' as const,
          content: [{ type: 'text' as const, text: 'Implement F-004:\nEdit a todo' }],
        },
      },
      {
        kind: 'message' as const,
        at,
        message: {
          role: 'assistant' as const,
          content: [
            { type: 'thinking' as const, text: 'secret plan' },
            { type: 'text' as const, text: 'I will run the tests.' },
            {
              type: 'tool_call' as const,
              id: 'c1',
              name: 'bash',
              arguments: { command: 'npm test', timeout_ms: 5000 },
            },
          ],
        },
      },
      {
        kind: 'message' as const,
        at,
        message: {
          role: 'user' as const,
          content: [
            {
              type: 'tool_result' as const,
              toolCallId: 'c1',
              isError: true,
              content: '\n\nexit code 1\nstack…',
            },
          ],
        },
      },
    ].flatMap((line) => formatter.lines(line));
    expect(lines).toEqual([
      'system prompt, 2 tools: bash, commit',
      'brief: Implement F-004: Edit a todo',
      'model: I will run the tests.',
      '→ bash {command: "npm test", timeout_ms: 5000}',
      '← bash error: exit code 1',
    ]);
  });

  it('cuts long arguments and escapes control characters in them', () => {
    const args = shortArguments({ content: 'x'.repeat(500), path: 'a\u001b]0;title\u0007.ts' });
    expect(args.length).toBeLessThanOrEqual(160);
    expect(args).toContain('…');
    expect(args).not.toMatch(/[\u0000-\u001f]/);
  });
});

describe('terminal text', () => {
  it('escapes every control character but tab and newline; oneLine flattens and cuts', () => {
    expect(printable('a\tb\nc\u0007\u007f')).toBe('a\tb\nc\\x07\\u007f');
    expect(oneLine('  one\n two  three ', 9)).toBe('one two …');
  });

  it('stamps every line written, also across writes that split a line', () => {
    let out = '';
    const stamped = stampLines({ write: (text: string) => (out += text) }, () => new Date(at));
    stamped.write('first line\nsecond ');
    stamped.write('half\nthird\n');
    expect(out).toBe(
      '2026-05-01T03:12:04Z first line\n2026-05-01T03:12:04Z second half\n2026-05-01T03:12:04Z third\n',
    );
  });
});

describe('how a foreground run ends', () => {
  it('has one exit code for each way', () => {
    expect(exitCodeOf({ status: 'done', pausedReason: null })).toBe(0);
    expect(exitCodeOf({ status: 'paused', pausedReason: 'budget' })).toBe(EXIT_CODES.done);
    expect(exitCodeOf({ status: 'paused', pausedReason: 'user' })).toBe(3);
    expect(exitCodeOf({ status: 'paused', pausedReason: 'no-progress' })).toBe(EXIT_CODES.done);
    expect(exitCodeOf({ status: 'paused', pausedReason: 'harness-error' })).toBe(EXIT_CODES.ended);
    for (const status of ['failed', 'cancelled', 'incomplete'] as const)
      expect(exitCodeOf({ status, pausedReason: null })).toBe(1);
  });

  it('says who paused it, unless it was this terminal, and how to go on', () => {
    const run = { id: 'r-1', pausedReason: 'user' as const, detail: 'paused from the dashboard' };
    expect(goOnLine(run)).toBe(
      'run r-1 is paused (paused from the dashboard). Go on with the same `nightshift run` command (it resumes the run on this workspace), or `nightshift resume r-1` (or Resume in the dashboard) for workers.',
    );
    expect(
      goOnLine({ ...run, detail: 'interrupted (Ctrl-C) in the foreground' }, { interruptedHere: true }),
    ).toMatch(/^run r-1 is paused\. Go on/);
    expect(goOnLine({ ...run, pausedReason: 'budget' })).toContain('`nightshift resume r-1 --budget-usd N`');
  });
});

describe('the way on from a finished run', () => {
  const run = (status: RunRecord['status']): RunRecord => ({
    id: 'r-1',
    rev: 1,
    name: null,
    spec: { path: '/specs/todo app.md', name: 'todo app.md' },
    workspace: { kind: 'local', path: '/work/todo' },
    config: RunConfig.parse({}),
    status,
    pausedReason: null,
    detail: null,
    createdAt: at,
    startedAt: at,
    updatedAt: at,
    finishedAt: at,
    seq: 3,
    counters: emptyCounters(),
    features: summarizeFeatures([]),
    lastSession: null,
    lanes: [],
    mainSeq: 0,
    questions: [],
  });

  it('is a new run on the same workspace (--new), the command written out', () => {
    expect(toRunStatusJson(run('cancelled')).next).toBe(
      "nothing (cancelled); a new run on its workspace: `nightshift run '/specs/todo app.md' --workspace /work/todo --new`",
    );
    expect(toRunStatusJson(run('done')).next).toContain(
      '--workspace /work/todo --new` starts a new run on it',
    );
  });
});
