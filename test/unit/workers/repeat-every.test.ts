import { describe, expect, it } from 'vitest';
import { repeatEvery } from '../../../workers/worker.js';

const until = async (condition: () => boolean) => {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
};

describe('repeatEvery', () => {
  it('runs the task again after one that rejects or throws, never two at once', async () => {
    let runs = 0;
    let running = 0;
    let most = 0;
    const stop = repeatEvery(1, async () => {
      runs += 1;
      running += 1;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 10));
      running -= 1;
      if (runs === 1) throw new Error('the first chore fails');
      if (runs === 2) return Promise.reject(new Error('the second one rejects'));
      return undefined;
    });
    await until(() => runs >= 4);
    await stop();
    expect(most).toBe(1);
  });

  it('stops: waits for the task in progress, and starts none after', async () => {
    let finished = 0;
    let started = 0;
    const stop = repeatEvery(1, async () => {
      started += 1;
      await new Promise((resolve) => setTimeout(resolve, 30));
      finished += 1;
    });
    await until(() => started === 1);
    await stop();
    expect(finished).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(started).toBe(1);
  });
});
