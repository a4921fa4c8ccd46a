import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ToolCallBlock } from '../../../agent/messages.js';
import { MALFORMED_ARGUMENTS, UNKNOWN_TOOL_NAME } from '../../../testkit/reply.js';
import { startModelServer } from '../../../testkit/server.js';
import type { ModelServer } from '../../../testkit/types.js';
import { FLAVOURS, failureOf, providerFor, requestOf, responseOf, userText } from './helpers.js';

let server: ModelServer;

beforeEach(async () => {
  server = await startModelServer({ policy: () => ({ text: 'Fine.' }) });
});
afterEach(async () => {
  await server.close();
});

const ask = () => requestOf([userText('Do the thing.')]);

describe.each(FLAVOURS)('%s provider faults', (flavour) => {
  const keyVariable = flavour === 'anthropic' ? 'ANTHROPIC_API_KEY' : 'OPENAI_API_KEY';

  it('429 without retries is rate_limited with the retry-after delay', async () => {
    server.injectFaults([{ kind: 'rate_limit', retryAfterSeconds: 7 }]);
    const failure = failureOf(await providerFor(flavour, server).complete(ask()));
    expect(failure).toMatchObject({ kind: 'rate_limited', status: 429, retryAfterMs: 7000 });
    expect(server.requests).toHaveLength(1);
  });

  it.each([0, 1])('429 with retry-after %ss is retried by the SDK and then succeeds', async (seconds) => {
    server.injectFaults([{ kind: 'rate_limit', retryAfterSeconds: seconds }]);
    const response = responseOf(await providerFor(flavour, server, { maxRetries: 1 }).complete(ask()));
    expect(response.content).toEqual([{ type: 'text', text: 'Fine.' }]);
    expect(server.requests.map((request) => [request.fault, request.status])).toEqual([
      ['rate_limit', 429],
      [undefined, 200],
    ]);
  });

  it.each([true, false])('500 is retryable (stream=%s)', async (stream) => {
    server.injectFaults([{ kind: 'server_error' }]);
    const failure = failureOf(await providerFor(flavour, server, { stream }).complete(ask()));
    expect(failure).toMatchObject({ kind: 'retryable', status: 500 });
  });

  it('a reply slower than timeoutMs is retryable, and the server sees the client leave', async () => {
    server.injectFaults([{ kind: 'slow', delayMs: 20_000 }]);
    const failure = failureOf(await providerFor(flavour, server, { timeoutMs: 1_000 }).complete(ask()));
    expect(failure.kind).toBe('retryable');
    expect(failure.message).toMatch(/timed out/);
    await vi.waitFor(() => expect(server.requests[0]?.clientClosed).toBe(true), { timeout: 10_000 });
  });

  it('a slow reply within timeoutMs succeeds', async () => {
    server.injectFaults([{ kind: 'slow', delayMs: 50 }]);
    const response = responseOf(await providerFor(flavour, server, { timeoutMs: 30_000 }).complete(ask()));
    expect(response.content).toEqual([{ type: 'text', text: 'Fine.' }]);
  });

  it.each([true, false])('a connection reset is retryable (stream=%s)', async (stream) => {
    server.injectFaults([{ kind: 'reset' }]);
    const failure = failureOf(await providerFor(flavour, server, { stream }).complete(ask()));
    expect(failure.kind).toBe('retryable');
    expect(server.requests[0]?.fault).toBe('reset');
  });

  it.each([true, false])(
    'malformed tool JSON becomes invalidArguments, not a throw (stream=%s)',
    async (stream) => {
      server.injectFaults([{ kind: 'malformed_tool_json' }]);
      const response = responseOf(await providerFor(flavour, server, { stream }).complete(ask()));
      const call = response.content[0] as ToolCallBlock;
      expect(call).toMatchObject({
        type: 'tool_call',
        name: 'read',
        arguments: {},
        invalidArguments: MALFORMED_ARGUMENTS,
      });
      expect(response.stopReason).toBe('tool_use');
    },
  );

  it('a raw argument string from the policy reaches the provider verbatim', async () => {
    server.setPolicy(() => ({ toolCalls: [{ name: 'bash', arguments: '{"command": ' }] }));
    const response = responseOf(await providerFor(flavour, server).complete(ask()));
    expect(response.content).toEqual([
      expect.objectContaining({ name: 'bash', arguments: {}, invalidArguments: '{"command": ' }),
    ]);
  });

  it('an unknown tool comes back as a tool call with that name', async () => {
    server.injectFaults([{ kind: 'unknown_tool' }]);
    const response = responseOf(await providerFor(flavour, server).complete(ask()));
    expect(response.content).toEqual([
      expect.objectContaining({ type: 'tool_call', name: UNKNOWN_TOOL_NAME }),
    ]);
  });

  it.each([true, false])(
    'an empty reply is a valid response with empty content (stream=%s)',
    async (stream) => {
      server.injectFaults([{ kind: 'empty' }]);
      const response = responseOf(await providerFor(flavour, server, { stream }).complete(ask()));
      expect(response.content).toEqual([]);
      expect(response.stopReason).toBe('end_turn');
    },
  );

  it('context overflow is context_overflow', async () => {
    server.injectFaults([{ kind: 'context_overflow' }]);
    const failure = failureOf(await providerFor(flavour, server).complete(ask()));
    expect(failure).toMatchObject({ kind: 'context_overflow', status: 400 });
  });

  it('401 is auth and names the key to check', async () => {
    server.injectFaults([{ kind: 'auth_error' }]);
    const failure = failureOf(await providerFor(flavour, server, { maxRetries: 2 }).complete(ask()));
    expect(failure).toMatchObject({ kind: 'auth', status: 401 });
    expect(failure.message).toContain(keyVariable);
    expect(server.requests).toHaveLength(1);
  });

  it('404 is model_not_found and names the model and base URL', async () => {
    server.injectFaults([{ kind: 'server_error', status: 404, message: 'model: nope' }]);
    const failure = failureOf(await providerFor(flavour, server).complete(ask()));
    expect(failure.kind).toBe('model_not_found');
    expect(failure.message).toMatch(/model name/);
    expect(failure.message).toContain(server.url);
  });

  it('a policy can answer with a fault', async () => {
    server.setPolicy(() => ({ fault: { kind: 'server_error', status: 503 } }));
    const failure = failureOf(await providerFor(flavour, server).complete(ask()));
    expect(failure).toMatchObject({ kind: 'retryable', status: 503 });
  });

  it('aborting mid-stream is aborted, and the server sees the connection close', async () => {
    await server.close();
    server = await startModelServer({ policy: () => ({ text: 'word '.repeat(200) }), latencyMs: 150 });
    const controller = new AbortController();
    const deltas: string[] = [];
    const result = await providerFor(flavour, server).complete(
      requestOf([userText('Talk a lot.')], {
        signal: controller.signal,
        onTextDelta: (text) => {
          deltas.push(text);
          controller.abort();
        },
      }),
    );
    expect(failureOf(result).kind).toBe('aborted');
    expect(deltas.length).toBeGreaterThan(0);
    await vi.waitFor(() => expect(server.requests[0]?.clientClosed).toBe(true), { timeout: 10_000 });
  });

  it('a signal aborted before the call is aborted without a request', async () => {
    const result = await providerFor(flavour, server).complete({ ...ask(), signal: AbortSignal.abort() });
    expect(failureOf(result).kind).toBe('aborted');
    expect(server.requests).toHaveLength(0);
  });

  it('a refused connection is retryable', async () => {
    const url = server.url;
    await server.close();
    const provider = providerFor(flavour, { ...server, anthropicBaseURL: url, openaiBaseURL: `${url}/v1` });
    const failure = failureOf(await provider.complete(ask()));
    expect(failure.kind).toBe('retryable');
    server = await startModelServer({ policy: () => ({ text: 'Fine.' }) });
  });
});

describe('anthropic-only statuses', () => {
  it('529 overloaded is overloaded (retried inside the session, not a rate limit)', async () => {
    server.injectFaults([{ kind: 'server_error', status: 529 }]);
    const failure = failureOf(await providerFor('anthropic', server).complete(ask()));
    expect(failure).toMatchObject({ kind: 'overloaded', status: 529 });
  });
});

describe.each(FLAVOURS)('%s provider stream watchdog', (flavour) => {
  it('a stream that stalls midway for longer than timeoutMs is retryable', async () => {
    await server.close();
    server = await startModelServer({
      policy: () => ({ text: 'slow words '.repeat(10) }),
      latencyMs: 20_000,
    });
    const failure = failureOf(await providerFor(flavour, server, { timeoutMs: 1_000 }).complete(ask()));
    expect(failure.kind).toBe('retryable');
    expect(failure.message).toMatch(/stalled/);
    await vi.waitFor(() => expect(server.requests[0]?.clientClosed).toBe(true), { timeout: 10_000 });
  });
});
