/** The loop reads every reply's stop reason (in-process fake provider: the loop's logic only). */
import { describe, expect, it } from 'vitest';
import { runAgent } from '../../../agent/loop.js';
import type { ToolResultBlock, UserMessage } from '../../../agent/messages.js';
import { createFakeProvider } from '../../../testkit/fake-provider.js';
import { eventsOf, loopOptions, recordingTool } from './helpers.js';

function resultsOf(message: UserMessage | undefined): ToolResultBlock[] {
  return (message?.content ?? []).filter((block): block is ToolResultBlock => block.type === 'tool_result');
}

describe('a reply cut at the output limit', () => {
  it('does not run its tool calls, tells the model why and how to go on, and is not a stop', async () => {
    const write = recordingTool('write');
    const provider = createFakeProvider([
      {
        toolCalls: [{ name: 'write', invalidArguments: '{"path":"a.js","content":"cons' }],
        stopReason: 'max_tokens',
      },
      { toolCalls: [{ name: 'write', arguments: { path: 'a.js', content: 'part 1' } }] },
      { text: 'Done.' },
    ]);
    const options = loopOptions(provider, [write.tool], {
      limits: { maxSteps: 10, maxWallMs: 60_000, maxOutputTokens: 4096 },
    });
    const result = await runAgent(options);
    expect(result.outcome).toBe('completed');
    expect(write.calls).toEqual([{ path: 'a.js', content: 'part 1' }]);
    const told = resultsOf(provider.requests[1]?.messages.at(-1) as UserMessage);
    expect(told).toHaveLength(1);
    expect(told[0]).toMatchObject({ isError: true });
    expect(told[0]?.content).toMatch(/cut off at the output limit of 4096 tokens/);
    expect(told[0]?.content).toMatch(/edit/);
    expect(eventsOf(options.events, 'model.truncated')).toEqual([
      expect.objectContaining({ maxTokens: 4096, toolCalls: 1 }),
    ]);
  });

  it('runs none of several calls even when their JSON happens to parse', async () => {
    const read = recordingTool('read');
    const provider = createFakeProvider([
      {
        toolCalls: [
          { name: 'read', arguments: { path: 'a' } },
          { name: 'read', arguments: { path: 'b' } },
        ],
        stopReason: 'max_tokens',
      },
      { text: 'ok' },
    ]);
    await runAgent(loopOptions(provider, [read.tool]));
    expect(read.calls).toEqual([]);
    expect(resultsOf(provider.requests[1]?.messages.at(-1) as UserMessage)).toHaveLength(2);
  });

  it('asks a cut-off text reply to continue, and ends output_truncated after three in a row', async () => {
    const provider = createFakeProvider(() => ({
      text: 'Here is a very long expla',
      stopReason: 'max_tokens',
    }));
    const options = loopOptions(provider, []);
    const result = await runAgent(options);
    expect(result.outcome).toBe('output_truncated');
    expect(result.steps).toBe(3);
    const note = provider.requests[1]?.messages.at(-1) as UserMessage;
    expect(note.content[0]).toMatchObject({
      type: 'text',
      text: expect.stringMatching(/^\[harness\].*Continue/),
    });
  });

  it('resets the count after a complete reply', async () => {
    const steps = [
      { text: 'a', stopReason: 'max_tokens' as const },
      { text: 'b', stopReason: 'max_tokens' as const },
      { toolCalls: [{ name: 'read', arguments: {} }] },
      { text: 'c', stopReason: 'max_tokens' as const },
      { text: 'd', stopReason: 'max_tokens' as const },
      { text: 'finished' },
    ];
    const result = await runAgent(loopOptions(createFakeProvider(steps), [recordingTool('read').tool]));
    expect(result).toMatchObject({ outcome: 'completed', lastText: 'finished' });
  });
});

