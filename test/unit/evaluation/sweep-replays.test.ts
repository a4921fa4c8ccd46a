import { describe, expect, it } from 'vitest';
import { eachAtMost, MAX_REPLAY_CONTEXTS, replayContexts } from '../../../evaluation/sweep-replays.js';

const GB = 1024 ** 3;

describe('replayContexts', () => {
  it('one context per idle core, as many as half the free memory holds, at most the cap, at least one', () => {
    expect(replayContexts({ cores: 2, load: 0.3, freeMemoryBytes: 8 * GB }, {})).toBe(2);
    expect(replayContexts({ cores: 8, load: 5, freeMemoryBytes: 8 * GB }, {})).toBe(3);
    expect(replayContexts({ cores: 2, load: 40, freeMemoryBytes: 8 * GB }, {})).toBe(1);
    expect(replayContexts({ cores: 16, load: 0, freeMemoryBytes: 1 * GB }, {})).toBe(2);
    expect(replayContexts({ cores: 64, load: 1, freeMemoryBytes: 64 * GB }, {})).toBe(MAX_REPLAY_CONTEXTS);
    expect(replayContexts({ cores: 4, load: 0, freeMemoryBytes: 100 * 1024 ** 2 }, {})).toBe(1);
  });

  it('NIGHTSHIFT_REPLAY_CONTEXTS overrides the machine; a bad value is refused by name', () => {
    const machine = { cores: 2, load: 0, freeMemoryBytes: 8 * GB };
    expect(replayContexts(machine, { NIGHTSHIFT_REPLAY_CONTEXTS: '6' })).toBe(6);
    expect(replayContexts(machine, { NIGHTSHIFT_REPLAY_CONTEXTS: '' })).toBe(2);
    expect(() => replayContexts(machine, { NIGHTSHIFT_REPLAY_CONTEXTS: 'lots' })).toThrow(
      /NIGHTSHIFT_REPLAY_CONTEXTS must be a whole number .* not "lots"/,
    );
    expect(() => replayContexts(machine, { NIGHTSHIFT_REPLAY_CONTEXTS: '0' })).toThrow(/not "0"/);
  });
});

describe('eachAtMost', () => {
  const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

  it('runs every item, never more than the limit at once, each runner on its own slot', async () => {
    let running = 0;
    let most = 0;
    const bySlot = new Map<number, number[]>();
    await eachAtMost([1, 2, 3, 4, 5, 6, 7], 3, async (item, slot) => {
      running += 1;
      most = Math.max(most, running);
      bySlot.set(slot, [...(bySlot.get(slot) ?? []), item]);
      await tick();
      running -= 1;
    });
    expect(most).toBe(3);
    expect([...bySlot.keys()].sort()).toEqual([0, 1, 2]);
    expect([...bySlot.values()].flat().sort()).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it('starts nothing after a failure and throws it once the started items ended', async () => {
    const started: number[] = [];
    const ended: number[] = [];
    const run = eachAtMost([1, 2, 3, 4, 5, 6], 2, async (item) => {
      started.push(item);
      await tick();
      if (item === 2) throw new Error('item 2 broke');
      await tick();
      ended.push(item);
    });
    await expect(run).rejects.toThrow('item 2 broke');
    expect(started).toEqual([1, 2]);
    expect(ended).toEqual([1]);
  });
});
