import { describe, expect, it } from 'vitest';
import type { Question } from '../../../handoff/questions.js';
import { nextLaneActions } from '../../../orchestrator/lanes/lane-scheduler.js';
import { expiredQuestions } from '../../../orchestrator/questions.js';
import { nextAction } from '../../../orchestrator/scheduler.js';
import { featureState, makeState, T0 } from './fixtures.js';

/** An open question on `featureId`, asked `minutesAgo` before T0 + 1 h. */
function question(featureId: string, id = 'Q-1', askedAt = T0.toISOString()): Question {
  return {
    id,
    featureId,
    role: 'generator',
    seq: 3,
    question: 'todos or tasks?',
    options: [],
    askedAt,
    answer: null,
    answeredAt: null,
    answeredBy: null,
  };
}

const HOUR = 3_600_000;
const at = (ms: number) => new Date(T0.getTime() + ms);

describe('the serial scheduler and open questions', () => {
  const features = [
    featureState(1, { passes: true }),
    featureState(2, { depends_on: ['F-001'] }),
    featureState(3, { depends_on: ['F-001'] }),
    featureState(4, { depends_on: ['F-002'] }),
  ];

  it('skips the waiting feature (no follow-up either) and builds the next one its dependencies allow', () => {
    const state = makeState(features, {
      questions: [question('F-002')],
      lastSession: { seq: 3, role: 'generator', featureIds: ['F-002'], outcome: 'checkpointed' },
    });
    expect(nextAction(state, at(HOUR))).toEqual({ kind: 'generate', featureId: 'F-003' });
  });

  it('waits, naming the questions, when only waiting features (and those depending on them) are left', () => {
    const state = makeState([...features.slice(0, 2), featureState(3, { passes: true }), features[3]!], {
      questions: [question('F-002')],
    });
    const action = nextAction(state, at(HOUR));
    expect(action).toEqual({ kind: 'wait', reason: 'waiting for an answer: Q-1 (F-002): todos or tasks?' });
  });

  it('pauses `questions` once it waited `pauseAfterHours` since the latest question', () => {
    const state = makeState([features[0]!, features[1]!], {
      questions: [question('F-002')],
      config: { questions: { pauseAfterHours: 2 } },
    });
    expect(nextAction(state, at(2 * HOUR - 1)).kind).toBe('wait');
    expect(nextAction(state, at(2 * HOUR))).toEqual({
      kind: 'pause',
      reason: 'questions',
      detail: 'waited 2 h for answers: Q-1 (F-002): todos or tasks?',
    });
  });

  it('goes on with the feature once its question is answered, and never finishes while one is open', () => {
    const answered = {
      ...question('F-002'),
      answer: 'tasks',
      answeredAt: T0.toISOString(),
      answeredBy: 'cli' as const,
    };
    const state = makeState([features[0]!, features[1]!], { questions: [answered] });
    expect(nextAction(state, at(HOUR))).toEqual({ kind: 'generate', featureId: 'F-002' });
    const open = makeState([features[0]!, features[1]!], { questions: [question('F-002')] });
    expect(nextAction(open, at(HOUR)).kind).not.toBe('finish');
  });
});

