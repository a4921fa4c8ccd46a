import type { AgentEvent } from '../agent/events.js';
import { moduleLogger } from '../core/log.js';
import { redactSecrets } from '../core/secrets.js';
import { type RunEvent, wrapAgentEvent } from '../orchestrator/events.js';
import type { RunStore } from '../orchestrator/run/index.js';
import type { HarnessNotice } from '../roles/types.js';

const log = moduleLogger('workers/event-forwarder');

/** Longest string kept in an event that goes to Redis; the transcript keeps everything. */
const MAX_EVENT_STRING = 600;

/**
 * Forwards a session's agent events (and the harness notices the log keeps) to the run's event log, in order,
 * without ever blocking the loop: text deltas stay out (the stream would be all deltas), long strings are cut,
 * secrets redacted.
 */
export class EventForwarder {
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: RunStore,
    private readonly runId: string,
    private readonly seq: number,
    private readonly secrets: readonly string[],
    private readonly clock: () => number = Date.now,
  ) {}

  /** Queues one event (sync; never throws). */
  push = (event: AgentEvent): void => {
    if (event.type === 'text.delta') return;
    this.append(wrapAgentEvent(this.runId, this.seq, event));
  };

  /**
   * Queues a harness notice the run's log keeps: replays of recorded checks (`check.replayed`, for the metrics).
   * The others reach the log through the session's result (violations, ungrounded passes) or not at all.
   */
  notice = (notice: HarnessNotice): void => {
    if (notice.type !== 'check.replayed') return;
    const { where, passed, failed } = notice;
    const at = new Date(this.clock()).toISOString();
    this.append({ type: 'check.replayed', runId: this.runId, at, seq: this.seq, where, passed, failed });
  };

  private append(event: RunEvent): void {
    const slim = JSON.parse(redactSecrets(JSON.stringify(cutStrings(event)), this.secrets)) as RunEvent;
    this.chain = this.chain
      .then(() => this.store.appendEvent(this.runId, slim).then(() => undefined))
      .catch((error) =>
        log.warn({ err: error, runId: this.runId }, `could not append a ${event.type} event`),
      );
  }

  /** Resolves when every queued event is written. */
  flush(): Promise<void> {
    return this.chain;
  }
}

function cutStrings(value: unknown): unknown {
  if (typeof value === 'string') {
    return value.length > MAX_EVENT_STRING
      ? `${value.slice(0, MAX_EVENT_STRING)}… [${value.length} chars]`
      : value;
  }
  if (Array.isArray(value)) return value.map(cutStrings);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, cutStrings(inner)]));
  }
  return value;
}
