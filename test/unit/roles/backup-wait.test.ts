import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { untilBackedUp } from '../../../roles/backup-wait.js';

describe('untilBackedUp', () => {
  it('leaves no listener on the session signal once the backup is done, however many tools waited', async () => {
    const controller = new AbortController();
    const backup = Promise.resolve();
    for (let call = 0; call < 25; call += 1) await untilBackedUp(backup, controller.signal);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('removes the listener of a wait the stop ended', async () => {
    const controller = new AbortController();
    const waiting = untilBackedUp(new Promise<void>(() => undefined), controller.signal);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    controller.abort(new Error('worker stopping'));
    await expect(waiting).rejects.toThrow('worker stopping');
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('takes a backup already done over a stop already made', async () => {
    const controller = new AbortController();
    controller.abort(new Error('stopped'));
    await expect(untilBackedUp(Promise.resolve(), controller.signal)).resolves.toBeUndefined();
    await expect(
      untilBackedUp(Promise.reject(new Error('mirror failed')), controller.signal),
    ).rejects.toThrow('mirror failed');
  });
});
