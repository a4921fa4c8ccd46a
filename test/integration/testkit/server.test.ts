import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startModelServer } from '../../../testkit/server.js';
import type { ModelServer } from '../../../testkit/types.js';

let server: ModelServer;

beforeAll(async () => {
  server = await startModelServer({ policy: () => ({ text: 'unused' }) });
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.setPolicy(() => ({
    text: 'Reading the file now.',
    toolCalls: [{ name: 'read', arguments: { path: 'a/very/long/path/to/some/file.ts', limit: 200 } }],
  }));
});

async function post(path: string, body: unknown): Promise<Response> {
  return fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

function sseEvents(text: string): Array<{ event?: string; data: string }> {
  return text
    .split('\n\n')
    .filter((frame) => frame.trim() !== '')
    .map((frame) => {
      const lines = frame.split('\n');
      const event = lines.find((line) => line.startsWith('event: '))?.slice(7);
      const data = lines.find((line) => line.startsWith('data: '))?.slice(6) ?? '';
      return { event, data };
    });
}

const anthropicBody = {
  model: 'claude-test',
  max_tokens: 100,
  stream: true,
  system: 'sys',
  tools: [{ name: 'read', input_schema: { type: 'object' } }],
  messages: [{ role: 'user', content: 'hello' }],
};

describe('scripted model server wire formats', () => {
  it('answers /health and 404s unknown routes', async () => {
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
    const missing = await fetch(`${server.url}/v1/nope`);
    expect(missing.status).toBe(404);
  });

  it('streams Anthropic events in the API order with split tool input', async () => {
    const response = await post('/v1/messages', anthropicBody);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const events = sseEvents(await response.text());
    const types = events.map((event) => event.event);
    expect(types[0]).toBe('message_start');
    expect(types.slice(-2)).toEqual(['message_delta', 'message_stop']);
    for (const event of events) expect(JSON.parse(event.data).type).toBe(event.event);
    const deltas = events
      .map((event) => JSON.parse(event.data))
      .filter((data) => data.type === 'content_block_delta');
    const json = deltas
      .filter((data) => data.delta.type === 'input_json_delta')
      .map((data) => data.delta.partial_json);
    expect(json.filter((part: string) => part !== '').length).toBeGreaterThan(1);
    expect(JSON.parse(json.join(''))).toEqual({ path: 'a/very/long/path/to/some/file.ts', limit: 200 });
    const messageDelta = JSON.parse(events.at(-2)!.data);
    expect(messageDelta.delta.stop_reason).toBe('tool_use');
    expect(messageDelta.usage.output_tokens).toBeGreaterThan(0);
  });

  it('streams OpenAI chunks with tool call fragments, a usage chunk and [DONE]', async () => {
    const response = await post('/v1/chat/completions', {
      model: 'gpt-test',
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: 'system', content: 'sys' },
        { role: 'user', content: 'hello' },
      ],
      tools: [{ type: 'function', function: { name: 'read', parameters: { type: 'object' } } }],
    });
    const events = sseEvents(await response.text());
    expect(events.at(-1)?.data).toBe('[DONE]');
    const chunks = events.slice(0, -1).map((event) => JSON.parse(event.data));
    const fragments = chunks.flatMap((chunk) => chunk.choices[0]?.delta?.tool_calls ?? []);
    expect(fragments.length).toBeGreaterThan(2);
    expect(fragments[0]).toMatchObject({ index: 0, type: 'function', function: { name: 'read' } });
    expect(
      JSON.parse(
        fragments
          .map((fragment: { function: { arguments: string } }) => fragment.function.arguments)
          .join(''),
      ),
    ).toEqual({
      path: 'a/very/long/path/to/some/file.ts',
      limit: 200,
    });
    expect(chunks.at(-2).choices[0].finish_reason).toBe('tool_calls');
    expect(chunks.at(-1).choices).toEqual([]);
    expect(chunks.at(-1).usage.prompt_tokens).toBeGreaterThan(0);
  });

  it('omits the usage chunk when not asked for it', async () => {
    const response = await post('/v1/chat/completions', {
      model: 'g',
      stream: true,
      messages: [{ role: 'user', content: 'x' }],
    });
    const chunks = sseEvents(await response.text())
      .slice(0, -1)
      .map((event) => JSON.parse(event.data));
    expect(chunks.some((chunk) => chunk.usage)).toBe(false);
  });

  it('answers a bad body with a 400 in the API error shape', async () => {
    const anthropic = await post('/v1/messages', '{not json');
    expect(anthropic.status).toBe(400);
    expect(await anthropic.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    const openai = await post('/v1/chat/completions', { messages: [] });
    expect(openai.status).toBe(400);
    expect(await openai.json()).toMatchObject({ error: { type: 'invalid_request_error' } });
  });

  it('reports a throwing policy as a 500 that names it', async () => {
    server.setPolicy(() => {
      throw new Error('script ran out');
    });
    const response = await post('/v1/messages', anthropicBody);
    expect(response.status).toBe(500);
    expect(JSON.stringify(await response.json())).toContain('script ran out');
  });

  it('sends real-API error bodies for faults', async () => {
    server.injectFaults([{ kind: 'rate_limit', retryAfterSeconds: 3 }, { kind: 'context_overflow' }]);
    const limited = await post('/v1/messages', anthropicBody);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('3');
    expect(await limited.json()).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
    const overflow = await post('/v1/chat/completions', {
      model: 'g',
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(overflow.status).toBe(400);
    expect(await overflow.json()).toMatchObject({
      error: { code: 'context_length_exceeded', type: 'invalid_request_error' },
    });
  });

  it('records every request with its size, format and fault', async () => {
    const before = server.requests.length;
    server.injectFaults([{ kind: 'server_error', status: 503 }]);
    await post('/v1/messages', anthropicBody);
    await post('/v1/messages', { ...anthropicBody, stream: false });
    const [faulted, plain] = server.requests.slice(before);
    expect(faulted).toMatchObject({
      index: before,
      format: 'anthropic',
      model: 'claude-test',
      fault: 'server_error',
      status: 503,
    });
    expect(plain).toMatchObject({ index: before + 1, stream: false, status: 200 });
    expect(plain?.bodyBytes).toBe(Buffer.byteLength(plain!.body));
    expect(JSON.parse(plain!.body).model).toBe('claude-test');
  });
});
