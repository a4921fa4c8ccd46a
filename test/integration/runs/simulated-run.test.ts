import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readCheckFile } from '../../../checks/store.js';
import { replayOnOneApp } from '../../../evaluation/check-sweep.js';
import { readFeatureList } from '../../../handoff/feature-list.js';
import { openRepo } from '../../../handoff/git.js';
import { sandboxForRole } from '../../../orchestrator/config.js';
import { startRun } from '../../../orchestrator/start-run.js';
import { simulatedModel } from '../../../testkit/simulated/index.js';
import { createBrowserPool } from '../../../workers/browser-pool.js';
import { createRunHarness, type RunHarness, SCRIPTED_PRICE, shortTodoSpec, waitFor } from './harness.js';

// A short real run (4 todo features) against the simulated model at raised mistake rates: real worker, Redis, git,
// Chromium, and both SDKs (the generator speaks OpenAI Chat Completions, the others Anthropic Messages). Seed 638's
// schedule (testkit/simulated/schedule.ts) puts a 529 burst on the initializer, no commit on F-001, a broken start on
// F-002 (and a cut reply on its fix), a half-done F-003 and a regression of F-003 while building F-004.
let harness: RunHarness | undefined;
afterAll(async () => {
  await harness?.close();
});

const SEED = 638;
const ANTHROPIC = 'anthropic:simulated';
const OPENAI = 'openai:simulated';

describe('a whole run against the simulated model', () => {
  it('ends done with every mistake caught and nothing passing broken', async () => {
    const model = simulatedModel({
      seed: SEED,
      latency: { compression: 200 },
      mistakes: {
        appDoesNotStart: 0.2,
        halfDone: 0.2,
        noCommit: 0.15,
        cutAtLimit: 0.15,
        regression: 0.15,
        burst: 0.1,
      },
      // Two 529s: the in-session retries wait them out (a 429 would pause the run for half a minute).
      burst: { length: 2, rateLimitShare: 0 },
      falseFailRate: 0.1,
    });
    const h = await createRunHarness(model.policy);
    harness = h;
    await h.startWorker();
    const workspace = path.join(h.root, 'todo');
    const started = await startRun(h.orchestrator, {
      specPath: shortTodoSpec(h.root, 4),
      workspace: { kind: 'local', dir: workspace },
      config: h.config({
        models: { initializer: ANTHROPIC, generator: OPENAI, evaluator: ANTHROPIC },
        prices: { [ANTHROPIC]: SCRIPTED_PRICE, [OPENAI]: SCRIPTED_PRICE },
      }),
      dataDir: h.dataDir,
    });
    const run = await waitFor(
      `run ${started.id} to end`,
      async () => {
        const current = await h.orchestrator.store.getRun(started.id);
        const ended = ['done', 'incomplete', 'failed', 'cancelled'].includes(current.status);
        return ended || (current.status === 'paused' && current.pausedReason !== 'rate-limited')
          ? current
          : undefined;
      },
      300_000,
    );
    const events = (await h.orchestrator.store.readEvents(run.id, { count: 10_000 })).map(
      ({ event }) => event,
    );
    const story = events
      .map((event) => JSON.stringify(event).slice(0, 300))
      .filter((line) => /session\.finished|verdict|feature\./.test(line))
      .join('\n');
    const mistakes = model.mistakes();
    const summary = `${story}\nmistakes: ${JSON.stringify(mistakes)}`;
    expect(run.status, summary).toBe('done');

    // Nothing passes broken: every feature passes and its recorded check replays green on a fresh app.
    const features = await readFeatureList(workspace);
    expect(features.map((feature) => [feature.id, feature.passes])).toEqual(
      ['F-001', 'F-002', 'F-003', 'F-004'].map((id) => [id, true]),
    );
    const checks = await Promise.all(features.map((feature) => readCheckFile(workspace, feature.id)));
    const pool = createBrowserPool();
    try {
      const input = {
        runId: run.id,
        session: 0,
        dataDir: h.dataDir,
        sandbox: sandboxForRole(run.config.sandbox, 'evaluator'),
        appReadyTimeoutMs: run.config.app.readyTimeoutSeconds * 1000,
      };
      const recorded = checks.map((check) => check?.current).filter((check) => check !== undefined);
      expect(recorded).toHaveLength(4);
      const results = await replayOnOneApp(input, openRepo(workspace), pool, recorded, 'cli');
      for (const feature of features) expect(results.get(feature.id)?.ok, feature.id).toBe(true);
    } finally {
      await pool.close();
    }

    // The mistakes the schedule planned really happened, and the harness saw each of them.
    const made = (kind: string) => mistakes.filter((mistake) => mistake.kind === kind);
    const verdicts = (featureId: string, verdict: string) =>
      events.filter(
        (event) =>
          event.type === 'verdict.applied' && event.featureId === featureId && event.verdict === verdict,
      );
    expect(made('burst').length, summary).toBeGreaterThanOrEqual(1);
    const faults = h.server.requests.filter((request) => request.fault === 'overloaded');
    expect(faults.length).toBeGreaterThanOrEqual(2 * made('burst').length);
    expect(made('noCommit').map((mistake) => mistake.featureId)).toContain('F-001');
    const log = execFileSync('git', ['-C', workspace, 'log', '--format=%s'], { encoding: 'utf8' });
    expect(log).toMatch(/uncommitted leftovers/);
    expect(made('appDoesNotStart').map((mistake) => mistake.featureId)).toContain('F-002');
    expect(verdicts('F-002', 'blocked').length).toBeGreaterThanOrEqual(1);
    expect(made('cutAtLimit').length).toBeGreaterThanOrEqual(1);
    expect(h.server.requests.filter((request) => request.fault === 'max_tokens').length).toBe(
      made('cutAtLimit').length,
    );
    expect(made('halfDone').map((mistake) => mistake.featureId)).toContain('F-003');
    expect(made('regression').map((mistake) => mistake.featureId)).toEqual(['F-004']);
    const regressed = events
      .filter((event) => event.type === 'feature.regressed')
      .map((event) => event.featureId);
    expect(regressed).toContain('F-003');
    for (const mistake of made('halfDone').concat(made('falseFail')))
      expect(verdicts(mistake.featureId as string, 'fail').length, summary).toBeGreaterThanOrEqual(1);

    // Both wire formats were used, and both reported a cached prefix.
    const sessions = (await h.orchestrator.store.listSessions(run.id, { limit: 500 })).sessions;
    for (const modelId of [ANTHROPIC, OPENAI]) {
      const cached = sessions
        .filter((session) => session.model === modelId)
        .reduce((sum, session) => sum + (session.usage?.cacheReadTokens ?? 0), 0);
      expect(cached, modelId).toBeGreaterThan(0);
    }
  }, 420_000);
});
