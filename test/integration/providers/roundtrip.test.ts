import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Message, ToolCallBlock } from '../../../agent/messages.js';
import { lastToolResults } from '../../../testkit/policies.js';
import { startModelServer } from '../../../testkit/server.js';
import type { ModelServer, ScriptedConversation } from '../../../testkit/types.js';
import { FLAVOURS, PIXEL_PNG, providerFor, requestOf, userText } from './helpers.js';

let server: ModelServer;
let seen: ScriptedConversation[] = [];

beforeAll(async () => {
  server = await startModelServer({ policy: () => ({ text: 'unused' }) });
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  seen = [];
  server.setPolicy((conversation) => {
    seen.push(conversation);
    if (lastToolResults(conversation).length > 0) return { text: 'All read.' };
    return {
      text: 'Let me look at both files.',
      toolCalls: [
        { name: 'read', arguments: { path: 'src/a.ts' } },
        { name: 'read', arguments: { path: 'src/b.ts', note: 'ünïcödé "quoted"' } },
        { name: 'bash', arguments: { command: 'ls -la' } },
      ],
    };
  });
});

describe.each(FLAVOURS)('%s provider over the real SDK', (flavour) => {
  describe.each([true, false])('stream=%s', (stream) => {
    it('returns text and several tool calls, with usage and the server model id', async () => {
      const provider = providerFor(flavour, server, { stream });
      const deltas: string[] = [];
      const result = await provider.complete(
        requestOf([userText('Look at the sources.')], { onTextDelta: (text) => deltas.push(text) }),
      );
      if (!result.ok) throw new Error(`unexpected failure: ${result.failure.message}`);
      const { content, stopReason, usage, model } = result.response;
      expect(content[0]).toEqual({ type: 'text', text: 'Let me look at both files.' });
      const calls = content.filter((block): block is ToolCallBlock => block.type === 'tool_call');
      expect(calls.map((call) => [call.name, call.arguments])).toEqual([
        ['read', { path: 'src/a.ts' }],
        ['read', { path: 'src/b.ts', note: 'ünïcödé "quoted"' }],
        ['bash', { command: 'ls -la' }],
      ]);
      expect(new Set(calls.map((call) => call.id)).size).toBe(3);
      expect(calls.every((call) => call.invalidArguments === undefined)).toBe(true);
      expect(stopReason).toBe('tool_use');
      expect(usage.outputTokens).toBeGreaterThan(0);
      expect(usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens).toBeGreaterThan(0);
      expect(model).toBe(flavour === 'anthropic' ? 'claude-test' : 'gpt-test');
      expect(deltas.join('')).toBe('Let me look at both files.');
      if (stream) expect(deltas.length).toBeGreaterThan(1);
      const recorded = server.requests.at(-1);
      expect(recorded?.format).toBe(flavour);
      expect(recorded?.stream).toBe(stream);
      expect(provider.id).toBe(flavour === 'anthropic' ? 'anthropic:claude-test' : 'openai:gpt-test');
    });

    it('sends tool results (text, error flag, images) that the policy sees', async () => {
      const provider = providerFor(flavour, server, { stream });
      const first = await provider.complete(requestOf([userText('Look at the sources.')]));
      if (!first.ok) throw new Error(first.failure.message);
      const calls = first.response.content.filter(
        (block): block is ToolCallBlock => block.type === 'tool_call',
      );
      const messages: Message[] = [
        userText('Look at the sources.'),
        { role: 'assistant', content: first.response.content },
        {
          role: 'user',
          content: [
            { type: 'tool_result', toolCallId: calls[0]!.id, content: 'export const a = 1;', isError: false },
            {
              type: 'tool_result',
              toolCallId: calls[1]!.id,
              content: 'screenshot attached',
              isError: false,
              images: [{ mediaType: 'image/png', base64: PIXEL_PNG }],
            },
            {
              type: 'tool_result',
              toolCallId: calls[2]!.id,
              content: 'ls: permission denied',
              isError: true,
            },
            { type: 'text', text: 'Reminder: 10 steps left.' },
          ],
        },
      ];
      const second = await provider.complete(requestOf(messages));
      if (!second.ok) throw new Error(second.failure.message);
      expect(second.response.content).toEqual([{ type: 'text', text: 'All read.' }]);
      expect(second.response.stopReason).toBe('end_turn');

      const conversation = seen.at(-1)!;
      expect(conversation.system).toBe('You are a careful engineer.');
      expect(conversation.toolNames).toEqual(['read', 'bash']);
      const assistant = conversation.messages[1];
      expect(assistant?.role).toBe('assistant');
      expect(
        assistant?.content.filter((block) => block.type === 'tool_call').map((block) => block.id),
      ).toEqual(calls.map((call) => call.id));
      const results = lastToolResults(conversation);
      expect(results.map((result) => [result.toolCallId, result.content])).toEqual([
        [calls[0]!.id, 'export const a = 1;'],
        [calls[1]!.id, 'screenshot attached'],
        [calls[2]!.id, 'ls: permission denied'],
      ]);
      expect(results[1]?.images).toEqual([{ mediaType: 'image/png', base64: PIXEL_PNG }]);
      // Chat Completions has no error flag on tool messages; Anthropic carries it.
      if (flavour === 'anthropic') expect(results[2]?.isError).toBe(true);
      const lastUser = conversation.messages.at(-1);
      expect(
        lastUser?.content.some((block) => block.type === 'text' && block.text === 'Reminder: 10 steps left.'),
      ).toBe(true);
      expect(server.requests.at(-1)?.body).toContain(PIXEL_PNG);
    });
  });
});
