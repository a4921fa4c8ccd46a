import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readFeatureList } from '../../../handoff/feature-list.js';
import { harnessGitEnv } from '../../../handoff/git-env.js';
import { resumeRun } from '../../../orchestrator/controls.js';
import type { RunRecord } from '../../../orchestrator/run/index.js';
import { startRun } from '../../../orchestrator/start-run.js';
import demoPolicy, { roleOf } from '../../../testkit/policies/demo.js';
import { sequence } from '../../../testkit/policies.js';
import type { Policy, ScriptedConversation } from '../../../testkit/types.js';
import { agentGit } from '../handoff/helpers.js';
import { createRunHarness, type RunHarness, shortTodoSpec, waitFor } from './harness.js';

// Issue 24, "a workspace cannot wedge a run": real runs (in-process worker, real Redis, git, Chromium; scripted model).
let harness: RunHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const HOSTILE_ATTRIBUTES = 'feature_list.json working-tree-encoding=UTF-16\n* ident\n*.js text eol=crlf\n';

function briefOf(conversation: ScriptedConversation): string {
  const first = conversation.messages[0];
  return (first?.content ?? []).map((block) => ('text' in block ? block.text : '')).join('\n');
}

async function begin(
  policy: Policy,
  budgets: Record<string, number>,
): Promise<{ h: RunHarness; run: RunRecord }> {
  const h = await createRunHarness(policy);
  harness = h;
  await h.startWorker();
  const run = await startRun(h.orchestrator, {
    specPath: shortTodoSpec(h.root, 1),
    workspace: { kind: 'local', dir: path.join(h.root, 'todo') },
    config: h.config({ budgets }),
    dataDir: h.dataDir,
  });
  return { h, run };
}

function untilStopped(h: RunHarness, id: string): Promise<RunRecord> {
  return waitFor(`run ${id} to stop`, async () => {
    const run = await h.orchestrator.store.getRun(id);
    return ['paused', 'done', 'incomplete', 'failed', 'cancelled'].includes(run.status) ? run : undefined;
  });
}

const blob = (dir: string, spec: string) =>
  execFileSync('git', ['cat-file', 'blob', spec], { cwd: dir, env: harnessGitEnv() });

describe('a workspace cannot wedge a run', () => {
  it('a generator that commits a re-encoding .gitattributes: the run still finishes, feature list bytes intact', async () => {
    let hostileBrief: string | undefined;
    const hostile = sequence([
      { toolCalls: [{ name: 'write', arguments: { path: '.gitattributes', content: HOSTILE_ATTRIBUTES } }] },
      { toolCalls: [{ name: 'commit', arguments: { message: 'F-001: attributes' } }] },
      { text: 'Done.' },
    ]);
    const policy: Policy = (conversation) => {
      if (roleOf(conversation) !== 'generator') return demoPolicy(conversation);
      hostileBrief ??= briefOf(conversation);
      return briefOf(conversation) === hostileBrief ? hostile(conversation) : demoPolicy(conversation);
    };
    const { h, run } = await begin(policy, { maxSessions: 12 });
    const stopped = await untilStopped(h, run.id);
    const workspace = path.join(h.root, 'todo');
    expect(blob(workspace, 'HEAD:.gitattributes').toString()).toBe(HOSTILE_ATTRIBUTES);
    expect(
      fs
        .readFileSync(path.join(workspace, 'feature_list.json'))
        .equals(blob(workspace, 'HEAD:feature_list.json')),
    ).toBe(true);
    expect((await readFeatureList(workspace)).map((feature) => feature.id)).toEqual(['F-001']);
    expect({ status: stopped.status, detail: stopped.detail }).toEqual({ status: 'done', detail: null });
    expect(stopped.counters.repeatedHarnessErrors).toBe(0);
    const sessions = await h.orchestrator.store.listSessions(run.id, { limit: 100 });
    expect(sessions.sessions.filter((session) => !session.finishedAt)).toEqual([]);
  }, 300_000);

  it('the same harness error on the same step pauses `harness-error` with the error; resume resets it', async () => {
    const { h, run } = await begin(demoPolicy, { maxSessions: 1 });
    const afterInit = await untilStopped(h, run.id);
    expect(afterInit.pausedReason).toBe('budget');
    // The feature list at the run's head is broken behind the harness's back (no session can do this): every
    // session now fails in the harness, before any model request.
    const workspace = path.join(h.root, 'todo');
    fs.writeFileSync(path.join(workspace, 'feature_list.json'), '{ not json');
    agentGit(workspace, 'commit', '-qam', 'break the list');
    const requestsBefore = h.server.requests.length;
    await resumeRun(h.orchestrator, run.id, { maxSessions: 50 });
    const paused = await untilStopped(h, run.id);
    expect(paused.status).toBe('paused');
    expect(paused.pausedReason).toBe('harness-error');
    expect(paused.detail).toContain(
      'generate F-001 failed 3 times in a row with: FormatError: feature_list.json',
    );
    expect(paused.detail).toContain('nightshift resume');
    expect(paused.counters.repeatedHarnessErrors).toBe(3);
    expect(h.server.requests.length).toBe(requestsBefore);
    const events = (await h.orchestrator.store.readEvents(run.id, { count: 10_000 })).map((e) => e.event);
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'budget.exceeded', reason: 'harness-error' }),
    );
    // Fixed and resumed: the count starts over and sessions run again.
    agentGit(workspace, 'revert', '--no-edit', 'HEAD');
    const resumed = await resumeRun(h.orchestrator, run.id);
    expect(resumed.counters).toMatchObject({ repeatedHarnessErrors: 0, lastHarnessError: null });
    await waitFor('a model request after the resume', async () =>
      h.server.requests.length > requestsBefore ? true : undefined,
    );
  }, 300_000);
});
