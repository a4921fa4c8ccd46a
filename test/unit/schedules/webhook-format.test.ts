import { describe, expect, it } from 'vitest';
import { safeOrigin } from '../../../orchestrator/notifications.js';
import type { RunRecord } from '../../../orchestrator/run/index.js';
import {
  escapeSlack,
  formatNotification,
  jsonPayload,
  slackText,
  statusNotificationType,
  WebhookPayload,
  wants,
} from '../../../orchestrator/webhook-format.js';
import { makeRun } from '../orchestrator/fixtures.js';

const at = '2026-01-01T07:00:05.000Z';

function run(patch: Partial<RunRecord> = {}): RunRecord {
  return {
    ...makeRun({ counters: { costUsd: 3.456 } }),
    features: { total: 12, passing: 7, failing: 3, blocked: 2 },
    ...patch,
  };
}

describe('status notifications', () => {
  it('maps statuses to notification types', () => {
    expect(statusNotificationType(run({ status: 'done' }))).toBe('run.finished');
    expect(statusNotificationType(run({ status: 'cancelled' }))).toBe('run.finished');
    expect(statusNotificationType(run({ status: 'failed' }))).toBe('run.failed');
    expect(statusNotificationType(run({ status: 'paused', pausedReason: 'budget' }))).toBe('run.paused');
    expect(statusNotificationType(run({ status: 'building' }))).toBeUndefined();
    expect(statusNotificationType(run({ status: 'initializing' }))).toBeUndefined();
  });

  it('filters by the webhook events list', () => {
    const url = 'https://example.com/hook';
    expect(wants({ url, format: 'json' }, 'run.paused')).toBe(true);
    expect(wants({ url, format: 'json', events: ['nightly.summary'] }, 'run.paused')).toBe(false);
    expect(wants({ url, format: 'json', events: ['nightly.summary'] }, 'nightly.summary')).toBe(true);
  });
});

describe('generic JSON', () => {
  it('carries type, run, status, reason, detail and the time, valid against the schema', () => {
    const paused = run({
      status: 'paused',
      pausedReason: 'deadline',
      detail: 'deadline 2026-01-01T07:00:00Z passed',
    });
    const payload = jsonPayload({ type: 'run.paused', run: paused, at });
    expect(WebhookPayload.parse(payload)).toEqual(payload);
    expect(payload).toEqual({
      type: 'run.paused',
      runId: 'r-test',
      name: 'A test app',
      spec: 'spec.md',
      status: 'paused',
      reason: 'deadline',
      detail: 'deadline 2026-01-01T07:00:00Z passed',
      features: { total: 12, passing: 7, failing: 3, blocked: 2 },
      costUsd: 3.456,
      costUnknownSessions: 0,
      at,
    });
  });

  it('includes the summary and the regressions when there are any', () => {
    const summary = {
      since: '2026-01-01T01:00:00.000Z',
      newlyPassing: ['F-003'],
      newlyFailing: [],
      blocked: ['F-009'],
      blockedReasons: [{ featureId: 'F-009', reason: '3 failed evaluations' }],
      costUsd: 2.5,
      passing: 7,
      total: 12,
    };
    expect(jsonPayload({ type: 'nightly.summary', run: run(), summary, at }).summary).toEqual(summary);
    const regressions = [{ featureId: 'F-002', issues: ['total is wrong'] }];
    expect(jsonPayload({ type: 'feature.regressed', run: run(), regressions, at }).regressions).toEqual(
      regressions,
    );
  });
});

describe('Slack text', () => {
  it('is one readable paragraph per notification', () => {
    const paused = run({
      status: 'paused',
      pausedReason: 'budget',
      detail: 'cost $20.10 reached the budget of $20.00',
    });
    expect(slackText({ type: 'run.paused', run: paused, at })).toBe(
      'nightshift run r-test "A test app" paused (budget): cost $20.10 reached the budget of $20.00. ' +
        '7/12 features passing, $3.46 spent.',
    );
    expect(slackText({ type: 'run.finished', run: run({ status: 'done' }), at })).toBe(
      'nightshift run r-test "A test app" finished (done). 7/12 features passing, $3.46 spent.',
    );
    expect(
      slackText({ type: 'run.failed', run: run({ status: 'failed', detail: 'bad key' }), at }),
    ).toContain(
      'failed: bad key. 7/12 features passing, $3.46 spent. Fix the cause, then `nightshift resume r-test`.',
    );
    const summary = {
      since: '2026-01-01T01:00:00.000Z',
      newlyPassing: ['F-003', 'F-004'],
      newlyFailing: ['F-001'],
      blocked: [],
      blockedReasons: [],
      costUsd: 2.5,
      passing: 7,
      total: 12,
    };
    const pausedForDeadline = run({ status: 'paused', pausedReason: 'deadline' });
    expect(slackText({ type: 'nightly.summary', run: pausedForDeadline, summary, at })).toBe(
      'nightshift run r-test "A test app" summary of the window since 2026-01-01T01:00:00.000Z: ' +
        '2 newly passing (F-003, F-004), 1 newly failing (F-001), 0 blocked; 7/12 features passing; ' +
        '$2.50 spent in the window. Status: paused (deadline).',
    );
  });

  it('escapes model text so it cannot ping a channel or inject links', () => {
    const regressions = [{ featureId: 'F-002', issues: ['<!channel> shows <b>&nbsp;</b>'] }];
    const text = slackText({ type: 'feature.regressed', run: run(), regressions, at });
    expect(text).toContain('F-002 (&lt;!channel&gt; shows &lt;b&gt;&amp;nbsp;&lt;/b&gt;)');
    expect(text).not.toContain('<');
    expect(escapeSlack('a & b')).toBe('a &amp; b');
    expect(formatNotification({ type: 'run.finished', run: run({ status: 'done' }), at }, 'slack')).toEqual({
      text: expect.stringContaining('finished (done)'),
    });
  });
});

describe('safeOrigin', () => {
  it('keeps scheme, host and port only, never the path, query or credentials', () => {
    expect(safeOrigin('https://hooks.slack.com/services/T0/B0/secret')).toBe('https://hooks.slack.com');
    expect(safeOrigin('http://user:pw@127.0.0.1:8080/x?token=1')).toBe('http://127.0.0.1:8080');
    expect(safeOrigin('not a url')).toBe('(invalid URL)');
  });
});
