import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createProvider } from '../../../agent/providers/index.js';
import { addFeature } from '../../../orchestrator/feature-add.js';
import { startRun } from '../../../orchestrator/start-run.js';
import { steerFeature } from '../../../orchestrator/steering.js';
import demoPolicy from '../../../testkit/policies/demo.js';
import { createRunHarness, type RunHarness, shortTodoSpec, waitFor } from './harness.js';

// A person steers a whole run (real worker, Redis, git, Chromium, scripted model; two todo features): a note and
// an unblock reach F-002's generator (the note its evaluator too), a reopen sends a passing F-001 back to a generator
// with the reason and its recorded check, and the run ends done; then a feature added in a person's words (the
// scripted feature writer) makes the done run build again, and it ends done with the new feature passing.
let harness: RunHarness | undefined;
afterAll(async () => {
  await harness?.close();
});

const NOTE = 'NOTE-7f3: keep the input label exactly as the spec says';
const REOPEN = 'REOPEN-5c1: the list flickers after adding';
const UNBLOCK = 'UNBLOCK-9d2: the blocker is gone, go on';

describe('steering a running run', () => {
  it('note, reopen and unblock reach the next sessions and the run ends done', async () => {
    const h = await createRunHarness(demoPolicy);
    harness = h;
    await h.startWorker();
    const { store } = h.orchestrator;
    const run = await startRun(h.orchestrator, {
      specPath: shortTodoSpec(h.root, 2),
      workspace: { kind: 'local', dir: path.join(h.root, 'todo') },
      config: h.config(),
      dataDir: h.dataDir,
    });
    // On a timeout, the run's story says where it stopped.
    const story = async () =>
      (await store.readEvents(run.id, { count: 10_000 }))
        .map(({ event }) => JSON.stringify(event).slice(0, 200))
        .filter((line) => /run\.status|session\.finished|verdict|feature\./.test(line))
        .join('\n');
    const until = <T>(what: string, check: () => Promise<T | undefined>) =>
      waitFor(what, check, 400_000).catch(async (error: Error) => {
        throw new Error(`${error.message}\n${await story()}`);
      });
    const ended = async () => {
      const current = await store.getRun(run.id);
      return ['incomplete', 'done', 'failed', 'paused', 'cancelled'].includes(current.status)
        ? current
        : undefined;
    };
    const feature = async (id: string) => (await store.listFeatures(run.id)).find((f) => f.id === id);
    await until('the feature list', async () => ((await feature('F-002')) ? true : undefined));
    // Held back (as a blocked feature is) so the run ends incomplete and an unblock lets it go on.
    await store.updateFeature(run.id, 'F-002', { blocked: true, blockedReason: 'held back by the test' });
    const steer = (featureId: string, request: Parameters<typeof steerFeature>[1]['request']) =>
      steerFeature(h.orchestrator, { runId: run.id, featureId, request, by: 'cli:tester' });
    await steer('F-002', { action: 'note', text: NOTE });

    await until('F-001 to pass', async () => ((await feature('F-001'))?.passes ? true : undefined));
    const reopened = await steer('F-001', { action: 'reopen', reason: REOPEN });
    expect(reopened.feature).toMatchObject({ passes: false, attempts: 0 });

    const incomplete = await until('the run to end incomplete', ended);
    expect(incomplete.status, incomplete.detail ?? '').toBe('incomplete');
    expect((await feature('F-001'))?.passes).toBe(true);
    const unblocked = await steer('F-002', { action: 'unblock', note: UNBLOCK });
    expect(unblocked.run.status).toBe('building');

    const done = await until('the run to end', ended);
    expect(done.status, done.detail ?? '').toBe('done');
    expect(done.features).toMatchObject({ total: 2, passing: 2 });

    const scriptedEnv = {
      ANTHROPIC_API_KEY: 'sk-ant-scripted-000000',
      ANTHROPIC_BASE_URL: h.server.anthropicBaseURL,
    };
    const added = await addFeature(h.orchestrator, {
      runId: run.id,
      text: 'Let people tick a todo off with its checkbox',
      by: 'cli:tester',
      dataDir: h.dataDir,
      providerFor: (modelId) => createProvider(modelId, { env: scriptedEnv, maxRetries: 0 }),
    });
    expect(added.feature).toMatchObject({ id: 'F-003', passes: false, depends_on: ['F-001', 'F-002'] });
    expect(added.run.status).toBe('building');
    const rebuilt = await until('the run to end again', ended);
    expect(rebuilt.status, rebuilt.detail ?? '').toBe('done');
    expect(rebuilt.features).toMatchObject({ total: 3, passing: 3 });
    const list = JSON.parse(fs.readFileSync(path.join(h.root, 'todo', 'feature_list.json'), 'utf8'));
    expect(list.map((entry: { id: string; passes: boolean }) => [entry.id, entry.passes])).toEqual([
      ['F-001', true],
      ['F-002', true],
      ['F-003', true],
    ]);

    // What the generators were told: their first request holds the brief.
    const briefs = h.server.requests
      .map((request) => request.body)
      .filter((body) => body.includes('# Feature F-'));
    const reopenBriefs = briefs.filter(
      (body) => body.includes('# Feature F-001') && body.includes('REOPEN-5c1'),
    );
    expect(reopenBriefs.length).toBeGreaterThan(0);
    expect(reopenBriefs[0]).toContain('its recorded check (v1)');
    expect(reopenBriefs[0]).toContain('by cli:tester');
    const f2 = briefs.filter((body) => body.includes('# Feature F-002'));
    expect(f2.length).toBeGreaterThan(0);
    for (const body of f2) {
      expect(body, body.slice(0, 1500)).toContain('NOTE-7f3');
      expect(body).toContain('UNBLOCK-9d2');
    }
    // Its evaluators read the note too, under its steps.
    const f2Evaluations = h.server.requests
      .map((request) => request.body)
      .filter((body) => body.includes('# Evaluate the app at') && body.includes('## F-002: '));
    expect(f2Evaluations.length).toBeGreaterThan(0);
    for (const body of f2Evaluations) {
      expect(body).toContain('### Notes from a person about this feature');
      expect(body).toContain('NOTE-7f3');
    }
    // The added feature was built from the entry the writer made: a generator brief names it.
    expect(briefs.some((body) => body.includes('# Feature F-003: Complete a todo'))).toBe(true);
    const events = (await store.readEvents(run.id, { count: 10_000 })).map(({ event }) => event);
    expect(events.filter((event) => event.type === 'feature.added')).toEqual([
      expect.objectContaining({ featureId: 'F-003', by: 'cli:tester', dependsOn: ['F-001', 'F-002'] }),
    ]);
    const steered = events.filter((event) => event.type === 'feature.steered');
    expect(steered.map((event) => [event.featureId, event.action, event.by])).toEqual([
      ['F-002', 'note', 'cli:tester'],
      ['F-001', 'reopen', 'cli:tester'],
      ['F-002', 'unblock', 'cli:tester'],
    ]);
  }, 900_000);
});