describe('an evaluator that asked', () => {
  // F-002 was built (one generator session) and its evaluation asked Q-1 (session 5) instead of judging it.
  const built = featureState(2, {
    depends_on: ['F-001'],
    generatorSessions: 1,
    lastVerdict: 'fail',
    lastVerdictSeq: 2,
  });
  const features = [featureState(1, { passes: true }), built];
  const asked: Question = { ...question('F-002'), role: 'evaluator', seq: 5 };
  const answered: Question = { ...asked, answer: 'yes', answeredAt: T0.toISOString(), answeredBy: 'cli' };
  const lastSession = {
    seq: 5,
    role: 'evaluator' as const,
    featureIds: ['F-002'],
    outcome: 'checkpointed' as const,
  };

  it('leaves the feature waiting, then sends an evaluator (not a generator) once the answer is in', () => {
    expect(nextAction(makeState(features, { questions: [asked], lastSession }), at(HOUR)).kind).toBe('wait');
    expect(nextAction(makeState(features, { questions: [answered], lastSession }), at(HOUR))).toEqual({
      kind: 'evaluate',
      featureId: 'F-002',
    });
  });

  it('builds as usual once a verdict came after the question, or when a generator asked', () => {
    const judged = [features[0]!, { ...built, lastVerdictSeq: 6 }];
    expect(nextAction(makeState(judged, { questions: [answered] }), at(HOUR))).toEqual({
      kind: 'generate',
      featureId: 'F-002',
    });
    const byGenerator = { ...answered, role: 'generator' as const };
    expect(nextAction(makeState(features, { questions: [byGenerator] }), at(HOUR))).toEqual({
      kind: 'generate',
      featureId: 'F-002',
    });
  });

  it('is evaluated on its lane too once answered', () => {
    const lane = {
      lane: 1,
      featureId: 'F-002',
      branch: 'nightshift/r-test/lane-1-F-002',
      seq: 5,
      last: { seq: 5, role: 'evaluator' as const, outcome: 'checkpointed' as const },
      mergeSetbacks: 0,
    };
    const state = makeState(features, { config: { lanes: 1 }, lanes: [lane], questions: [answered] });
    expect(nextLaneActions(state, at(HOUR), new Set())).toEqual({
      kind: 'work',
      actions: [{ slot: 1, action: { kind: 'evaluate', featureId: 'F-002' } }],
    });
  });
});

describe('the lane scheduler and open questions', () => {
  const features = [
    featureState(1, { passes: true }),
    featureState(2, { depends_on: ['F-001'] }),
    featureState(3, { depends_on: ['F-001'] }),
  ];
  const lane = {
    lane: 1,
    featureId: 'F-002',
    branch: 'nightshift/r-test/lane-1-F-002',
    seq: 3,
    last: { seq: 3, role: 'generator' as const, outcome: 'checkpointed' as const },
    mergeSetbacks: 0,
  };

  it('keeps the waiting feature on its lane without a step; a free lane takes the next feature', () => {
    const state = makeState(features, {
      config: { lanes: 2 },
      lanes: [lane],
      questions: [question('F-002')],
    });
    expect(nextLaneActions(state, at(HOUR), new Set())).toEqual({
      kind: 'work',
      actions: [{ slot: 2, action: { kind: 'generate', featureId: 'F-003' }, assign: true }],
    });
  });

  it('waits when nothing else can run and nothing is in flight; pauses after pauseAfterHours', () => {
    const state = makeState([features[0]!, features[1]!], {
      config: { lanes: 2, questions: { pauseAfterHours: 1 } },
      lanes: [lane],
      questions: [question('F-002')],
    });
    expect(nextLaneActions(state, at(HOUR / 2), new Set())).toEqual({
      kind: 'run',
      action: { kind: 'wait', reason: 'waiting for an answer: Q-1 (F-002): todos or tasks?' },
    });
    expect(nextLaneActions(state, at(HOUR), new Set())).toMatchObject({
      kind: 'run',
      action: { kind: 'pause', reason: 'questions' },
    });
    // Something in flight: the run is busy, not waiting.
    expect(nextLaneActions(state, at(HOUR), new Set([0]))).toEqual({ kind: 'work', actions: [] });
  });
});

describe('question timeouts', () => {
  it('are the open questions past answerTimeoutMinutes; none when it is 0', () => {
    const run = makeState([], {
      config: { questions: { answerTimeoutMinutes: 30 } },
      questions: [question('F-002', 'Q-1'), question('F-003', 'Q-2', at(20 * 60_000).toISOString())],
    }).run;
    expect(expiredQuestions(run, at(30 * 60_000 - 1))).toEqual([]);
    expect(expiredQuestions(run, at(30 * 60_000)).map((q) => q.id)).toEqual(['Q-1']);
    const never = {
      ...run,
      config: { ...run.config, questions: { ...run.config.questions, answerTimeoutMinutes: 0 } },
    };
    expect(expiredQuestions(never, at(100 * HOUR))).toEqual([]);
  });
});
