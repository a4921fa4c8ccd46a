import { moduleLogger } from '../core/log.js';
import { type AttemptResult, retryAfterMsFromHeaders, withRetries } from '../core/retry.js';
import type { Webhook } from './config.js';
import type { RunEvent } from './events.js';
import { closeWindowOnStatusChange } from './nightly.js';
import type { Orchestrator, StatusListener } from './orchestrator.js';
import type { RunRecord } from './run/run-state.js';
import { formatNotification, type Notification, statusNotificationType, wants } from './webhook-format.js';

const log = moduleLogger('orchestrator/notifications');

/**
 * How failed webhook deliveries are retried (core/retry.ts): `attempts` in all, about baseDelayMs, 2×, 4×…
 * apart (with jitter, and never sooner than the receiver's retry-after).
 */
export interface RetryPolicy {
  attempts: number;
  baseDelayMs: number;
}

/** Default: 3 attempts, about 2 s then 4 s apart. */
export const DEFAULT_RETRY: RetryPolicy = { attempts: 3, baseDelayMs: 2_000 };

/** Longest wait between two deliveries: a receiver asking for longer gets no retry. */
const MAX_WEBHOOK_DELAY_MS = 60_000;
/** Default time limit of one delivery attempt. */
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 5_000;

/** What createStatusListener needs. */
export interface NotifierOptions {
  /** The orchestrator parts used: the store (events, state), Redis + prefix (the window), the clock. */
  orchestrator: Pick<Orchestrator, 'redis' | 'prefix' | 'store' | 'now'>;
  /** Webhooks of a run; default: the run config's `notifications.webhooks`. */
  webhooks?: (run: RunRecord) => readonly Webhook[];
  /** HTTP client (default: the global fetch). */
  fetch?: typeof fetch;
  retry?: RetryPolicy;
  /** Time limit of one attempt (default 5 s). */
  timeoutMs?: number;
}

/** A StatusListener that also takes run events, and can be drained before the process exits. */
export interface Notifier extends StatusListener {
  /**
   * Sends notifications for events a session produced (the worker passes `recordSessionResult`'s events):
   * the `feature.regressed` ones become one regression notification, each question asked or answered one of its
   * own. Returns at once.
   */
  notifyEvents(run: RunRecord, events: readonly RunEvent[]): void;
  /** Resolves when every delivery started so far (retries included) has succeeded or finally failed. */
  flush(): Promise<void>;
  /** Deliveries still in progress. */
  pending(): number;
}

/**
 * The orchestrator's `onStatusChange`: closes a scheduled window when the change ends it (appending its
 * `nightly.summary`), then posts webhooks for finished / failed / paused runs and the summary. Deliveries run in the
 * background with retries and never throw; the listener returns once the window is closed (a few Redis calls),
 * not when the webhooks answered. A delivery that finally fails appends a `notification.failed` event.
 */
export function createStatusListener(options: NotifierOptions): Notifier {
  const { orchestrator } = options;
  const webhooksOf = options.webhooks ?? ((run: RunRecord) => run.config.notifications.webhooks);
  const deliver = deliverer(options);
  const inFlight = new Set<Promise<void>>();

  const notify = (notification: Notification) => {
    for (const webhook of webhooksOf(notification.run)) {
      if (!wants(webhook, notification.type)) continue;
      const delivery = deliver(webhook, notification).finally(() => inFlight.delete(delivery));
      inFlight.add(delivery);
    }
  };

  const listener = async (before: RunRecord, after: RunRecord): Promise<void> => {
    const summary = await closeWindowOnStatusChange(orchestrator, before, after);
    const type = statusNotificationType(after);
    const at = orchestrator.now().toISOString();
    try {
      if (type) notify({ type, run: after, at });
      if (summary) {
        const { type: _type, runId: _runId, at: _at, ...fields } = summary;
        notify({ type: 'nightly.summary', run: after, summary: fields, at: summary.at });
      }
    } catch (error) {
      log.warn({ err: error, runId: after.id }, 'could not start webhook deliveries');
    }
  };

  return Object.assign(listener, {
    notifyEvents(run: RunRecord, events: readonly RunEvent[]) {
      const regressions = events.flatMap((event) =>
        event.type === 'feature.regressed' ? [{ featureId: event.featureId, issues: event.issues }] : [],
      );
      try {
        for (const event of events) {
          if (event.type === 'question.asked' || event.type === 'question.answered')
            notify({ type: event.type, run, question: event.question, at: event.at });
        }
        if (regressions.length === 0) return;
        notify({ type: 'feature.regressed', run, regressions, at: orchestrator.now().toISOString() });
      } catch (error) {
        log.warn({ err: error, runId: run.id }, 'could not start webhook deliveries');
      }
    },
    async flush() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
    pending: () => inFlight.size,
  });
}

