import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFeatureList } from '../../../handoff/feature-list.js';
import { type Feature, WORKSPACE_FILES } from '../../../handoff/formats.js';
import { isClean, openRepo, runGit } from '../../../handoff/git.js';
import { applySessionResult } from '../../../orchestrator/run/apply-result.js';
import { emptySession, type RunState, toFeatureState } from '../../../orchestrator/run/run-state.js';
import { nextAction } from '../../../orchestrator/scheduler.js';
import type { SessionResult } from '../../../roles/session-result.js';
import { startModelServer } from '../../../testkit/server.js';
import type { ModelServer, Policy, ScriptedConversation } from '../../../testkit/types.js';
import { type BrowserPool, createBrowserPool } from '../../../workers/browser-pool.js';
import { makeRun } from '../../unit/orchestrator/fixtures.js';
import {
  firstMessage,
  lastUserText,
  makeWorkspace,
  refOf,
  removeWorkspace,
  runSession,
  TWO_FEATURES,
  turnOf,
} from './role-helpers.js';

const FIXTURE = fs.readFileSync(path.resolve('test/fixtures/todo-app/server.js'), 'utf8');
const FEATURE: Feature = {
  id: 'F-001',
  category: 'functional',
  description: 'Remaining count: the status line says how many todos are left',
  steps: ['Add "Alpha"', 'The page says "1 item left"'],
  passes: false,
};
const SPEC = `# Todo

A todo list on one page.

## Adding

A text box "What needs to be done?" adds a todo on Enter.

## Remaining count

A status line under the list says "N items left", counting the todos not completed yet.
`;
const BROKEN_INIT =
  '#!/usr/bin/env bash\n# would listen on $PORT\necho "starting the todo app"\necho "Error: Cannot find module \'express\'" >&2\nexit 1\n';
const GOOD_INIT = '#!/usr/bin/env bash\nexec node server.js # on $PORT\n';

let server: ModelServer;
let browser: BrowserPool;
/** The last conversation a policy saw (the server keeps raw requests only). */
let lastSeen: ScriptedConversation | undefined;
const recording =
  (policy: Policy): Policy =>
  (conversation) => {
    lastSeen = conversation;
    return policy(conversation);
  };
beforeAll(async () => {
  server = await startModelServer({ policy: () => ({ text: 'idle' }) });
  browser = createBrowserPool();
});
afterAll(async () => {
  await browser.close();
  await server.close();
});

/** The run as the planner sees it after `result` (session `seq`) on `state`. */
function applied(state: RunState, seq: number, result: SessionResult): RunState {
  const out = applySessionResult({
    ...state,
    session: { ...emptySession(seq, `r-test-${seq}`, result.role, new Date().toISOString()) },
    result,
    now: new Date().toISOString(),
  });
  return { run: out.run, features: out.features };
}

/** The one-command start-and-check the brief gives the generator, taken from its first message. */
function startCommandOf(brief: string): string | undefined {
  return /```\n(PORT=\d+ \.\/init\.sh[^\n]*)\n```/.exec(brief)?.[1];
}

/**
 * A generator that acts only on app-start feedback: runs the brief's start command (which shows the failure),
 * replaces init.sh, runs the command again (the page answers), commits.
 */
const initFixingGenerator: Policy = (conversation) => {
  const brief = firstMessage(conversation);
  const command = startCommandOf(brief);
  const told = /The app did not start/.test(brief) && command !== undefined;
  switch (told ? turnOf(conversation) : -1) {
    case 0:
      return { toolCalls: [{ name: 'bash', arguments: { command, timeout_ms: 30_000 } }] };
    case 1:
      return {
        toolCalls: [
          { name: 'write', arguments: { path: 'init.sh', content: GOOD_INIT } },
          { name: 'bash', arguments: { command, timeout_ms: 30_000 } },
        ],
      };
    case 2:
      return {
        toolCalls: [
          {
            name: 'bash',
            arguments: { command: 'printf "\\n## init.sh starts server.js\\n" >> progress.md' },
          },
          { name: 'commit', arguments: { message: 'F-001: init.sh starts the server' } },
        ],
      };
    default:
      return { text: told ? 'Fixed init.sh.' : 'Nothing to fix.' };
  }
};

