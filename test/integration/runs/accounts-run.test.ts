import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { playwrightConfig } from '../../../checks/codegen.js';
import { readCheckFile, readReplays, writeSpecSupport } from '../../../checks/store.js';
import { readFeatureList } from '../../../handoff/feature-list.js';
import { startRun } from '../../../orchestrator/start-run.js';
import { SCRIPTED_PASSWORD } from '../../../testkit/policies/accounts-features.js';
import demoPolicy from '../../../testkit/policies/demo.js';
import { ACCOUNTS_EXAMPLE } from '../../../testkit/policies/examples.js';
import { linkPlaywright, runPlaywrightTest } from '../checks/playwright-suite.js';
import { createRunHarness, type RunHarness, waitFor } from './harness.js';

// A whole run of the example app with accounts (examples/accounts: sign up, log in and out, private notes):
// real worker, Redis, git, Chromium and the Anthropic SDK against the scripted model. The evaluator signs up a
// user of its own in every check; every pass leaves a check that signs up (and logs in) by itself, green on the
// final sweep's shared app, and the exported suite is green under `npx playwright test` with parallel workers.
let harness: RunHarness | undefined;
afterAll(async () => {
  await harness?.close();
});

describe('an app with accounts, end to end', () => {
  it('builds, evaluates and records checks that sign up and log in by themselves', async () => {
    const h = await createRunHarness(demoPolicy);
    harness = h;
    await h.startWorker();
    const workspace = path.join(h.root, 'notes');
    const specPath = path.join(ACCOUNTS_EXAMPLE.sourcesDir, '..', 'app_spec.md');
    const started = await startRun(h.orchestrator, {
      specPath,
      workspace: { kind: 'local', dir: workspace },
      config: h.config(),
      dataDir: h.dataDir,
    });
    const run = await waitFor(
      `run ${started.id} to end`,
      async () => {
        const current = await h.orchestrator.store.getRun(started.id);
        return ['paused', 'done', 'incomplete', 'failed', 'cancelled'].includes(current.status)
          ? current
          : undefined;
      },
      420_000,
    );
    const events = await h.orchestrator.store.readEvents(run.id, { count: 10_000 });
    const story = events
      .map(({ event }) => JSON.stringify(event).slice(0, 600))
      .filter((line) => /session\.finished|verdict|feature\./.test(line))
      .join('\n');
    expect(run.status, story).toBe('done');
    const features = await readFeatureList(workspace);
    expect(features.map((feature) => [feature.id, feature.passes])).toEqual([
      ['F-001', true],
      ['F-002', true],
      ['F-003', true],
    ]);

    const replays = await readReplays(h.dataDir, run.id);
    for (const feature of features) {
      const check = (await readCheckFile(workspace, feature.id))?.current;
      expect(check, feature.id).toBeDefined();
      // The check signs up itself: the password is typed as recorded into the password field.
      expect(check?.actions).toContainEqual({
        kind: 'fill',
        target: "getByRole('textbox', { name: 'Password', exact: true })",
        text: SCRIPTED_PASSWORD,
      });
      expect(check?.actions).toContainEqual(
        expect.objectContaining({ kind: 'click', target: expect.stringContaining('Create account') }),
      );
      // Green where it was last replayed: the last pass at its gate, the others by the final sweep on its shared
      // app (each with a user of its own: no app of its own was needed).
      const by = feature.id === 'F-003' ? 'gate' : 'sweep';
      expect(replays[feature.id], feature.id).toMatchObject({ ok: true, by, version: check?.version });
      expect(replays[feature.id]?.needsCleanApp, feature.id).toBeUndefined();
    }
    const notes = (await readCheckFile(workspace, 'F-003'))?.current;
    expect(notes?.expectations).toContainEqual(
      expect.objectContaining({ kind: 'text', text: expect.stringMatching(/^Buy stamps /) }),
    );

    // The exported suite, from a clean checkout, with parallel workers: every check signs up a user of its own.
    const clone = path.join(h.root, 'clone');
    execFileSync('git', ['clone', '--quiet', workspace, clone]);
    await writeSpecSupport(clone);
    fs.writeFileSync(path.join(clone, 'playwright.config.ts'), playwrightConfig());
    await linkPlaywright(clone);
    // Twice on the same app data: the second run's sign-ups would find their usernames taken without a suffix.
    for (const round of [1, 2]) {
      const suite = await runPlaywrightTest(clone, ['--workers', '4']);
      expect(suite.code, `round ${round}: ${suite.output.slice(-3_000)}`).toBe(0);
      expect(suite.passed, suite.output.slice(-3_000)).toBe(3);
    }
    const accounts = JSON.parse(fs.readFileSync(path.join(clone, 'data/accounts.json'), 'utf8'));
    expect(Object.keys(accounts)).toHaveLength(2 * 4);
  }, 600_000);
});
