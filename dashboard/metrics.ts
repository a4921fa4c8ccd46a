import type { Queue } from 'bullmq';
import type { Context } from 'hono';
import { moduleLogger } from '../core/log.js';
import { ACTIVE_STATUSES, type RunStore } from '../orchestrator/run/index.js';
import { NightshiftMetrics } from '../workers/metrics.js';

const log = moduleLogger('dashboard/metrics');

/** Events read per stream request while catching up. */
const PAGE = 500;

/**
 * The dashboard's view of the metrics: the whole install's, derived from every run's event log (read on from where
 * the last scrape stopped) plus queue depths, active runs and busy lanes read from Redis at scrape time. A worker's
 * `/metrics` counts only what that worker did; sum one or the other, not both.
 */
export class DashboardMetrics {
  private readonly metrics: NightshiftMetrics;
  /** The last stream id read of each run. */
  private readonly cursors = new Map<string, string>();
  /** Runs that were not active when their log was read to its end, with their `updatedAt` then: skipped until it moves. */
  private readonly settled = new Map<string, string>();
  private reading: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: RunStore,
    queues: readonly Queue[],
  ) {
    this.metrics = new NightshiftMetrics({ store, queues });
  }

  /** `GET /metrics`: Prometheus text (behind the dashboard's token like every route). */
  handle = async (c: Context): Promise<Response> => {
    try {
      const text = await this.scrape();
      return c.body(text, 200, { 'Content-Type': this.metrics.registry.contentType });
    } catch (error) {
      log.warn({ err: error }, 'metrics could not be collected');
      return c.text('metrics could not be collected (is Redis reachable?)\n', 503);
    }
  };

  /** Reads the events appended since the last scrape, then renders every metric. */
  async scrape(): Promise<string> {
    // One catch-up at a time: two scrapes at once must not count the same events twice.
    this.reading = this.reading.catch(() => undefined).then(() => this.catchUp());
    await this.reading;
    return this.metrics.text();
  }

  private async catchUp(): Promise<void> {
    for (const run of await this.store.listRuns()) {
      if (this.settled.get(run.id) === run.updatedAt) continue;
      let cursor = this.cursors.get(run.id);
      for (;;) {
        const page = await this.store.readEvents(run.id, {
          ...(cursor ? { after: cursor } : {}),
          count: PAGE,
        });
        for (const stored of page) this.metrics.observe(stored.event);
        cursor = page.at(-1)?.id ?? cursor;
        if (page.length < PAGE) break;
      }
      if (cursor) this.cursors.set(run.id, cursor);
      // Not active before this read began: nothing appends to its log until the run changes again (a resume).
      if (!ACTIVE_STATUSES.includes(run.status)) this.settled.set(run.id, run.updatedAt);
    }
  }
}