/** An honest evaluator: adds a todo and quotes the count it saw. */
const countingEvaluator: Policy = (conversation) => {
  const seen = lastUserText(conversation);
  const url = /http:\/\/127\.0\.0\.1:\d+\//.exec(firstMessage(conversation))?.[0];
  switch (turnOf(conversation)) {
    case 0:
      return { toolCalls: [{ name: 'browser_navigate', arguments: { url } }] };
    case 1: {
      const box = refOf(seen, /textbox "What needs to be done\?"/);
      return { toolCalls: [{ name: 'browser_type', arguments: { ref: box, text: 'Alpha', submit: true } }] };
    }
    case 2: {
      const count = /\d+ items? left/.exec(seen)?.[0] ?? 'no count';
      const ok = count === '1 item left';
      const steps = [
        { step: 'Add "Alpha"', ok: true, evidence: 'the list shows "Alpha"' },
        { step: 'The page says "1 item left"', ok, evidence: `the page says "${count}"` },
      ];
      const verdict = { feature_id: 'F-001', verdict: ok ? 'pass' : 'fail', steps, issues: [] };
      return { toolCalls: [{ name: 'submit_verdict', arguments: verdict }] };
    }
    default:
      return { text: 'Verdict submitted.' };
  }
};

describe('an app that does not start', { timeout: 120_000 }, () => {
  it('is fed back to a generator with the exit code and log tail; its fix then passes the evaluation', async () => {
    const { workspace, dataDir } = await makeWorkspace({
      'app_spec.md': SPEC,
      'feature_list.json': `${JSON.stringify([FEATURE], null, 2)}\n`,
      'init.sh': BROKEN_INIT,
      'progress.md': '# Progress\n',
      'server.js': FIXTURE,
    });
    let state: RunState = {
      run: makeRun({ config: { budgets: { maxAttemptsPerFeature: 3 } } }),
      features: [toFeatureState(FEATURE, 0)],
    };
    expect(nextAction(state, new Date())).toEqual({ kind: 'generate', featureId: 'F-001' });

    // 1. The evaluation is blocked before the model is asked: the feedback file holds the exit code and log.
    const asked = server.requests.length;
    const blocked = await runSession(server, {
      role: 'evaluator',
      workspace,
      dataDir,
      featureIds: ['F-001'],
      session: 2,
      browser,
    });
    expect(server.requests.length).toBe(asked);
    expect(blocked.outcome).toBe('blocked');
    expect(blocked.appStart).toMatchObject({ exitCode: 1, logFile: 'runs/r-test/sessions/2-app.log' });
    expect(blocked.verdicts).toEqual([
      expect.objectContaining({ verdict: 'blocked', appStart: blocked.appStart }),
    ]);
    const feedback = fs.readFileSync(path.join(workspace, '.nightshift/feedback/F-001.md'), 'utf8');
    expect(feedback).toContain('## The app did not start');
    expect(feedback).toContain('init.sh exited with code 1 before anything answered HTTP on $PORT.');
    expect(feedback).toMatch(/```\nstarting the todo app\nError: Cannot find module 'express'\n```/);
    expect(await isClean(openRepo(workspace))).toBe(true);

    // 2. The planner sends a generator on the feature, not another evaluation.
    state = applied(state, 2, blocked);
    expect(nextAction(state, new Date())).toEqual({ kind: 'generate', featureId: 'F-001' });

    // 3. The generator gets the log, its port and the spec section; it reproduces the failure and fixes it.
    server.setPolicy(recording(initFixingGenerator));
    const fix = await runSession(server, {
      role: 'generator',
      workspace,
      dataDir,
      featureIds: ['F-001'],
      session: 3,
    });
    const conversation = lastSeen;
    const brief = conversation ? firstMessage(conversation) : '';
    expect(brief).toContain("Error: Cannot find module 'express'");
    expect(brief).toMatch(/Use port \d+ for your own checks/);
    expect(brief).toContain('Section "Todo › Remaining count" (line 9)');
    expect(brief).toContain('counting the todos not completed yet');
    const toolResults = (conversation?.messages ?? [])
      .filter((message) => message.role === 'user')
      .map((message) => JSON.stringify(message.content));
    expect(toolResults[1]).toContain('Cannot find module');
    expect(toolResults[2]).toMatch(/What needs to be done/);
    expect(fix.outcome).toBe('completed');
    state = applied(state, 3, fix);
    expect(nextAction(state, new Date())).toEqual({ kind: 'evaluate', featureId: 'F-001' });

    // 4. The app starts now; the evaluation passes and the feedback is gone.
    server.setPolicy(countingEvaluator);
    const pass = await runSession(server, {
      role: 'evaluator',
      workspace,
      dataDir,
      featureIds: ['F-001'],
      session: 4,
      browser,
    });
    expect(pass.verdicts.map((verdict) => [verdict.verdict, verdict.reason])).toEqual([['pass', undefined]]);
    expect(pass.appStart).toBeUndefined();
    expect(fs.existsSync(path.join(workspace, '.nightshift/feedback/F-001.md'))).toBe(false);
    state = applied(state, 4, pass);
    expect(state.features[0]).toMatchObject({ passes: true, lastVerdictCause: null });
    removeWorkspace(workspace);
  });
});