describe('empty replies', () => {
  it('gives a reasoning-only reply cut at the limit one continuation', async () => {
    const provider = createFakeProvider([
      {
        thinking: 'Let me think about this at great length…',
        stopReason: 'max_tokens',
        reasoningTokens: 4000,
      },
      { text: 'Answer.' },
    ]);
    const options = loopOptions(provider, []);
    const result = await runAgent(options);
    expect(result).toMatchObject({ outcome: 'completed', lastText: 'Answer.' });
    expect(eventsOf(options.events, 'model.nudged')).toEqual([
      expect.objectContaining({ reason: 'reasoning_only' }),
    ]);
    expect(JSON.stringify(provider.requests[1]?.messages.at(-1))).toMatch(/went to reasoning/);
  });

  it('nudges an empty reply after a harness note once, then takes the next empty reply as a stop', async () => {
    let turn = 0;
    const provider = createFakeProvider([{ text: '' }, { text: '' }]);
    const options = loopOptions(provider, [], {
      hooks: { beforeTurn: () => (turn++ === 0 ? { note: 'You have 5 minutes left.' } : {}) },
    });
    const result = await runAgent(options);
    expect(result.outcome).toBe('completed');
    expect(provider.requests).toHaveLength(2);
    expect(eventsOf(options.events, 'model.nudged')).toEqual([
      expect.objectContaining({ reason: 'empty_after_note' }),
    ]);
    const nudge = provider.requests[1]?.messages.at(-1) as UserMessage;
    expect(nudge).toEqual({
      role: 'user',
      content: [{ type: 'text', text: '[harness] Your reply was empty. Continue with your task.' }],
    });
  });

  it('takes a plain empty reply (no note, no reasoning) as a stop', async () => {
    const provider = createFakeProvider([{ text: '' }]);
    const result = await runAgent(loopOptions(provider, []));
    expect(result.outcome).toBe('completed');
    expect(provider.requests).toHaveLength(1);
  });
});

describe('harness notes', () => {
  it('go inside the last tool result, never as text right after tool results', async () => {
    const read = recordingTool('read', () => 'file contents');
    const provider = createFakeProvider([
      {
        toolCalls: [
          { name: 'read', arguments: { path: 'a' } },
          { name: 'read', arguments: { path: 'b' } },
        ],
      },
      { text: 'done' },
    ]);
    let turn = 0;
    await runAgent(
      loopOptions(provider, [read.tool], {
        hooks: { beforeTurn: () => (turn++ === 1 ? { note: 'Checkpoint soon.' } : {}) },
      }),
    );
    const last = provider.requests[1]?.messages.at(-1) as UserMessage;
    expect(last.content.map((block) => block.type)).toEqual(['tool_result', 'tool_result']);
    expect(resultsOf(last)[0]?.content).toBe('file contents');
    expect(resultsOf(last)[1]?.content).toBe('file contents\n\n[harness] Checkpoint soon.');
  });

  it('go in their own user message when the model stopped without tools', async () => {
    const provider = createFakeProvider([{ text: 'I am done.' }, { text: 'Now really.' }]);
    let returned = false;
    await runAgent(
      loopOptions(provider, [], {
        hooks: {
          beforeStop: () => {
            if (returned) return { stop: true };
            returned = true;
            return { stop: false, message: 'Commit first.' };
          },
        },
      }),
    );
    expect(provider.requests[1]?.messages.at(-1)).toEqual({
      role: 'user',
      content: [{ type: 'text', text: '[harness] Commit first.' }],
    });
  });
});

describe('refusals and paused turns', () => {
  it('ends the session refused, running nothing from the reply', async () => {
    const bash = recordingTool('bash');
    const provider = createFakeProvider([
      { toolCalls: [{ name: 'bash', arguments: { command: 'rm -rf /' } }], stopReason: 'refusal' },
    ]);
    const options = loopOptions(provider, [bash.tool]);
    const result = await runAgent(options);
    expect(result.outcome).toBe('refused');
    expect(result.reason).toMatch(/refused/);
    expect(bash.calls).toEqual([]);
    expect(eventsOf(options.events, 'model.refused')).toHaveLength(1);
  });

  it("uses the model's refusal text as the reason", async () => {
    const provider = createFakeProvider([{ refusal: "I can't help with that.", stopReason: 'refusal' }]);
    const result = await runAgent(loopOptions(provider, []));
    expect(result).toMatchObject({
      outcome: 'refused',
      reason: "the model refused: I can't help with that.",
    });
  });

  it('sends a paused turn back as it is to continue it', async () => {
    const provider = createFakeProvider([
      { text: 'Searching…', stopReason: 'pause_turn' },
      { text: 'Found it.' },
    ]);
    const result = await runAgent(loopOptions(provider, []));
    expect(result).toMatchObject({ outcome: 'completed', lastText: 'Found it.' });
    expect(provider.requests[1]?.messages.at(-1)).toMatchObject({ role: 'assistant' });
  });
});
