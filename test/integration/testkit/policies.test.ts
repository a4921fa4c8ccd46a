import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Message } from '../../../agent/messages.js';
import { createOpenAIProvider } from '../../../agent/providers/openai.js';
import { byModel, lastToolResults, lastUserText, sequence, turnIndex } from '../../../testkit/policies.js';
import { startModelServer } from '../../../testkit/server.js';
import type { ModelServer, ScriptedConversation } from '../../../testkit/types.js';
import { FLAVOURS, providerFor, requestOf, userText } from '../providers/helpers.js';

let server: ModelServer;

beforeEach(async () => {
  server = await startModelServer({ policy: () => ({ text: 'unused' }) });
});
afterEach(async () => {
  await server.close();
});

function conversationOf(messages: Message[]): ScriptedConversation {
  return { format: 'anthropic', model: 'm', system: '', messages, toolNames: [], requestIndex: 0 };
}

describe('policy helpers', () => {
  const messages: Message[] = [
    userText('first'),
    { role: 'assistant', content: [{ type: 'tool_call', id: 'c1', name: 'read', arguments: {} }] },
    {
      role: 'user',
      content: [
        { type: 'tool_result', toolCallId: 'c1', content: 'file body', isError: false },
        { type: 'text', text: 'note' },
      ],
    },
  ];

  it('read the last turn and count assistant turns', () => {
    const conversation = conversationOf(messages);
    expect(turnIndex(conversation)).toBe(1);
    expect(lastUserText(conversation)).toBe('note');
    expect(lastToolResults(conversation).map((result) => result.content)).toEqual(['file body']);
    expect(lastToolResults(conversationOf(messages.slice(0, 2)))).toEqual([]);
    expect(lastUserText(conversationOf([]))).toBe('');
  });
});

describe.each(FLAVOURS)('sequence() driving a %s session', (flavour) => {
  it('answers step by step by turn, with functions of the conversation, then the fallback', async () => {
    server.setPolicy(
      sequence([
        { toolCalls: [{ name: 'read', arguments: { path: 'spec.md' } }] },
        (conversation) => ({ text: `got: ${lastToolResults(conversation)[0]?.content}` }),
      ]),
    );
    const provider = providerFor(flavour, server);
    const messages: Message[] = [userText('Go.')];
    const first = await provider.complete(requestOf(messages));
    if (!first.ok) throw new Error(first.failure.message);
    const call = first.response.content[0];
    if (call?.type !== 'tool_call') throw new Error('expected a tool call');
    messages.push({ role: 'assistant', content: first.response.content });
    messages.push({
      role: 'user',
      content: [{ type: 'tool_result', toolCallId: call.id, content: 'SPEC', isError: false }],
    });
    const second = await provider.complete(requestOf(messages));
    expect(second.ok && second.response.content).toEqual([{ type: 'text', text: 'got: SPEC' }]);
    messages.push({ role: 'assistant', content: [{ type: 'text', text: 'got: SPEC' }] }, userText('More?'));
    const third = await provider.complete(requestOf(messages));
    expect(third.ok && third.response.content).toEqual([{ type: 'text', text: 'Done.' }]);
  });
});

describe('byModel()', () => {
  it('dispatches by model and 404s an unknown model like the real API', async () => {
    server.setPolicy(byModel({ 'gpt-test': () => ({ text: 'from gpt-test' }) }));
    const known = await providerFor('openai', server).complete(requestOf([userText('hi')]));
    expect(known.ok && known.response.content).toEqual([{ type: 'text', text: 'from gpt-test' }]);
    const other = createOpenAIProvider({
      model: 'other',
      apiKey: 'k',
      baseURL: server.openaiBaseURL,
      maxRetries: 0,
    });
    const unknown = await other.complete(requestOf([userText('hi')]));
    expect(!unknown.ok && unknown.failure.kind).toBe('model_not_found');
    expect(!unknown.ok && unknown.failure.message).toContain('other');
  });
});
