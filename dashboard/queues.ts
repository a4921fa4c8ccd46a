import { createRequire } from 'node:module';
import path from 'node:path';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { HonoAdapter } from '@bull-board/hono';
import { serveStatic } from '@hono/node-server/serve-static';
import type { Queue } from 'bullmq';
import { Hono } from 'hono';

/** Where bull-board is mounted. */
export const QUEUES_PATH = '/queues';

/**
 * bull-board for `queues`, read-only: its adapter hides and refuses job actions, and every non-GET request under
 * `/queues` is refused here too. Its UI is bundled in @bull-board/ui and served locally (works offline).
 */
export function queuesRoutes(queues: readonly Queue[]): Hono {
  const adapter = new HonoAdapter(serveStatic);
  adapter.setBasePath(QUEUES_PATH);
  const uiBasePath = path.dirname(createRequire(import.meta.url).resolve('@bull-board/ui/package.json'));
  createBullBoard({
    queues: queues.map((queue) => new BullMQAdapter(queue, { readOnlyMode: true })),
    serverAdapter: adapter,
    options: { uiBasePath, uiConfig: { boardTitle: 'nightshift queues' } },
  });
  const app = new Hono();
  app.use('*', async (c, next) => {
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
      return c.json({ error: 'read_only', message: 'The queue board is read-only.' }, 405);
    }
    await next();
  });
  app.route('/', adapter.registerPlugin());
  return app;
}
