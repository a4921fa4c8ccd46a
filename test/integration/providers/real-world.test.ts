/**
 * What real providers and OpenAI-compatible servers send, through the real SDKs against the scripted server.
 * Each case uses one provider's documented wire shape (Anthropic Messages or OpenAI Chat Completions error
 * bodies, stop reasons, usage fields), never a blend: see testkit/errors.ts and testkit/*-format.ts.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { ModelProvider, ThinkingBlock, ToolCallBlock } from '../../../agent/messages.js';
import { createOpenAIProvider } from '../../../agent/providers/index.js';
import { FAKE_SIGNATURE } from '../../../testkit/reply.js';
import type { ModelServer, ServerQuirks } from '../../../testkit/types.js';
import {
  FLAVOURS,
  failureOf,
  PIXEL_PNG,
  providerFor,
  requestOf,
  responseOf,
  scriptedServerPerTest,
  userText,
} from './helpers.js';

const scripted = scriptedServerPerTest();
let server: ModelServer;
beforeEach(() => {
  server = scripted.server();
});

const ask = () => requestOf([userText('Do the thing.')]);

describe.each(FLAVOURS)('%s: stop reasons', (flavour) => {
  it.each([true, false])(
    'a reply cut at max_tokens mid tool-call JSON is max_tokens (stream=%s)',
    async (stream) => {
      server.setPolicy(() => ({
        toolCalls: [{ name: 'bash', arguments: { command: `echo ${'long line '.repeat(20)}` } }],
      }));
      server.injectFaults([{ kind: 'max_tokens' }]);
      const response = responseOf(await providerFor(flavour, server, { stream }).complete(ask()));
      expect(response.stopReason).toBe('max_tokens');
      const call = response.content.find((block): block is ToolCallBlock => block.type === 'tool_call');
      expect(call?.name).toBe('bash');
      // Streamed, the cut JSON arrives as such; Anthropic's non-streamed input is what parsed so far (nothing).
      if (stream || flavour === 'openai') expect(call?.invalidArguments).toMatch(/^\{"command":"echo long/);
      else expect(call?.arguments).toEqual({});
    },
  );

  it.each([true, false])(
    'a reasoning-only reply has no text and stops at the limit (stream=%s)',
    async (stream) => {
      server.injectFaults([{ kind: 'reasoning_only', reasoningTokens: 3_000 }]);
      const response = responseOf(await providerFor(flavour, server, { stream }).complete(ask()));
      expect(response.stopReason).toBe('max_tokens');
      expect(response.content.filter((block) => block.type !== 'thinking')).toEqual([]);
      if (flavour === 'anthropic') {
        // Extended thinking comes back signed, to be sent back unchanged.
        const thinking = response.content[0] as ThinkingBlock;
        expect(thinking).toMatchObject({ type: 'thinking', signature: FAKE_SIGNATURE });
      } else {
        // Chat Completions reports reasoning only as a count.
        expect(response.reasoningTokens).toBe(3_000);
        expect(response.usage.outputTokens).toBe(3_000);
      }
    },
  );

  it.each([true, false])('a refusal is refusal (stream=%s)', async (stream) => {
    server.injectFaults([{ kind: 'refusal', message: 'I will not do that.' }]);
    const response = responseOf(await providerFor(flavour, server, { stream }).complete(ask()));
    expect(response.stopReason).toBe('refusal');
    if (flavour === 'openai') expect(response.refusal).toBe('I will not do that.');
  });
});

describe.each(FLAVOURS)('%s: errors', (flavour) => {
  const key = flavour === 'anthropic' ? 'ANTHROPIC_API_KEY' : 'OPENAI_API_KEY';

  it('overloaded (Anthropic 529 overloaded_error, OpenAI 503) carries retry-after', async () => {
    server.injectFaults([{ kind: 'overloaded', retryAfterSeconds: 3 }]);
    const failure = failureOf(await providerFor(flavour, server).complete(ask()));
    if (flavour === 'anthropic')
      expect(failure).toMatchObject({ kind: 'overloaded', status: 529, retryAfterMs: 3_000 });
    else expect(failure).toMatchObject({ kind: 'retryable', status: 503, retryAfterMs: 3_000 });
  });

  it('no credit is quota_exhausted with the fix, never a rate limit to wait out', async () => {
    server.injectFaults([{ kind: 'quota' }]);
    const failure = failureOf(await providerFor(flavour, server).complete(ask()));
    expect(failure.kind).toBe('quota_exhausted');
    expect(failure.status).toBe(flavour === 'anthropic' ? 400 : 429);
    expect(failure.message).toMatch(
      flavour === 'anthropic' ? /credit balance is too low/ : /exceeded your current quota/,
    );
    expect(failure.message).toContain(key);
  });

  it('an unknown model is model_not_found naming the model and the base URL', async () => {
    server.injectFaults([{ kind: 'model_not_found' }]);
    const failure = failureOf(await providerFor(flavour, server).complete(ask()));
    expect(failure).toMatchObject({ kind: 'model_not_found', status: 404 });
    expect(failure.message).toMatch(
      flavour === 'anthropic' ? /model: claude-test/ : /`gpt-test` does not exist/,
    );
    expect(failure.message).toContain(server.url);
  });

  it('a bad key is auth naming the variable', async () => {
    server.injectFaults([{ kind: 'auth_error' }]);
    const failure = failureOf(await providerFor(flavour, server).complete(ask()));
    expect(failure).toMatchObject({ kind: 'auth', status: 401 });
    expect(failure.message).toContain(key);
  });

  it('a text-only model rejecting an image is images_unsupported; without vision no image is sent', async () => {
    server.setQuirks({ textOnly: true });
    const shot = requestOf([
      userText('Look.'),
      {
        role: 'assistant',
        content: [{ type: 'tool_call', id: 't1', name: 'read', arguments: { path: 'x' } }],
      },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            toolCallId: 't1',
            content: 'screenshot saved',
            isError: false,
            images: [{ mediaType: 'image/png', base64: PIXEL_PNG }],
          },
        ],
      },
    ]);
    const failure = failureOf(await providerFor(flavour, server).complete(shot));
    expect(failure).toMatchObject({ kind: 'images_unsupported', status: 400 });
    const response = responseOf(await providerFor(flavour, server).complete({ ...shot, vision: false }));
    expect(response.content).toEqual([{ type: 'text', text: 'Fine.' }]);
    expect(server.requests.at(-1)?.body).toMatch(/image omitted: this model does not read images/);
    expect(server.requests.at(-1)?.body).not.toContain(PIXEL_PNG);
  });
});

describe('OpenAI-compatible servers', () => {
  function compatible(quirks: ServerQuirks, stream = true): ModelProvider {
    server.setQuirks(quirks);
    return createOpenAIProvider({
      model: 'qwen3',
      apiKey: 'not-needed',
      baseURL: server.openaiBaseURL,
      providerName: 'openai-compatible',
      stream,
    });
  }
  const twoReads = () => ({
    toolCalls: [
      { name: 'read', arguments: { path: 'a.txt' } },
      { name: 'read', arguments: { path: 'b.txt' } },
    ],
  });

  it('parallel calls streamed all at index 0 (Ollama) stay two calls, not one named readread', async () => {
    server.setPolicy(twoReads);
    const response = responseOf(await compatible({ toolCallIndexZero: true }).complete(ask()));
    expect(response.stopReason).toBe('tool_use');
    expect(response.content).toEqual([
      expect.objectContaining({ name: 'read', arguments: { path: 'a.txt' } }),
      expect.objectContaining({ name: 'read', arguments: { path: 'b.txt' } }),
    ]);
  });

  it.each([true, false])('object arguments are accepted (stream=%s)', async (stream) => {
    server.setPolicy(twoReads);
    const response = responseOf(await compatible({ objectArguments: true }, stream).complete(ask()));
    expect(response.content.map((block) => block.type === 'tool_call' && block.arguments)).toEqual([
      { path: 'a.txt' },
      { path: 'b.txt' },
    ]);
  });

  it.each([true, false])('missing tool call ids are generated, unique (stream=%s)', async (stream) => {
    server.setPolicy(twoReads);
    const response = responseOf(
      await compatible({ omitToolCallIds: true, toolCallIndexZero: stream }, stream).complete(ask()),
    );
    const ids = response.content.map((block) => (block.type === 'tool_call' ? block.id : ''));
    expect(ids).toHaveLength(2);
    expect(ids.every((id) => /^call_ns[0-9a-f]{18}$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(2);
  });

  it.each([true, false])(
    '<think> blocks stay out of the visible text and the deltas (stream=%s)',
    async (stream) => {
      server.setPolicy(() => ({ text: 'The answer is 42.' }));
      const deltas: string[] = [];
      const response = responseOf(
        await compatible({ thinkText: 'Let me work it out: 6 times 7.' }, stream).complete({
          ...ask(),
          onTextDelta: (text) => deltas.push(text),
        }),
      );
      expect(response.content).toEqual([
        { type: 'thinking', text: 'Let me work it out: 6 times 7.' },
        { type: 'text', text: 'The answer is 42.' },
      ]);
      expect(deltas.join('')).toBe('The answer is 42.');
    },
  );
});