/** An initializer that writes a broken init.sh first; told the app did not start, it fixes init.sh. */
const initializer: Policy = (conversation) => {
  const told = /The app did not start after the last initializer session/.test(firstMessage(conversation));
  if (turnOf(conversation) > 0) return { text: 'Done.' };
  const writes = told
    ? [{ name: 'write', arguments: { path: 'init.sh', content: GOOD_INIT } }]
    : [
        { name: 'write', arguments: { path: 'feature_list.json', content: JSON.stringify(TWO_FEATURES) } },
        { name: 'write', arguments: { path: 'init.sh', content: BROKEN_INIT } },
        { name: 'write', arguments: { path: 'progress.md', content: '# Progress\n' } },
        { name: 'write', arguments: { path: 'server.js', content: FIXTURE } },
      ];
  return { toolCalls: [...writes, { name: 'commit', arguments: { message: 'skeleton' } }] };
};

describe('the start after the initializer', { timeout: 60_000 }, () => {
  it('sends the log to the next initializer session, whose fixed init.sh then starts', async () => {
    const { workspace, dataDir } = await makeWorkspace({ 'app_spec.md': SPEC });
    server.setPolicy(recording(initializer));
    const common = {
      role: 'initializer' as const,
      workspace,
      dataDir,
      featureIds: [],
      startAppAfterInit: {},
    };
    const first = await runSession(server, { ...common, session: 1 });
    expect(first.outcome).toBe('failed');
    expect(first.reason).toBe(
      `the app did not start after the initializer: init.sh exited with code 1; app log: ${path.join(dataDir, 'runs/r-test/sessions/1-app.log')}`,
    );
    expect(first.appStart?.logTail).toEqual(['starting the todo app', "Error: Cannot find module 'express'"]);
    const note = path.join(workspace, WORKSPACE_FILES.appStartNote);
    expect(fs.readFileSync(note, 'utf8')).toContain("Error: Cannot find module 'express'");
    expect(await isClean(openRepo(workspace))).toBe(true);

    const second = await runSession(server, { ...common, session: 2 });
    const brief = lastSeen ? firstMessage(lastSeen) : '';
    expect(brief).toContain('The app did not start after the last initializer session (fix this first)');
    expect(brief).toContain("Error: Cannot find module 'express'");
    expect(second.outcome).toBe('completed');
    expect(second.appStart).toBeUndefined();
    expect(fs.existsSync(note)).toBe(false);
    expect((await readFeatureList(workspace)).map((feature) => feature.id)).toEqual(['F-001', 'F-002']);
    const tracked = await runGit(openRepo(workspace), ['ls-files', WORKSPACE_FILES.appStartNote]);
    expect(tracked.trim()).toBe('');
    removeWorkspace(workspace);
  });
});