/** One webhook delivery with retries; resolves either way, appending `notification.failed` on the final failure. */
function deliverer(options: NotifierOptions) {
  const retry = options.retry ?? DEFAULT_RETRY;
  const timeoutMs = options.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS;
  const { store, now } = options.orchestrator;
  return async (webhook: Webhook, notification: Notification): Promise<void> => {
    const target = safeOrigin(webhook.url);
    const runId = notification.run.id;
    let error = 'not attempted';
    let attempts = 0;
    try {
      const body = JSON.stringify(formatNotification(notification, webhook.format));
      const outcome = await withRetries(
        () => postOnce(options.fetch ?? fetch, webhook.url, body, timeoutMs),
        {
          policy: {
            maxRetries: retry.attempts - 1,
            baseDelayMs: retry.baseDelayMs,
            maxDelayMs: Math.max(MAX_WEBHOOK_DELAY_MS, retry.baseDelayMs),
          },
          onFailure: (failure) =>
            log.info(
              { runId, target, type: notification.type, attempt: failure.attempt, error: failure.error },
              'webhook delivery failed',
            ),
        },
      );
      attempts = outcome.attempts;
      if (outcome.ok) {
        log.debug({ runId, target, type: notification.type, attempts }, 'webhook delivered');
        return;
      }
      // Every attempt's error, so a flapping receiver is told apart from one that is down.
      error = [...new Set(outcome.errors)].join('; ');
    } catch (unexpected) {
      error = describeError(unexpected, timeoutMs);
    }
    error = error.split(webhook.url).join(target);
    log.warn({ runId, target, type: notification.type, attempts, error }, 'webhook gave up');
    await store
      .appendEvent(runId, {
        type: 'notification.failed',
        runId,
        at: now().toISOString(),
        target,
        event: notification.type,
        attempts,
        error,
      })
      .catch((appendError) => log.warn({ err: appendError, runId }, 'could not record notification.failed'));
  };
}

/** HTTP statuses worth another delivery: the receiver may answer later. Anything else 4xx will not change. */
function retryableStatus(status: number): boolean {
  return status >= 500 || status === 408 || status === 409 || status === 425 || status === 429;
}

/** Posts once; on failure, what went wrong (no URL in it) and whether another attempt may help. */
async function postOnce(
  fetcher: typeof fetch,
  url: string,
  body: string,
  timeoutMs: number,
): Promise<AttemptResult<void, string>> {
  try {
    const response = await fetcher(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'nightshift' },
      body,
      signal: AbortSignal.timeout(timeoutMs),
    });
    await response.arrayBuffer().catch(() => undefined);
    if (response.ok) return { ok: true, value: undefined };
    return {
      ok: false,
      error: `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`,
      retryable: retryableStatus(response.status),
      retryAfterMs: retryAfterMsFromHeaders(response.headers),
    };
  } catch (error) {
    return { ok: false, error: describeError(error, timeoutMs), retryable: true };
  }
}

function describeError(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return `no answer within ${timeoutMs} ms`;
  }
  if (error instanceof Error) {
    const cause = error.cause as { code?: string; message?: string } | undefined;
    const why = cause?.code ?? cause?.message;
    return why ? `${error.message}: ${why}` : error.message;
  }
  return String(error);
}

/** The scheme, host and port of a webhook URL: its path and query may hold tokens (Slack hooks do). */
export function safeOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '(invalid URL)';
  }
}
