import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import { z } from 'zod';
import type { StoredRunEvent } from '../orchestrator/events.js';
import type { RunStore } from '../orchestrator/run/index.js';
import { parseParam, RunIdParam } from './api.js';

/** Events replayed to a new subscriber before live ones. */
export const REPLAY_EVENTS = 200;
/** Interval of heartbeat comments, so proxies and browsers keep an idle stream open. */
export const HEARTBEAT_MS = 15_000;

const StreamId = z.string().regex(/^\d+-\d+$/, 'expected a stream id like 1700000000000-0');
const EventsQuery = z.object({
  after: StreamId.optional(),
  agent: z.enum(['0', '1']).optional(),
  /** How many recent events to replay on a first connect (default REPLAY_EVENTS). */
  replay: z.coerce.number().int().min(0).max(1000).optional(),
});

/** Orders two Redis stream ids (`<ms>-<n>`): negative when `a` is older. */
export function compareStreamIds(a: string, b: string): number {
  const [am = 0, an = 0] = a.split('-').map(Number);
  const [bm = 0, bn = 0] = b.split('-').map(Number);
  return am === bm ? an - bn : am - bm;
}

/**
 * `GET /api/runs/:id/events`: server-sent events. Subscribes first, then replays the recent events (`?replay=N`,
 * default 200; or those after
 * `Last-Event-ID` / `?after=` on a reconnect), sends an `event: live` marker, then streams live ones, dropping any
 * already sent. Agent-loop events
 * (very chatty) are left out unless `?agent=1`.
 */
export async function runEventsStream(
  c: Context,
  store: RunStore,
  heartbeatMs = HEARTBEAT_MS,
): Promise<Response> {
  const runId = parseParam(RunIdParam, c.req.param('id'), 'run id');
  const query = parseParam(EventsQuery, c.req.query(), 'events query');
  const after =
    query.after ??
    parseParam(StreamId.optional(), c.req.header('last-event-id') || undefined, 'Last-Event-ID');
  const withAgent = query.agent === '1';
  await store.getRun(runId);
  return streamSSE(c, async (stream) => {
    const queue: StoredRunEvent[] = [];
    let wake: (() => void) | undefined;
    let closed = false;
    const unsubscribe = await store.subscribeEvents(runId, (event) => {
      queue.push(event);
      wake?.();
    });
    stream.onAbort(() => {
      closed = true;
      wake?.();
    });
    let last = after;
    const send = async (stored: StoredRunEvent) => {
      if (last !== undefined && compareStreamIds(stored.id, last) <= 0) return;
      last = stored.id;
      if (stored.event.type === 'agent' && !withAgent) return;
      await stream.writeSSE({ event: 'run', id: stored.id, data: JSON.stringify(stored) });
    };
    try {
      await stream.writeSSE({ event: 'ready', data: '{}', retry: 2000 });
      const count = query.replay ?? REPLAY_EVENTS;
      const replay = after
        ? await store.readEvents(runId, { after, count: 1000 })
        : count > 0
          ? await store.readEvents(runId, { latest: true, count })
          : [];
      for (const stored of replay) await send(stored);
      await stream.writeSSE({ event: 'live', data: JSON.stringify({ last: last ?? null }) });
      while (!closed) {
        while (queue.length > 0 && !closed) await send(queue.shift()!);
        const woken = await new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => resolve(false), heartbeatMs);
          wake = () => {
            clearTimeout(timer);
            resolve(true);
          };
        });
        wake = undefined;
        if (!woken && !closed) await stream.write(': heartbeat\n\n');
      }
    } finally {
      await unsubscribe();
    }
  });
}
