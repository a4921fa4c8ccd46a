import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openRepo, runGit } from '../../../handoff/git.js';
import { answerRunQuestion } from '../../../orchestrator/controls.js';
import { createStatusListener } from '../../../orchestrator/notifications.js';
import { startRun } from '../../../orchestrator/start-run.js';
import { askingPolicy, EVALUATOR_QUESTION } from '../../../testkit/policies/asking.js';
import { roleOf } from '../../../testkit/policies/demo.js';
import type { ScriptedConversation } from '../../../testkit/types.js';
import { cliEnv, runCli, tempDir } from '../cli/helpers.js';
import { createRunHarness, type RunHarness, shortTodoSpec, waitFor } from './harness.js';

// A whole run where sessions ask a person (real Redis, git, worker, Chromium; the scripted model): F-001's evaluator
// asks before judging it (no verdict: the feature waits, and everything depends on it), the answer through the
// harness's API reaches its next evaluator's brief; then F-003's generator asks and waits, F-004 asks past the cap (one
// open question) and decides itself, the answer comes through the CLI (a real process) and reaches F-003's next brief;
// the webhooks get every event, JSON and Slack.
let harness: RunHarness | undefined;
let hooks: http.Server | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  hooks?.close();
  hooks = undefined;
}, 120_000);

function briefOf(conversation: ScriptedConversation): string {
  const first = conversation.messages[0];
  return (first?.content ?? []).map((block) => ('text' in block ? block.text : '')).join('\n');
}

