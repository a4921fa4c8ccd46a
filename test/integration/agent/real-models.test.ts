/**
 * The loop against real-world model behaviour through the real SDKs and the scripted server: replies cut at
 * the output limit, reasoning-only replies, refusals, overloads, Ollama-style tool calls, text-only models,
 * and the outgoing secret scan — each for both wire formats where it exists in both.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AgentEvent } from '../../../agent/events.js';
import { runAgent } from '../../../agent/loop.js';
import { resolveModelSettings } from '../../../agent/models.js';
import { createOpenAIProvider } from '../../../agent/providers/index.js';
import { defineTool } from '../../../agent/tool.js';
import { createFileTools } from '../../../agent/tools/index.js';
import { base64Forms } from '../../../core/secrets.js';
import { startModelServer } from '../../../testkit/server.js';
import type { ModelServer } from '../../../testkit/types.js';
import { PIXEL_PNG } from '../providers/helpers.js';
import { lastResults, lastUserText, providersFor, tempWorkspace, turnOf } from './loop-helpers.js';

const limits = { maxSteps: 12, maxWallMs: 60_000 };
let server: ModelServer;

beforeAll(async () => {
  server = await startModelServer({ policy: () => ({ text: 'idle' }) });
});
afterAll(async () => {
  await server.close();
});

function collect() {
  const events: AgentEvent[] = [];
  return { events, sink: (event: AgentEvent) => events.push(event) };
}

const BIG = `${'export const line = "0123456789";\n'.repeat(40)}`;

describe.each(['anthropic', 'openai'] as const)('%s', (flavour) => {
  const provider = () => providersFor(server)[flavour];

  it('a write cut at the output limit is not run; the model is told and writes in parts', async () => {
    const workspace = tempWorkspace();
    let told = '';
    server.setPolicy((conversation) => {
      const turn = turnOf(conversation);
      if (turn === 0) return { toolCalls: [{ name: 'write', arguments: { path: 'big.js', content: BIG } }] };
      if (turn === 1) {
        told = lastUserText(conversation);
        return { toolCalls: [{ name: 'write', arguments: { path: 'big.js', content: BIG.slice(0, 200) } }] };
      }
      return { text: 'Wrote the first part.' };
    });
    server.injectFaults([{ kind: 'max_tokens' }]);
    const { events, sink } = collect();
    const result = await runAgent({
      sessionId: 'truncated',
      provider: provider(),
      system: 's',
      firstMessage: 'Write big.js',
      tools: createFileTools(),
      toolContext: { workspace, protectedPaths: [] },
      limits: { ...limits, maxOutputTokens: 2_000 },
      sink,
    });
    expect(result.outcome).toBe('completed');
    expect(told).toMatch(/Not run: Your reply was cut off at the output limit of 2000 tokens/);
    expect(told).toMatch(/write a large file in parts/);
    expect(fs.readFileSync(path.join(workspace, 'big.js'), 'utf8')).toBe(BIG.slice(0, 200));
    expect(events.filter((event) => event.type === 'model.truncated')).toHaveLength(1);
    expect(events.filter((event) => event.type === 'tool.started')).toHaveLength(1);
  });

  it('a reasoning-only reply gets one continuation, then the model answers', async () => {
    server.setPolicy(() => ({ text: 'Answer after thinking less.' }));
    server.injectFaults([{ kind: 'reasoning_only' }]);
    const { events, sink } = collect();
    const result = await runAgent({
      sessionId: 'reasoning',
      provider: provider(),
      system: 's',
      firstMessage: 'Solve it.',
      tools: [],
      toolContext: { workspace: tempWorkspace(), protectedPaths: [] },
      limits,
      sink,
    });
    expect(result).toMatchObject({ outcome: 'completed', lastText: 'Answer after thinking less.' });
    expect(events.find((event) => event.type === 'model.nudged')).toMatchObject({ reason: 'reasoning_only' });
    if (flavour === 'anthropic') {
      // The signed thinking block went back unchanged with its turn.
      expect(server.requests.at(-1)?.body).toMatch(/"type":"thinking","thinking":"Let me consider/);
    }
  });

  it('a refusal ends the session refused', async () => {
    server.injectFaults([{ kind: 'refusal', message: 'No.' }]);
    const result = await runAgent({
      sessionId: 'refusal',
      provider: provider(),
      system: 's',
      firstMessage: 'Do something bad.',
      tools: [],
      toolContext: { workspace: tempWorkspace(), protectedPaths: [] },
      limits,
    });
    expect(result.outcome).toBe('refused');
  });
});

describe('overloaded inside a session', () => {
  it('is retried after its retry-after and the session goes on (Anthropic 529)', async () => {
    server.setPolicy(() => ({ text: 'done' }));
    server.injectFaults([{ kind: 'overloaded', retryAfterSeconds: 2 }]);
    const delays: number[] = [];
    const { events, sink } = collect();
    const result = await runAgent({
      sessionId: 'overloaded',
      provider: providersFor(server).anthropic,
      system: 's',
      firstMessage: 'go',
      tools: [],
      toolContext: { workspace: tempWorkspace(), protectedPaths: [] },
      limits,
      sink,
      sleep: async (ms) => {
        delays.push(ms);
      },
    });
    expect(result.outcome).toBe('completed');
    expect(delays).toHaveLength(1);
    expect(delays[0]).toBeGreaterThanOrEqual(2_000);
    expect(events.find((event) => event.type === 'model.error')).toMatchObject({
      kind: 'overloaded',
      retryAfterMs: 2_000,
      willRetry: true,
      attempt: 1,
    });
  });

  it('no credit ends the session provider_error with quota_exhausted, after one request', async () => {
    server.injectFaults([{ kind: 'quota' }]);
    const before = server.requests.length;
    const result = await runAgent({
      sessionId: 'quota',
      provider: providersFor(server).openai,
      system: 's',
      firstMessage: 'go',
      tools: [],
      toolContext: { workspace: tempWorkspace(), protectedPaths: [] },
      limits,
    });
    expect(result.outcome).toBe('provider_error');
    expect(result.failure?.kind).toBe('quota_exhausted');
    expect(server.requests.length - before).toBe(1);
  });
});

describe('a local model behind an OpenAI-compatible server', () => {
  const screenshot = defineTool({
    name: 'browser_take_screenshot',
    description: 'Take a screenshot.',
    parameters: z.object({}),
    async execute() {
      return {
        content: 'screenshot saved',
        images: [{ mediaType: 'image/png' as const, base64: PIXEL_PNG }],
      };
    },
  });

  it('runs parallel Ollama tool calls at index 0 as separate calls', async () => {
    const workspace = tempWorkspace();
    fs.writeFileSync(path.join(workspace, 'a.txt'), 'alpha\n');
    fs.writeFileSync(path.join(workspace, 'b.txt'), 'beta\n');
    let seen: string[] = [];
    server.setQuirks({ toolCallIndexZero: true, omitToolCallIds: true });
    server.setPolicy((conversation) => {
      if (turnOf(conversation) === 0) {
        return {
          toolCalls: [
            { name: 'read', arguments: { path: 'a.txt' } },
            { name: 'read', arguments: { path: 'b.txt' } },
          ],
        };
      }
      seen = lastResults(conversation).map((result) => result.content);
      return { text: 'read both' };
    });
    try {
      const result = await runAgent({
        sessionId: 'ollama',
        provider: createOpenAIProvider({
          model: 'qwen3',
          apiKey: 'not-needed',
          baseURL: server.openaiBaseURL,
          providerName: 'openai-compatible',
        }),
        system: 's',
        firstMessage: 'Read a.txt and b.txt.',
        tools: createFileTools(),
        toolContext: { workspace, protectedPaths: [] },
        limits,
      });
      expect(result.outcome).toBe('completed');
      expect(seen).toEqual([expect.stringContaining('alpha'), expect.stringContaining('beta')]);
    } finally {
      server.setQuirks({});
    }
  });

  it('a text-only model never gets an image: settings without vision send a note; a wrong setting recovers', async () => {
    server.setQuirks({ textOnly: true });
    server.setPolicy((conversation) =>
      turnOf(conversation) < 2
        ? { toolCalls: [{ name: 'browser_take_screenshot', arguments: {} }] }
        : { text: 'ok' },
    );
    try {
      for (const vision of [false, true]) {
        const settings = { ...resolveModelSettings('openai-compatible:llama3.1'), vision };
        const { events, sink } = collect();
        const before = server.requests.length;
        const result = await runAgent({
          sessionId: `vision-${vision}`,
          provider: createOpenAIProvider({
            model: 'llama3.1',
            apiKey: 'not-needed',
            baseURL: server.openaiBaseURL,
            providerName: 'openai-compatible',
            settings,
          }),
          system: 's',
          firstMessage: 'Look at the page.',
          tools: [screenshot],
          toolContext: { workspace: tempWorkspace(), protectedPaths: [] },
          limits,
          sink,
        });
        expect(result.outcome).toBe('completed');
        const statuses = server.requests.slice(before).map((request) => request.status);
        // Without vision: no 400 at all. With vision wrongly on: one 400, then the images are dropped for good.
        expect(statuses.filter((status) => status === 400)).toHaveLength(vision ? 1 : 0);
        expect(events.some((event) => event.type === 'model.images_dropped')).toBe(vision);
      }
    } finally {
      server.setQuirks({});
    }
  });
});

describe('the outgoing secret scan over the wire', () => {
  it('no request body carries a secret value, plain or base64, whatever the page showed', async () => {
    const secret = 'sk-proj-Q9wErTy1234567890abcdefXYZ';
    const page = defineTool({
      name: 'browser_snapshot',
      description: 'Snapshot the page.',
      parameters: z.object({}),
      async execute() {
        const encoded = Buffer.from(`{"OPENAI_API_KEY":"${secret}"}`).toString('base64');
        return `- heading "Settings"\n- text "key: ${secret}"\n- img "data:application/json;base64,${encoded}"`;
      },
    });
    server.setPolicy((conversation) =>
      turnOf(conversation) === 0
        ? { toolCalls: [{ name: 'browser_snapshot', arguments: {} }] }
        : { text: 'seen' },
    );
    for (const provider of Object.values(providersFor(server))) {
      const before = server.requests.length;
      const { events, sink } = collect();
      await runAgent({
        sessionId: 'scan',
        provider,
        system: 's',
        firstMessage: 'Check the settings page.',
        tools: [page],
        toolContext: { workspace: tempWorkspace(), protectedPaths: [] },
        limits,
        sink,
        secrets: [secret],
      });
      const bodies = server.requests
        .slice(before)
        .map((request) => request.body)
        .join('\n');
      expect(bodies).not.toContain(secret);
      for (const form of base64Forms(secret)) expect(bodies).not.toContain(form);
      // The secret sat in the encoded JSON at an offset that is not a multiple of 3: the alignment matters.
      expect(Buffer.from(`{"OPENAI_API_KEY":"`).length % 3).not.toBe(0);
      expect(bodies).toContain('[redacted]');
      expect(events.filter((event) => event.type === 'secret.redacted')).toEqual([
        expect.objectContaining({ where: 'tool_result:browser_snapshot', count: 2 }),
      ]);
    }
  });
});
