import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import type { Queue } from 'bullmq';
import { Hono } from 'hono';
import { NightshiftError } from '../core/errors.js';
import { moduleLogger } from '../core/log.js';
import type { RunStore } from '../orchestrator/run/index.js';
import { apiRoutes, errorResponse } from './api.js';
import { type RunControls, storeRunControls } from './controls.js';
import { serveCheckScreenshot, serveEvidence } from './evidence.js';
import { DashboardMetrics } from './metrics.js';
import type { PlanDesk } from './plan-desk.js';
import { planRoutes } from './plans-api.js';
import { QUEUES_PATH, queuesRoutes } from './queues.js';
import {
  assertTokenPolicy,
  loopbackHostGuard,
  sameOriginGuard,
  securityHeaders,
  tokenGuard,
} from './security.js';
import { runEventsStream } from './sse.js';
import { ensureUiBundle, loadUiBundle, UI_DIR } from './ui-bundle.js';
import type { NextScheduledStart } from './views.js';

const log = moduleLogger('dashboard/server');

/** Options of createDashboardServer. */
export interface DashboardServerOptions {
  /** Where runs are read from. */
  store: RunStore;
  /** How runs are changed (default: storeRunControls(store), which only changes the store). */
  controls?: RunControls;
  /** The session queue(s) shown read-only by bull-board at `/queues` (none: `/queues` says so). */
  queue?: Queue | readonly Queue[];
  /** Interface to bind (default 127.0.0.1). Anything but loopback requires `token`. */
  host?: string;
  /** Port (default 7070; 0 = any free port). */
  port?: number;
  /** Required token (NIGHTSHIFT_DASHBOARD_TOKEN); checked on every request when set. */
  token?: string;
  /** The data dir (transcripts, evidence). */
  dataDir: string;
  /** Next scheduled start of a run, when schedules exist. */
  nextScheduledStart?: NextScheduledStart;
  /** Workers connected to the session queue (shown on active runs; absent: unknown). */
  connectedWorkers?: () => Promise<number | null>;
  /** Heartbeat interval of the event streams (default 15 s). */
  heartbeatMs?: number;
  /** The new-run form's planner sessions (`/api/plans`, `/new`); absent: the form says planning is unavailable. */
  planning?: PlanDesk;
}

/** A running dashboard. */
export interface DashboardServer {
  /** Base URL, e.g. `http://127.0.0.1:7070`. */
  url: string;
  host: string;
  port: number;
  /** Stops listening and ends open event streams. The store and queue belong to the caller. */
  close(): Promise<void>;
}

/** The port is taken or the address cannot be bound. */
export class DashboardListenError extends NightshiftError {
  constructor(host: string, port: number, cause: unknown) {
    super('DASHBOARD_LISTEN', `The dashboard cannot listen on ${host}:${port}: ${(cause as Error).message}`, {
      hint: 'Pick another --port, or stop what is using it.',
      cause,
      exitCode: 2,
    });
  }
}

/** Builds the hono app (exported for tests that call `app.request` without a socket). */
export async function createDashboardApp(options: DashboardServerOptions): Promise<Hono> {
  const host = options.host ?? '127.0.0.1';
  assertTokenPolicy(host, options.token);
  await ensureUiBundle(UI_DIR);
  const assets = await loadUiBundle();
  // Not strict: `/queues/` (the UI's link, and bull-board's own base href) and `/queues` are the same page.
  const app = new Hono({ strict: false });
  app.onError(errorResponse);
  app.use('*', securityHeaders());
  if (options.token) app.use('*', tokenGuard(options.token));
  else app.use('*', loopbackHostGuard());
  app.use('*', sameOriginGuard());

  const api = apiRoutes({
    store: options.store,
    controls: options.controls ?? storeRunControls(options.store),
    dataDir: options.dataDir,
    nextScheduledStart: options.nextScheduledStart,
    ...(options.connectedWorkers ? { connectedWorkers: options.connectedWorkers } : {}),
  });
  api.onError(errorResponse);
  app.get('/api/runs/:id/events', (c) => runEventsStream(c, options.store, options.heartbeatMs));
  app.get('/api/runs/:id/evidence/*', (c) => serveEvidence(c, options.dataDir));
  app.get('/api/runs/:id/check-screenshots/:name', (c) => serveCheckScreenshot(c, options.dataDir));
  app.route('/api/plans', planRoutes(options.planning));
  app.route('/api', api);
  app.all('/api/*', (c) =>
    c.json({ error: 'not_found', message: `No API route ${c.req.method} ${c.req.path}.` }, 404),
  );

  const queues =
    options.queue === undefined
      ? []
      : Array.isArray(options.queue)
        ? options.queue
        : [options.queue as Queue];
  // Prometheus text, behind the same token as the API (a scrape config sends it as a bearer token).
  app.get('/metrics', new DashboardMetrics(options.store, queues).handle);
  if (queues.length > 0) app.route(QUEUES_PATH, queuesRoutes(queues));
  else app.get(`${QUEUES_PATH}/*`, (c) => c.text('No queue is connected to this dashboard.', 404));

  const index = assets.get('/index.html')!;
  const page = (body: Uint8Array, contentType: string, cache: string) =>
    new Response(body as BodyInit, { headers: { 'Content-Type': contentType, 'Cache-Control': cache } });
  app.get('/assets/*', (c) => {
    const asset = assets.get(c.req.path);
    return asset ? page(asset.body, asset.contentType, 'public, max-age=31536000, immutable') : c.notFound();
  });
  for (const route of ['/', '/runs/:id', '/new'])
    app.get(route, () => page(index.body, index.contentType, 'no-cache'));
  return app;
}

/** Starts the dashboard: JSON API, SSE, web UI and bull-board on one port. */
export async function createDashboardServer(options: DashboardServerOptions): Promise<DashboardServer> {
  const host = options.host ?? '127.0.0.1';
  const app = await createDashboardApp(options);
  const server = createAdaptorServer({ fetch: app.fetch });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) => reject(new DashboardListenError(host, options.port ?? 7070, error)));
    server.listen(options.port ?? 7070, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  const url = `http://${urlHost}:${port}`;
  log.info({ url, auth: options.token ? 'token' : 'loopback only' }, 'dashboard listening');
  return {
    url,
    host,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        if ('closeAllConnections' in server) server.closeAllConnections();
      }),
  };
}
