/** The context budget: the provider's own counts against the model's window, replies sized to fit, old snapshots elided. */
import { describe, expect, it } from 'vitest';
import { type LoopState, runAgent } from '../../../agent/loop.js';
import { createFakeProvider } from '../../../testkit/fake-provider.js';
import { eventsOf, loopOptions, recordingTool, settingsWith } from './helpers.js';

describe('context use from reported usage', () => {
  it('shows hooks the reported prompt plus reply tokens against the window', async () => {
    const seen: LoopState['context'][] = [];
    const read = recordingTool('read', () => 'x'.repeat(300));
    const provider = createFakeProvider(
      [
        {
          toolCalls: [{ name: 'read' }],
          usage: { inputTokens: 1_000, cacheReadTokens: 19_000, outputTokens: 500 },
        },
        { text: 'done', usage: { inputTokens: 100, outputTokens: 10 } },
      ],
      { settings: settingsWith(100_000, 8_000) },
    );
    await runAgent(
      loopOptions(provider, [read.tool], {
        hooks: {
          beforeTurn: (state) => {
            seen.push(state.context);
            return {};
          },
        },
      }),
    );
    expect(seen[0]?.windowTokens).toBe(100_000);
    // After the first reply: 20,000 prompt (uncached + cached) + 500 output + ~100 for the new tool result.
    expect(seen[1]?.usedTokens).toBeGreaterThan(20_500);
    expect(seen[1]?.usedTokens).toBeLessThan(20_700);
    expect(seen[1]?.share).toBeCloseTo((seen[1]?.usedTokens ?? 0) / 100_000, 10);
  });

  it("asks for the model's output limit, lowered to what is left of the window", async () => {
    const provider = createFakeProvider(
      [{ toolCalls: [{ name: 'read' }], usage: { inputTokens: 5_000, outputTokens: 100 } }, { text: 'done' }],
      { settings: settingsWith(8_192, 4_096, false) },
    );
    await runAgent(loopOptions(provider, [recordingTool('read').tool]));
    expect(provider.requests[0]?.maxTokens).toBe(4_096);
    const second = provider.requests[1]?.maxTokens ?? 0;
    expect(second).toBeLessThan(3_000);
    expect(second).toBeGreaterThan(2_500);
  });

  it('ends context_overflow instead of sending a request that cannot fit', async () => {
    const provider = createFakeProvider(
      [{ toolCalls: [{ name: 'read' }], usage: { inputTokens: 7_900, outputTokens: 100 } }],
      { settings: settingsWith(8_192, 4_096) },
    );
    const result = await runAgent(loopOptions(provider, [recordingTool('read').tool]));
    expect(result.outcome).toBe('context_overflow');
    expect(result.reason).toMatch(/context window is full: about \d+ of 8192 tokens/);
    expect(provider.requests).toHaveLength(1);
  });
});

describe('eliding old results of stale tools', () => {
  it('elides all but the newest snapshots at once past the threshold, and only then', async () => {
    const snapshot = recordingTool('browser_snapshot', () => `- page ${'y'.repeat(3_000)}`);
    const click = recordingTool('browser_click');
    let turn = 0;
    const provider = createFakeProvider(
      (request) => {
        turn++;
        if (turn > 6) return { text: 'verdict submitted' };
        // Grow the reported prompt with the conversation, so the share crosses 50 % on the way.
        const bytes = Buffer.byteLength(JSON.stringify(request.messages));
        const name = turn % 2 === 0 ? 'browser_click' : 'browser_snapshot';
        return { toolCalls: [{ name }], usage: { inputTokens: Math.ceil(bytes / 3), outputTokens: 20 } };
      },
      { settings: settingsWith(6_000, 1_024) },
    );
    const options = loopOptions(provider, [snapshot.tool, click.tool], {
      contextBudget: { elidableTools: ['browser_snapshot'], elideAt: 0.5, keepLast: 1 },
    });
    await runAgent(options);
    const elided = eventsOf(options.events, 'context.elided');
    expect(elided.length).toBeGreaterThan(0);
    const last = JSON.stringify(provider.requests.at(-1)?.messages);
    expect(last.match(/elided by the harness/g)?.length).toBe(2);
    expect(last.match(/- page y/g)?.length).toBe(1);
    // Click results are never elided.
    expect(last.match(/"content":"ok"/g)?.length).toBe(3);
    // Between elisions the prefix stays stable: each request extends the one before it, except at one.
    const bodies = provider.requests.map((request) => JSON.stringify(request.messages).slice(0, -1));
    const breaks = bodies.slice(1).filter((body, index) => !body.startsWith(bodies[index] as string));
    expect(breaks.length).toBe(elided.length);
  });
});

describe('images in the estimate', () => {
  it('count at a flat rate, not by the size of their base64', async () => {
    const seen: number[] = [];
    const shot = recordingTool(
      'browser_take_screenshot',
      () =>
        ({
          content: 'saved',
          images: [{ mediaType: 'image/png', base64: 'A'.repeat(300_000) }],
        }) as never,
    );
    const provider = createFakeProvider(
      [
        { toolCalls: [{ name: 'browser_take_screenshot' }], usage: { inputTokens: 2_000, outputTokens: 50 } },
        { text: 'ok' },
      ],
      { settings: settingsWith(200_000, 8_000) },
    );
    await runAgent(
      loopOptions(provider, [shot.tool], {
        hooks: {
          beforeTurn: (state) => {
            seen.push(state.context.usedTokens);
            return {};
          },
        },
      }),
    );
    // 2,050 reported + the new result (~1,600 for the image, a little text), not 100,000 for its base64.
    expect(seen[1]).toBeGreaterThan(3_600);
    expect(seen[1]).toBeLessThan(4_000);
  });
});
