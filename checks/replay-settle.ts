/**
 * How a replay waits for the app after an action. Like the evaluator's tools (agent/tools/browser-page.ts), it
 * waits for the requests the action started and then one rendered frame; unlike them it skips the frame after an
 * action that started no request (the next action's own actionability wait covers a pure re-render) and owes it
 * instead: `catchUp` renders it before a navigation and before the expectations, so a request an action starts a
 * frame late (an effect after a render) is neither cut off by the next page nor missed by the expectations.
 */

import type { Page, Request } from 'playwright-core';
import { nextFrame } from '../agent/tools/browser-page.js';

/** Longest a replay waits for the requests of one action, in ms (as the evaluator's tools). */
export const REPLAY_SETTLE_MAX_MS = 3_000;

/** Settles the actions of one replay, keeping the time spent waiting. */
export class ReplaySettler {
  /** Milliseconds spent waiting for requests and frames after the actions. */
  waitedMs = 0;
  private readonly trackers = new Map<Page, RequestTracker>();
  /** The last action was not followed by a rendered frame yet. */
  private frameOwed = false;

  /** Runs the action on the page, then waits for the requests it started (and a frame, when there were any). */
  async act(page: Page, action: () => Promise<unknown>): Promise<void> {
    const requests = this.tracker(page);
    const before = requests.started;
    await action();
    if (requests.started === before) {
      this.frameOwed = true;
      return;
    }
    await this.settle(page);
  }

  /** Renders the frame an earlier action skipped (and waits for what it started), before leaving or judging the page. */
  async catchUp(page: Page): Promise<void> {
    if (this.frameOwed) await this.settle(page);
  }

  /** Stops watching the pages' requests. */
  dispose(): void {
    for (const tracker of this.trackers.values()) tracker.stop();
    this.trackers.clear();
  }

  private async settle(page: Page): Promise<void> {
    const started = performance.now();
    this.frameOwed = false;
    const requests = this.tracker(page);
    const deadline = Date.now() + REPLAY_SETTLE_MAX_MS;
    // Loop: a finished request often starts the next one (POST, then GET the list).
    do {
      await requests.idle(deadline);
      await nextFrame(page);
    } while (requests.pending > 0 && Date.now() < deadline);
    this.waitedMs += performance.now() - started;
  }

  private tracker(page: Page): RequestTracker {
    let tracker = this.trackers.get(page);
    if (!tracker) {
      tracker = new RequestTracker(page);
      this.trackers.set(page, tracker);
    }
    return tracker;
  }
}

/** The requests of one page for the whole replay (event streams left out: they never finish). */
class RequestTracker {
  started = 0;
  private readonly inFlight = new Set<Request>();
  private wake: (() => void) | undefined;
  private readonly onStart = (request: Request) => {
    if (request.resourceType() === 'eventsource') return;
    this.started += 1;
    this.inFlight.add(request);
  };
  private readonly onEnd = (request: Request) => {
    this.inFlight.delete(request);
    if (this.inFlight.size === 0) this.wake?.();
  };

  constructor(private readonly page: Page) {
    page.on('request', this.onStart);
    page.on('requestfinished', this.onEnd);
    page.on('requestfailed', this.onEnd);
  }

  get pending(): number {
    return this.inFlight.size;
  }

  /** Resolves when no request is in flight, or at the deadline. */
  idle(deadline: number): Promise<void> {
    const left = deadline - Date.now();
    if (this.inFlight.size === 0 || left <= 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, left);
      const wake = () => done();
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = wake;
    });
  }

  stop(): void {
    this.page.off('request', this.onStart);
    this.page.off('requestfinished', this.onEnd);
    this.page.off('requestfailed', this.onEnd);
    this.wake?.();
  }
}
