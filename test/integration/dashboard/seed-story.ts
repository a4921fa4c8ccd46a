// A night at the overnight benchmark's size for the story tests: 60 features, 300 finished sessions and one running,
// blocked features (one with a hostile name and reason), features failing again and again, and two open questions.
import type { Redis } from 'ioredis';
import { askQuestion } from '../../../orchestrator/questions.js';
import type { RunRecord, RunStore } from '../../../orchestrator/run/index.js';
import { type SteppingClock, seedRun } from './seed.js';

/** A feature name and a blocked reason a page must show as text, never as markup. */
export const HOSTILE_NAME = '<img src=x onerror="window.__pwned = 1"><b>Export</b> & "share"';
export const HOSTILE_REASON =
  'evaluator said: <script>window.__pwned = 2</script> the export button is missing';

/** The seeded night and what was put in it besides the history. */
export interface StoryNight {
  run: RunRecord;
  /** Features with an open question. */
  waiting: string[];
  /** The feature of the running session. */
  running: string;
  /** The feature blocked with the hostile name and reason. */
  hostile: string;
  /** A not-started feature given two failed evaluations (one short of a block). */
  struggling: string;
}

/**
 * 300 finished sessions (the initializer, then generator/evaluator pairs walking the list): every 10th feature always
 * fails (blocked after 3), the others fail twice before they pass. That is 360 sessions for all 60, so the night ends
 * in F-051, and the features after it are not started; of those, two wait for answers, one is in a session now and
 * one has failed twice.
 */
export async function seedStoryNight(
  store: RunStore,
  redis: Redis,
  clock: SteppingClock,
  workspace: string,
): Promise<StoryNight> {
  const hostileIndex = 19;
  const seeded = await seedRun(store, {
    features: 60,
    sessions: 299,
    workspace,
    clock,
    config: { budgets: { maxCostUsd: 150, maxSessions: 600 } },
    verdictFor: (index, attempt) => (index % 10 === 9 || attempt < 2 ? 'fail' : 'pass'),
    editFeatures: (features) =>
      features.map((feature, index) =>
        index === hostileIndex ? { ...feature, description: HOSTILE_NAME } : feature,
      ),
  });
  const hostile = `F-0${hostileIndex + 1}`;
  await store.updateFeature(seeded.id, hostile, { blockedReason: HOSTILE_REASON });
  const [running, first, second, struggling] = ['F-060', 'F-059', 'F-058', 'F-057'];
  await store.updateFeature(seeded.id, struggling, { attempts: 2 });
  const deps = { redis, store, now: clock.now };
  for (const featureId of [first, second]) {
    clock.advance(60_000);
    await askQuestion(deps, seeded.id, {
      featureId,
      role: 'generator',
      seq: 300,
      question: `Which currency does ${featureId} show? <i>EUR</i>?`,
      options: [],
    });
  }
  const seq = await store.nextSeq(seeded.id);
  await store.recordSessionStarted(seeded.id, {
    seq,
    jobId: `${seeded.id}-${seq}`,
    role: 'generator',
    kind: 'generate',
    featureIds: [running],
    workerId: 'worker-night',
  });
  return {
    run: await store.getRun(seeded.id),
    waiting: [first, second],
    running,
    hostile,
    struggling,
  };
}