/** A webhook receiver keeping every body by path. */
async function receiver(): Promise<{
  url: string;
  bodies: Array<{ path: string; body: Record<string, unknown> }>;
}> {
  const bodies: Array<{ path: string; body: Record<string, unknown> }> = [];
  hooks = http.createServer((request, response) => {
    let text = '';
    request.on('data', (chunk) => {
      text += chunk;
    });
    request.on('end', () => {
      bodies.push({ path: request.url ?? '', body: JSON.parse(text) });
      response.end('ok');
    });
  });
  await new Promise<void>((resolve) => hooks?.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(hooks.address() as AddressInfo).port}`, bodies };
}

describe('questions to a person in a whole run', () => {
  it('F-003 waits for its answer while F-004 is built; the CLI answer reaches its next brief and it passes', async () => {
    const generatorBriefs: string[] = [];
    const evaluatorBriefs: string[] = [];
    const inner = askingPolicy({ featureIds: ['F-003', 'F-004'], evaluatorFeatureIds: ['F-001'] });
    const h = await createRunHarness((conversation) => {
      const role = roleOf(conversation);
      if (role === 'generator' && conversation.messages.length === 1)
        generatorBriefs.push(briefOf(conversation));
      if (role === 'evaluator' && conversation.messages.length === 1)
        evaluatorBriefs.push(briefOf(conversation));
      return inner(conversation);
    });
    harness = h;
    const notifier = createStatusListener({
      orchestrator: h.orchestrator,
      retry: { attempts: 1, baseDelayMs: 10 },
    });
    h.orchestrator.onSessionEvents = notifier.notifyEvents.bind(notifier);
    const webhooks = await receiver();
    await h.startWorker();
    await h.orchestrator.queues.control.removeJobScheduler('reconcile');
    const workspace = path.join(h.root, 'todo');
    const run = await startRun(h.orchestrator, {
      specPath: shortTodoSpec(h.root, 4),
      workspace: { kind: 'local', dir: workspace },
      config: h.config({
        questions: { maxOpen: 1 },
        notifications: {
          webhooks: [
            { url: `${webhooks.url}/json`, format: 'json', events: ['question.asked', 'question.answered'] },
            { url: `${webhooks.url}/slack`, format: 'slack', events: ['question.asked'] },
          ],
        },
      }),
      dataDir: h.dataDir,
    });
    // On a timeout, the run's story says where it stopped (status, sessions, verdicts, questions); the two waits
    // together stay under the test's timeout, so a stuck run fails with its story instead of hanging.
    const story = async () => {
      const current = await h.orchestrator.store.getRun(run.id);
      const events = (await h.orchestrator.store.readEvents(run.id, { count: 10_000 }))
        .filter(({ event }) => /^(run\.status|session\.|verdict|feature\.|question\.)/.test(event.type))
        .map(({ event }) => JSON.stringify(event).slice(0, 200));
      const features = (await h.orchestrator.store.listFeatures(run.id)).map(
        (feature) => `${feature.id} passes=${feature.passes}`,
      );
      return [`run ${current.status} ${current.pausedReason ?? ''}`, ...features, ...events].join('\n');
    };
    const until = <T>(what: string, check: () => Promise<T | undefined>) =>
      waitFor(what, check, 270_000).catch(async (error: Error) => {
        throw new Error(`${error.message}\n${await story()}`);
      });

    // F-001's evaluator asked instead of judging it: the feature waits (and every other one with it) for the answer.
    const byEvaluator = await until("F-001's evaluator to ask", async () => {
      const current = await h.orchestrator.store.getRun(run.id);
      return current.questions[0];
    });
    expect(byEvaluator).toMatchObject({ id: 'Q-1', featureId: 'F-001', role: 'evaluator', answer: null });
    expect((await h.orchestrator.store.listFeatures(run.id))[0]).toMatchObject({
      passes: false,
      lastVerdict: null,
    });
    await answerRunQuestion(h.orchestrator, run.id, 'Q-1', 'Yes, keep the order', 'api');

    // F-003 asked and waits; F-004 (its dependencies pass too) is built meanwhile, past the cap it decided itself.
    const waiting = await until('F-004 to pass while F-003 waits', async () => {
      const features = await h.orchestrator.store.listFeatures(run.id);
      return features.find((feature) => feature.id === 'F-004')?.passes ? features : undefined;
    });
    expect(waiting.find((feature) => feature.id === 'F-003')?.passes).toBe(false);
    const asked = await h.orchestrator.store.getRun(run.id);
    expect(asked.status).toBe('building');
    expect(asked.questions).toEqual([
      expect.objectContaining({ id: 'Q-1', answer: 'Yes, keep the order', answeredBy: 'api' }),
      expect.objectContaining({ id: 'Q-2', featureId: 'F-003', answer: null, options: ['todos', 'tasks'] }),
    ]);
    const home = tempDir('questions');
    const env = cliEnv(home, h.prefix);
    const listed = await runCli(['questions', run.id], { env, cwd: home });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/Q-2\s+F-003\s.*open.*Should the page say "todos" or "tasks"\?/);

    const answered = await runCli(['answer', run.id, 'Q-2', 'Say tasks everywhere'], { env, cwd: home });
    expect(answered.stderr).toBe('');
    expect(answered.stdout).toContain("Q-2 answered: F-003's next session gets the answer in its brief.");
    const again = await runCli(['answer', run.id, 'Q-2', 'no, todos'], { env, cwd: home });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('was answered already (cli): "Say tasks everywhere"');

    const done = await until('the run to finish', async () => {
      const current = await h.orchestrator.store.getRun(run.id);
      return ['done', 'failed', 'paused', 'incomplete'].includes(current.status) ? current : undefined;
    });
    expect(done.status, await story()).toBe('done');
    const f003Briefs = generatorBriefs.filter((brief) => brief.startsWith('# Feature F-003'));
    expect(f003Briefs).toHaveLength(2);
    expect(f003Briefs[0]).not.toContain('Answers to the questions');
    expect(f003Briefs[1]).toContain(
      '## Answers to the questions asked about this feature (follow them)\nQ-2: Should the page say "todos" or "tasks"?\nOptions you gave: todos | tasks\nAnswer: Say tasks everywhere',
    );
    // F-001's evaluators: the one that asked saw no answer; the next one got the question and the answer under the
    // feature's steps, and judged it (no `blocked` record of the evaluation that asked).
    const f001Evaluations = evaluatorBriefs.filter((brief) => /^## F-001: /m.test(brief));
    expect(f001Evaluations.length).toBeGreaterThanOrEqual(2);
    expect(f001Evaluations[0]).not.toContain('Answers to the questions');
    expect(f001Evaluations[1]).toContain(
      `### Answers to the questions asked about this feature (follow them)\nQ-1: ${EVALUATOR_QUESTION}\nOptions you gave: yes | no\nAnswer: Yes, keep the order`,
    );

    // Both are in the history: the question when asked, the answer after the session that got it.
    const repo = openRepo(workspace);
    const log = await runGit(repo, ['log', '--format=%s', '--', '.nightshift/questions.md']);
    expect(log).toContain('nightshift(harness): F-001 question Q-1 asked');
    expect(log).toContain('nightshift(harness): F-003 question Q-2 asked');
    const file = fs.readFileSync(path.join(workspace, '.nightshift/questions.md'), 'utf8');
    expect(file).toMatch(
      /## Q-2 \(F-003, session \d+, .*\)\n\nQuestion: Should the page say "todos" or "tasks"\?/,
    );
    expect(file).toMatch(/Answer \(api, .*\): Yes, keep the order/);
    expect(file).toMatch(/Answer \(cli, .*\): Say tasks everywhere/);
    const progress = fs.readFileSync(path.join(workspace, 'progress.md'), 'utf8');
    expect(progress).toContain('F-003: a person answered: Say tasks everywhere');
    expect(progress).toMatch(
      /F-004: nobody to ask \(No person can be asked now \(1 of at most 1 questions are open\)/,
    );

    const events = (await h.orchestrator.store.readEvents(run.id, { count: 100_000 })).map((s) => s.event);
    expect(events.filter((event) => event.type.startsWith('question.')).map((event) => event.type)).toEqual([
      'question.asked',
      'question.answered',
      'question.asked',
      'question.answered',
    ]);
    const f001Verdicts = events.flatMap((event) =>
      event.type === 'verdict.applied' && event.featureId === 'F-001' ? [event.verdict] : [],
    );
    expect(f001Verdicts).not.toContain('blocked');
    expect(f001Verdicts.at(-1)).toBe('pass');
    await notifier.flush();
    const json = webhooks.bodies.filter((entry) => entry.path === '/json').map((entry) => entry.body);
    expect(json.map((body) => body.type)).toEqual([
      'question.asked',
      'question.answered',
      'question.asked',
      'question.answered',
    ]);
    expect(json[0]).toMatchObject({
      runId: run.id,
      question: { id: 'Q-1', featureId: 'F-001', answer: null },
    });
    expect(json[2]).toMatchObject({
      runId: run.id,
      question: { id: 'Q-2', featureId: 'F-003', answer: null },
    });
    expect(json[3]).toMatchObject({
      question: { id: 'Q-2', answer: 'Say tasks everywhere', answeredBy: 'cli' },
    });
    const slack = webhooks.bodies.filter((entry) => entry.path === '/slack').map((entry) => entry.body.text);
    expect(slack).toEqual([
      expect.stringContaining(`Q-1 (F-001) asks: "${EVALUATOR_QUESTION}". Options: yes | no.`),
      expect.stringContaining(
        `Q-2 (F-003) asks: "Should the page say "todos" or "tasks"?". Options: todos | tasks. The feature waits; answer with \`nightshift answer ${run.id} Q-2 "…"\``,
      ),
    ]);
  }, 600_000);
});
