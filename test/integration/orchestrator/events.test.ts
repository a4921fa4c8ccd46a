import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunEvent, type StoredRunEvent, wrapAgentEvent } from '../../../orchestrator/events.js';
import { RunStore } from '../../../orchestrator/run/index.js';
import { connect, deleteKeys, newRun, uniquePrefix } from './redis-helpers.js';

const prefix = uniquePrefix();
let redis: Redis;
let store: RunStore;

beforeAll(() => {
  redis = connect();
  store = new RunStore(redis, { prefix, eventLogMaxLength: 50 });
});

afterAll(async () => {
  await store.close();
  await deleteKeys(redis, prefix);
  redis.disconnect();
});

const queued = (runId: string, seq: number): RunEvent => ({
  type: 'session.queued',
  runId,
  at: new Date().toISOString(),
  seq,
  jobId: `${runId}-${seq}`,
  role: 'generator',
  kind: 'generate',
  featureIds: ['F-001'],
});

describe('event log', () => {
  it('appends, reads in order, reads after an id and reads the latest', async () => {
    const run = await store.createRun(newRun());
    const ids: string[] = [];
    for (let seq = 1; seq <= 5; seq++) ids.push(await store.appendEvent(run.id, queued(run.id, seq)));
    const all = await store.readEvents(run.id);
    expect(all.map(({ event }) => event.type)).toEqual(['run.created', ...Array(5).fill('session.queued')]);
    const after = await store.readEvents(run.id, { after: ids[2], count: 10 });
    expect(after.map(({ event }) => (event.type === 'session.queued' ? event.seq : 0))).toEqual([4, 5]);
    const latest = await store.readEvents(run.id, { latest: true, count: 2 });
    expect(latest.map(({ id }) => id)).toEqual(ids.slice(3));
    expect(await store.readEvents(run.id, { after: ids[4] })).toEqual([]);
  });

  it('validates events on append', async () => {
    const run = await store.createRun(newRun());
    const bad = { ...queued(run.id, 1), role: 'reviewer' } as unknown as RunEvent;
    await expect(store.appendEvent(run.id, bad)).rejects.toThrow(/role/);
    await expect(
      store.appendEvent(run.id, { type: 'nope', runId: run.id, at: 'x' } as unknown as RunEvent),
    ).rejects.toThrow();
    expect(await store.eventCount(run.id)).toBe(1);
  });

  it('skips entries that fail validation on read', async () => {
    const run = await store.createRun(newRun());
    await redis.xadd(
      store.keys(run.id).events,
      '*',
      'e',
      JSON.stringify({ type: 'run.status', runId: run.id }),
    );
    await redis.xadd(store.keys(run.id).events, '*', 'e', 'not json');
    await store.appendEvent(run.id, queued(run.id, 1));
    expect((await store.readEvents(run.id)).map(({ event }) => event.type)).toEqual([
      'run.created',
      'session.queued',
    ]);
  });

  it('wraps agent events with the run id and session seq', async () => {
    const run = await store.createRun(newRun());
    const agent = wrapAgentEvent(run.id, 3, {
      type: 'tool.started',
      at: new Date().toISOString(),
      sessionId: 's1',
      step: 1,
      callId: 'c1',
      name: 'bash',
      arguments: { command: 'ls' },
    });
    await store.appendEvent(run.id, agent);
    const [, stored] = await store.readEvents(run.id);
    expect(stored?.event).toMatchObject({
      type: 'agent',
      runId: run.id,
      seq: 3,
      event: { type: 'tool.started', name: 'bash' },
    });
  });

  it('keeps the stream bounded', async () => {
    const run = await store.createRun(newRun());
    for (let seq = 1; seq <= 400; seq++) await store.appendEvent(run.id, queued(run.id, seq));
    const length = await store.eventCount(run.id);
    // MAXLEN ~ trims whole stream nodes (100 entries by default), so the bound is approximate.
    expect(length).toBeGreaterThanOrEqual(50);
    expect(length).toBeLessThanOrEqual(150);
    const newest = await store.readEvents(run.id, { latest: true, count: 1 });
    expect(newest[0]?.event).toMatchObject({ seq: 400 });
  });

  it('delivers live events to subscribers until they unsubscribe', async () => {
    const run = await store.createRun(newRun());
    const otherRun = await store.createRun(newRun());
    const received: StoredRunEvent[] = [];
    const second: StoredRunEvent[] = [];
    const unsubscribe = await store.subscribeEvents(run.id, (event) => received.push(event));
    const unsubscribeSecond = await store.subscribeEvents(run.id, (event) => second.push(event));
    const first = await store.appendEvent(run.id, queued(run.id, 1));
    await store.appendEvent(otherRun.id, queued(otherRun.id, 1));
    await store.setStatus(run.id, 'initializing');
    await waitFor(() => received.length >= 2);
    expect(received[0]).toEqual({
      id: first,
      event: expect.objectContaining({ type: 'session.queued', runId: run.id }),
    });
    expect(received[1]?.event).toMatchObject({ type: 'run.status', status: 'initializing' });
    // The ids match the stream, so a reader can join history and live events without gaps or duplicates.
    const history = await store.readEvents(run.id);
    expect(received.map(({ id }) => id)).toEqual(history.slice(1).map(({ id }) => id));
    await unsubscribe();
    await store.appendEvent(run.id, queued(run.id, 2));
    await waitFor(() => second.length >= 3);
    expect(received).toHaveLength(2);
    await unsubscribeSecond();
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
