// The run's story over a synthetic night of 60 features and 300 sessions: every feature in one group, what is stuck
// and why, cost per passing feature, what runs and what is next, and the hourly timeline.
import { describe, expect, it } from 'vitest';
import { nightLine, storyRows } from '../../../cli/status-story.js';
import { buildRunStory } from '../../../dashboard/story.js';
import { RunStory } from '../../../dashboard/story-schema.js';
import type { Question } from '../../../handoff/questions.js';
import { waitsOnReason } from '../../../orchestrator/dependencies.js';
import {
  emptySession,
  type FeatureState,
  type RunState,
  type SessionRecord,
} from '../../../orchestrator/run/run-state.js';
import { featureState, makeState, T0 } from '../orchestrator/fixtures.js';

const MINUTE = 60_000;
const id = (n: number) => `F-${String(n).padStart(3, '0')}`;

/** 40 passing, 6 blocked (one through its dependency), 2 waiting, 4 failing (2 of them twice), 1 in a session, 7 not started. */
function nightFeatures(): FeatureState[] {
  return Array.from({ length: 60 }, (_, index) => {
    const n = index + 1;
    if (n <= 40) return featureState(n, { passes: true, lastVerdict: 'pass' });
    if (n <= 45)
      return featureState(n, { blocked: true, blockedReason: `${n - 38} failed evaluations: <b>${n}</b>` });
    if (n === 46)
      return featureState(n, {
        depends_on: [id(41)],
        blocked: true,
        blockedReason: waitsOnReason({
          id: id(41),
          passes: false,
          blocked: true,
          blockedReason: 'no login page',
        }),
      });
    if (n <= 48) return featureState(n, { attempts: 1, lastVerdict: 'fail' });
    if (n <= 52) return featureState(n, { attempts: n % 2 === 0 ? 2 : 1, lastVerdict: 'fail' });
    if (n === 56) return featureState(n, { depends_on: [id(53)] });
    return featureState(n);
  });
}

function question(n: number, featureId: string, answer: string | null): Question {
  return {
    id: `Q-${n}`,
    featureId,
    role: 'generator',
    seq: 100 + n,
    question: `Which currency for ${featureId}?`,
    options: [],
    askedAt: new Date(T0.getTime() + (10 - n) * MINUTE).toISOString(),
    answer,
    answeredAt: answer ? T0.toISOString() : null,
    answeredBy: answer ? 'cli' : null,
  };
}

/** 300 finished sessions two minutes apart (evaluators on even seqs; every 50th a provider error), then one running. */
function nightSessions(): SessionRecord[] {
  const sessions = Array.from({ length: 300 }, (_, index): SessionRecord => {
    const seq = index + 1;
    const evaluator = seq % 2 === 0;
    const featureId = id((seq % 60) + 1);
    return {
      ...emptySession(seq, `j-${seq}`, evaluator ? 'evaluator' : 'generator', T0.toISOString()),
      kind: evaluator ? 'evaluate' : 'generate',
      featureIds: [featureId],
      finishedAt: new Date(T0.getTime() + index * 2 * MINUTE).toISOString(),
      outcome: seq % 50 === 0 ? 'provider_error' : 'completed',
      costUsd: 0.05,
      verdicts: evaluator
        ? [
            {
              featureId,
              verdict: seq % 4 === 0 ? 'pass' : 'fail',
              mode: seq % 12 === 0 ? 'regression' : 'evaluate',
            },
          ]
        : [],
    };
  });
  const running = {
    ...emptySession(301, 'j-301', 'generator', new Date(T0.getTime() + 600 * MINUTE).toISOString()),
    kind: 'generate' as const,
    featureIds: [id(53)],
  };
  return [...sessions, running];
}

function nightState(status: RunState['run']['status'] = 'building'): RunState {
  return makeState(nightFeatures(), {
    status,
    counters: { sessions: 300, costUsd: 15 },
    questions: [question(1, id(47), null), question(2, id(48), null), question(3, id(49), 'EUR')],
  });
}

