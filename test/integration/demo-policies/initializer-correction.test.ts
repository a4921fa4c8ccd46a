import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFeatureList } from '../../../handoff/feature-list.js';
import { demoPolicy } from '../../../testkit/policies/demo.js';
import { TODO_FEATURES } from '../../../testkit/policies/todo-features.js';
import { TODO_SPEC_PATH } from '../../../testkit/policies/todo-sources.js';
import { startModelServer } from '../../../testkit/server.js';
import type { ModelServer, Policy } from '../../../testkit/types.js';
import { makeWorkspace, removeWorkspace, sessionRunner } from './helpers.js';

/** The demo policy, except that its first feature list has a feature without steps (a model's slip). */
const slipOnce: Policy = async (conversation) => {
  const reply = await demoPolicy(conversation);
  if (conversation.messages.some((message) => message.role === 'assistant') || !('toolCalls' in reply))
    return reply;
  const toolCalls = reply.toolCalls?.map((call) => {
    const args = call.arguments as { path?: string; content?: string };
    if (call.name !== 'write' || args.path !== 'feature_list.json') return call;
    const list = JSON.parse(args.content as string) as Array<{ steps: string[] }>;
    (list[1] as { steps: string[] }).steps = [];
    return { ...call, arguments: { ...args, content: JSON.stringify(list) } };
  });
  return { ...reply, toolCalls };
};

describe('the scripted initializer under the real initializer role', () => {
  let server: ModelServer;
  let workspace = '';

  beforeAll(async () => {
    server = await startModelServer({ policy: slipOnce });
  });

  afterAll(async () => {
    await server?.close();
    if (workspace) removeWorkspace(workspace);
  });

  it('reads the validation error the harness sends back, rewrites a valid list and commits it', async () => {
    const made = await makeWorkspace({ 'app_spec.md': fs.readFileSync(TODO_SPEC_PATH, 'utf8') });
    workspace = made.workspace;
    const result = await sessionRunner(server, made)('initializer', []);
    expect(result.outcome, result.reason).toBe('completed');
    const correction = server.requests
      .map((request) => request.body)
      .find((body) => body.includes('[1].steps'));
    expect(correction, 'the harness named the broken field').toBeDefined();
    const list = await readFeatureList(workspace);
    expect(list.map((feature) => feature.steps.length)).toEqual(
      TODO_FEATURES.map((feature) => feature.steps.length),
    );
    const log = execFileSync('git', ['log', '--format=%s'], { cwd: workspace, encoding: 'utf8' });
    expect(log).toMatch(/^Initializer: fix feature list \(harness correction 1\)$/m);
    expect(fs.statSync(`${workspace}/init.sh`).mode & 0o111).not.toBe(0);
  }, 120_000);
});
