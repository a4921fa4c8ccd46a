import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFeatureList } from '../../handoff/feature-list.js';
import {
  cliEnv,
  createE2eContext,
  type E2eContext,
  runCliOnce,
  startCli,
  startScriptedServer,
  writeConfig,
} from './helpers.js';

// `nightshift run <spec> --workspace DIR` in the foreground, as a user types it: the CLI registers the run,
// works it with its own in-process worker, shows progress, and exits when the run ends.
let context: E2eContext;
beforeAll(() => {
  context = createE2eContext('cli');
});
afterAll(() => context.close());

describe('nightshift run (foreground)', () => {
  it('builds the todo example to done and exits 0; status --json then has the DESIGN.md fields', async () => {
    const server = await startScriptedServer(context);
    const env = cliEnv(context, {
      home: path.join(context.root, 'home'),
      configFile: writeConfig(context),
      anthropicBaseURL: server.anthropicBaseURL,
    });
    const workspace = path.join(context.root, 'todo');
    const started = Date.now();
    const run = startCli(context, ['run', 'examples/todo/app_spec.md', '--workspace', workspace], env, 'run');
    const code = await run.exited;
    const output = fs.readFileSync(run.logFile, 'utf8');
    expect(code, output.slice(-3_000)).toBe(0);
    console.log(`[cli-run] foreground run took ${((Date.now() - started) / 1000).toFixed(0)} s`);
    const runId = /run (r-[A-Za-z0-9_-]+): workspace/.exec(output)?.[1];
    expect(runId, output.slice(0, 2_000)).toBeDefined();

    const status = await runCliOnce(['status', runId as string, '--json'], env);
    expect(status.code, status.stderr).toBe(0);
    const json = JSON.parse(status.stdout) as Record<string, unknown>;
    expect(Object.keys(json).sort()).toEqual(
      [
        'id',
        'status',
        'pausedReason',
        'workspace',
        'features',
        'sessions',
        'costUsd',
        'startedAt',
        'updatedAt',
      ].sort(),
    );
    expect(json).toMatchObject({
      id: runId,
      status: 'done',
      pausedReason: null,
      workspace,
      features: { total: 8, passing: 8, failing: 0, blocked: 0 },
    });
    expect(json.sessions).toBeGreaterThanOrEqual(17);
    expect(json.costUsd).toBeGreaterThan(0);
    for (const field of ['startedAt', 'updatedAt'] as const) {
      expect(Number.isNaN(Date.parse(String(json[field])))).toBe(false);
    }
    expect((await readFeatureList(workspace)).every((feature) => feature.passes)).toBe(true);
    // The foreground command showed its progress and summary on stderr.
    expect(output).toMatch(/run done — 8\/8 features passing/);
  }, 600_000);
});