const NOW = new Date(T0.getTime() + 605 * MINUTE);

describe('the run story', () => {
  it('puts every one of 60 features in one group and names what is stuck and why', () => {
    const story = RunStory.parse(
      buildRunStory({ state: nightState(), sessions: nightSessions(), lastWindow: null, now: NOW }),
    );
    expect(story.counts).toEqual({
      total: 60,
      passing: 40,
      failing: 4,
      blocked: 6,
      waiting: 2,
      inProgress: 1,
      notStarted: 7,
    });
    const { passing, failing, blocked, waiting, inProgress, notStarted } = story.counts;
    expect(passing + failing + blocked + waiting + inProgress + notStarted).toBe(story.counts.total);
    expect(story.stuck.blocked.map((entry) => entry.featureId)).toEqual([41, 42, 43, 44, 45, 46].map(id));
    expect(story.stuck.blocked[0]).toEqual({
      featureId: 'F-041',
      description: 'feature 41',
      reason: '3 failed evaluations: <b>41</b>',
    });
    expect(story.stuck.blocked[5]!.reason).toBe('waits on F-041, which is blocked: no login page');
    // Default maxAttemptsPerFeature 3: two failed evaluations is half way to a block.
    expect(story.stuck.struggling).toEqual([
      { featureId: 'F-050', description: 'feature 50', failedEvaluations: 2, limit: 3 },
      { featureId: 'F-052', description: 'feature 52', failedEvaluations: 2, limit: 3 },
    ]);
    // Oldest first; the answered one is not open.
    expect(story.stuck.questions.map((entry) => entry.id)).toEqual(['Q-2', 'Q-1']);
  });

  it('tells the cost, the sessions, what runs now and what is next', () => {
    const state = nightState();
    const story = buildRunStory({ state, sessions: nightSessions(), lastWindow: null, now: NOW });
    expect(story.cost).toEqual({
      usd: 15,
      perPassingUsd: 15 / 40,
      unknownSessions: 0,
      capUsd: state.run.config.budgets.maxCostUsd,
    });
    expect(story.sessions).toMatchObject({ finished: 300, running: 1, wasted: 6 });
    expect(story.running).toEqual([
      expect.objectContaining({ seq: 301, role: 'generator', featureIds: ['F-053'], lane: null }),
    ]);
    expect(story.next.step).toBe('session 301 (generator) ends, then the planner decides');
    // Failing features and the not-started ones whose dependencies pass, in list order; F-056 waits on F-053.
    expect(story.next.upcoming).toEqual(['F-049', 'F-050', 'F-051', 'F-052', 'F-054']);
    expect(story.next.more).toBe(5);
  });

  it('buckets the night by hour from the session history', () => {
    const sessions = nightSessions();
    const story = buildRunStory({ state: nightState(), sessions, lastWindow: null, now: NOW });
    expect(story.timeline.hours).toBe(1);
    expect(story.timeline.buckets).toHaveLength(10);
    // Counted here straight from the sessions, one hour at a time.
    story.timeline.buckets.forEach((bucket, hour) => {
      const inHour = sessions.filter(
        (session) =>
          session.finishedAt &&
          Math.floor((Date.parse(session.finishedAt) - T0.getTime()) / 3_600_000) === hour,
      );
      const verdicts = inHour.flatMap((session) => session.verdicts);
      expect(bucket).toEqual({
        start: new Date(T0.getTime() + hour * 3_600_000).toISOString(),
        sessions: inHour.length,
        passed: verdicts.filter((v) => v.verdict === 'pass' && v.mode === 'evaluate').length,
        failed: verdicts.filter((v) => v.verdict === 'fail').length,
        costUsd: Math.round(inHour.length * 0.05 * 1e6) / 1e6,
      });
    });
    expect(story.timeline.buckets.reduce((sum, bucket) => sum + bucket.sessions, 0)).toBe(300);
    expect(nightLine(story.timeline)).toMatch(/^passes per hour \S{10} from 2026-01-01 00:00Z: \d+ passes/);
    // Counts agree with their nouns: one pass, one session.
    const one = {
      ...story.timeline,
      buckets: [
        {
          ...(story.timeline.buckets[0] as (typeof story.timeline.buckets)[number]),
          passed: 1,
          failed: 1,
          sessions: 1,
        },
      ],
    };
    expect(nightLine(one)).toMatch(/: 1 pass, 1 failed check in 1 session$/);
  });

  it('keeps a run of days to at most 24 buckets', () => {
    const sessions = nightSessions().map((session, index) => ({
      ...session,
      finishedAt: session.finishedAt && new Date(T0.getTime() + index * 20 * MINUTE).toISOString(),
    }));
    const { timeline } = buildRunStory({ state: nightState(), sessions, lastWindow: null, now: NOW });
    // 299 × 20 minutes ≈ 100 hours: 5-hour buckets.
    expect(timeline.hours).toBe(5);
    expect(timeline.buckets.length).toBeLessThanOrEqual(24);
    expect(timeline.buckets.reduce((sum, bucket) => sum + bucket.sessions, 0)).toBe(300);
  });

  it('has nothing running and no next step once the run is paused', () => {
    const story = buildRunStory({
      state: nightState('paused'),
      sessions: nightSessions(),
      lastWindow: null,
      now: NOW,
    });
    expect(story.running).toEqual([]);
    expect(story.next.step).toBeNull();
    // F-053 is no longer in a session: it has never been evaluated, so it counts as not started.
    expect(story.counts).toMatchObject({ inProgress: 0, notStarted: 8 });
  });

  it('says what each free lane starts in lanes mode', () => {
    const state = makeState([featureState(1, { passes: true }), featureState(2), featureState(3)], {
      config: { lanes: 2 },
    });
    const story = buildRunStory({ state, sessions: [], lastWindow: null, now: NOW });
    expect(story.next.step).toBe('lane 1: generator session on F-002; lane 2: generator session on F-003');
  });

  it('prints as a few status rows: groups, the stuck, the questions, the night and the next features', () => {
    const story = buildRunStory({
      state: nightState(),
      sessions: nightSessions(),
      lastWindow: {
        at: NOW.toISOString(),
        since: T0.toISOString(),
        newlyPassing: [id(1), id(2)],
        newlyFailing: [id(7)],
        blocked: [id(41)],
        blockedReasons: [{ featureId: id(41), reason: 'no login page' }],
        costUsd: 15,
        passing: 40,
        total: 60,
      },
      now: NOW,
    });
    const { standing, night, upcoming } = storyRows(story);
    expect(standing[0]).toEqual([
      'features',
      expect.stringContaining(
        '40/60 passing · 4 failed, to retry · 6 blocked · 2 waiting for an answer · 1 in progress · 7 not started',
      ),
    ]);
    expect(standing.filter(([label]) => label === 'blocked')).toHaveLength(6);
    expect(standing).toContainEqual(['blocked', 'F-041: 3 failed evaluations: <b>41</b>']);
    expect(standing).toContainEqual(['struggling', 'F-050 2/3 failed, F-052 2/3 failed']);
    expect(standing).toContainEqual(['question', 'Q-2 (F-048): Which currency for F-048?']);
    expect(night).toContainEqual(['per feature', '$0.38 per passing feature']);
    expect(night).toContainEqual([
      'last window',
      '2026-01-01 00:00Z → 2026-01-01 10:05Z: newly passing F-001, F-002; newly failing F-007; blocked F-041; $15.00',
    ]);
    expect(upcoming).toEqual([['upcoming', 'F-049, F-050, F-051, F-052, F-054 (then 5 more)']]);
  });
});
