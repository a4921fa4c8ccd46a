/**
 * Provider faults through whole sessions and a whole run (the single-request behaviour is covered in
 * test/integration/agent/loop-control.test.ts and test/integration/providers/faults.test.ts; 429 storms
 * and budget stops in test/integration/runs/stops.test.ts). A generator session survives odd replies and
 * still commits; a context overflow ends it with the work kept; a run facing only 500s stops itself.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFeatureList } from '../../../handoff/feature-list.js';
import { head, openRepo, runGit } from '../../../handoff/git.js';
import { startRun } from '../../../orchestrator/start-run.js';
import demoPolicy from '../../../testkit/policies/demo.js';
import { lastToolResults } from '../../../testkit/policies.js';
import { startModelServer } from '../../../testkit/server.js';
import type { ModelServer, Policy } from '../../../testkit/types.js';
import { makeWorkspace, removeWorkspace, runSession } from '../roles/role-helpers.js';
import { createRunHarness, waitFor } from '../runs/harness.js';

const FEATURES = [
  { id: 'F-001', category: 'functional', description: 'Say hello', steps: ['Open /'], passes: false },
];

/** A generator that looks at the workspace, not at turn numbers (faults add turns): write, then commit, then stop. */
function generatorPolicy(workspace: () => string): Policy {
  return (conversation) => {
    const committed = lastToolResults(conversation).some((result) =>
      /^committed [0-9a-f]+/.test(result.content),
    );
    if (committed) return { text: 'Done.' };
    if (!fs.existsSync(path.join(workspace(), 'hello.js'))) {
      return {
        toolCalls: [{ name: 'write', arguments: { path: 'hello.js', content: 'console.log("hello");\n' } }],
      };
    }
    return {
      toolCalls: [{ name: 'commit', arguments: { message: 'F-001: hello' } }],
    };
  };
}

describe('faults inside a generator session', () => {
  let server: ModelServer;
  let workspace = '';
  let dataDir = '';
  beforeAll(async () => {
    server = await startModelServer({ policy: generatorPolicy(() => workspace) });
  });
  afterAll(() => server.close());

  async function freshWorkspace() {
    ({ workspace, dataDir } = await makeWorkspace({
      'feature_list.json': JSON.stringify(FEATURES),
      'progress.md': '# Progress\n',
    }));
  }

  it('malformed tool JSON, an unknown tool, an empty reply, a reset and a slow reply: the session still commits', async () => {
    await freshWorkspace();
    try {
      server.injectFaults([
        { kind: 'malformed_tool_json' },
        { kind: 'unknown_tool' },
        { kind: 'empty' },
        { kind: 'reset' },
        { kind: 'slow', delayMs: 300 },
      ]);
      const before = server.requests.length;
      const result = await runSession(server, {
        role: 'generator',
        workspace,
        dataDir,
        featureIds: ['F-001'],
      });
      expect(result.outcome, result.reason).toBe('completed');
      expect(result.commits.length).toBeGreaterThanOrEqual(1);
      expect(await runGit(openRepo(workspace), ['show', 'HEAD:hello.js'])).toContain('hello');
      const faults = server.requests
        .slice(before)
        .map((request) => request.fault)
        .filter(Boolean);
      expect(faults).toEqual(['malformed_tool_json', 'unknown_tool', 'empty', 'reset', 'slow']);
      // Bounded: the faults cost a few extra requests, not a loop.
      expect(server.requests.length - before).toBeLessThanOrEqual(12);
    } finally {
      removeWorkspace(workspace);
    }
  });

  it('a context overflow mid-session ends it with the work kept in a WIP commit', async () => {
    await freshWorkspace();
    try {
      const start = await head(openRepo(workspace));
      // First request writes hello.js; the second overflows.
      server.setPolicy((conversation) =>
        conversation.messages.length === 1
          ? { toolCalls: [{ name: 'write', arguments: { path: 'hello.js', content: 'x\n' } }] }
          : { fault: { kind: 'context_overflow' } },
      );
      const result = await runSession(server, {
        role: 'generator',
        workspace,
        dataDir,
        featureIds: ['F-001'],
      });
      expect(['checkpointed', 'failed']).toContain(result.outcome);
      expect(result.reason ?? '').toMatch(/context/i);
      const repo = openRepo(workspace);
      expect(await head(repo)).not.toBe(start);
      expect(await runGit(repo, ['show', 'HEAD:hello.js'])).toBe('x\n');
      expect(await runGit(repo, ['status', '--porcelain'])).toBe('');
      expect((await readFeatureList(workspace))[0]?.passes).toBe(false);
    } finally {
      server.setPolicy(generatorPolicy(() => workspace));
      removeWorkspace(workspace);
    }
  });
});

describe('a run whose provider answers only 500s', () => {
  it('stops itself (failed, with the reason) after maxConsecutiveProviderErrors sessions, without burning requests', async () => {
    const harness = await createRunHarness(demoPolicy);
    try {
      harness.server.setPolicy(() => ({
        fault: { kind: 'server_error', status: 500, message: 'upstream down' },
      }));
      await harness.startWorker();
      const run = await startRun(harness.orchestrator, {
        specPath: 'examples/todo/app_spec.md',
        workspace: { kind: 'local', dir: path.join(harness.root, 'ws') },
        config: harness.config({ budgets: { maxConsecutiveProviderErrors: 2 } }),
        dataDir: harness.dataDir,
      });
      const ended = await waitFor('the run to stop', async () => {
        const current = await harness.orchestrator.store.getRun(run.id);
        return ['failed', 'paused', 'done', 'cancelled'].includes(current.status) ? current : undefined;
      });
      expect(ended.status).toBe('failed');
      expect(ended.detail ?? '').toMatch(/provider error/);
      expect(ended.counters.sessions).toBe(2);
      expect(ended.counters.costUsd).toBe(0);
      // Each session: one request plus the loop's 2 retries; nothing after the run stopped.
      expect(harness.server.requests.length).toBe(6);
      const events = await harness.orchestrator.redis.xrange(
        `${harness.prefix}run:{${run.id}}:events`,
        '-',
        '+',
      );
      expect(JSON.stringify(events)).toMatch(/upstream down|500/);
    } finally {
      await harness.close();
    }
  }, 180_000);
});
