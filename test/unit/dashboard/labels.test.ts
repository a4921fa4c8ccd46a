import { describe, expect, it } from 'vitest';
import { retryRefusal } from '../../../dashboard/retry.js';
import { valueLabelY } from '../../../dashboard/ui/src/chart.js';
import { costText, shortRunId, workspaceName } from '../../../dashboard/ui/src/format.js';
import { hashFor, readHash } from '../../../dashboard/ui/src/hash.js';
import { sessionResult } from '../../../dashboard/ui/src/labels.js';
import { emptySession } from '../../../orchestrator/run/run-state.js';
import { featureState, makeRun } from '../orchestrator/fixtures.js';

describe('dashboard labels', () => {
  const evaluation = (verdicts: Array<'pass' | 'fail' | 'blocked'>) => ({
    ...emptySession(5, 'job-5', 'evaluator', '2026-01-01T00:00:00Z'),
    outcome: 'completed' as const,
    verdicts: verdicts.map((verdict, i) => ({
      featureId: `F-00${i + 1}`,
      verdict,
      mode: 'evaluate' as const,
    })),
  });

  it('names an evaluation by its verdicts, not by the loop having completed', () => {
    expect(sessionResult(evaluation(['pass', 'fail']))).toEqual({ label: 'fail', tone: 'bad' });
    expect(sessionResult(evaluation(['pass', 'blocked']))).toEqual({ label: 'blocked', tone: 'warn' });
    expect(sessionResult(evaluation(['pass']))).toEqual({ label: 'pass', tone: 'good' });
    expect(sessionResult({ ...evaluation([]), role: 'generator' })).toEqual({
      label: 'completed',
      tone: 'good',
    });
    expect(sessionResult({ ...evaluation(['pass']), outcome: null })).toEqual({
      label: 'running',
      tone: 'running',
    });
    expect(sessionResult({ ...evaluation(['fail']), outcome: 'aborted' })).toEqual({
      label: 'aborted',
      tone: 'bad',
    });
    // The store's own result wins when it keeps one.
    expect(sessionResult({ ...evaluation(['pass']), result: 'failed' } as never)).toEqual({
      label: 'failed',
      tone: 'bad',
    });
  });

  it('shows an unknown cost as unknown, with the sessions that have no price', () => {
    expect(costText(1.234, 0)).toBe('$1.23');
    expect(costText(12.5, 2)).toBe('$12.5 + unknown (2 sessions)');
    expect(costText(null, 1)).toBe('unknown (1 session)');
  });

  it('names runs by workspace and short id', () => {
    expect(workspaceName('/srv/work/todo-app/')).toBe('todo-app');
    expect(workspaceName('git@host:team/shop.git#nightshift')).toBe('shop#nightshift');
    expect(shortRunId('r-mx248lym1a27b1')).toBe('1a27b1');
  });

  it('reads and writes the feature and session of the URL fragment', () => {
    expect(readHash('#feature=F-003&session=12')).toEqual({ feature: 'F-003', session: 12 });
    expect(readHash('#session=x')).toEqual({ feature: null, session: null });
    expect(readHash('')).toEqual({ feature: null, session: null });
    expect(hashFor({ feature: 'F-003', session: null })).toBe('#feature=F-003');
    expect(hashFor({ feature: null, session: null })).toBe('');
  });

  it('keeps the chart value label inside the drawing', () => {
    expect(valueLabelY(12)).toBeGreaterThan(12 + 11); // below a line along the top
    expect(valueLabelY(100)).toBe(94); // above the line elsewhere
  });

  it('refuses a retry that would do nothing, saying why', () => {
    const building = makeRun({ status: 'building' });
    expect(retryRefusal(building, featureState(1, { passes: true }))).toBe('it passes');
    expect(retryRefusal(building, featureState(1))).toMatch(/not been evaluated yet/);
    expect(retryRefusal(building, featureState(1, { blocked: true, attempts: 3 }))).toBeNull();
    expect(retryRefusal(building, featureState(1, { attempts: 1, lastVerdict: 'fail' }))).toBeNull();
    expect(retryRefusal(makeRun({ status: 'cancelled' }), featureState(1, { blocked: true }))).toBe(
      'the run is cancelled and starts no more sessions',
    );
  });
});
