import type { Redis } from 'ioredis';
import { moduleLogger } from '../core/log.js';
import { RunEvent, type StoredRunEvent } from './events.js';
import { runKeys } from './keys.js';

const log = moduleLogger('orchestrator/event-log');

/** Default bound of a run's event stream (approximate: Redis trims whole stream nodes). */
export const DEFAULT_EVENT_LOG_MAX_LENGTH = 10_000;

// XADD and PUBLISH in one step so a subscriber sees exactly the entries in the stream, with their ids.
const APPEND_SCRIPT = `
local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', 'e', ARGV[2])
redis.call('PUBLISH', KEYS[2], id .. ' ' .. ARGV[2])
return id`;

/** Options of readEvents. */
export interface ReadEventsOptions {
  /** Only entries after this stream id (exclusive). */
  after?: string;
  /** At most this many (default 100). */
  count?: number;
  /** The newest `count` entries instead of the oldest (still returned oldest first). */
  latest?: boolean;
}

/** Called with each new event of a subscribed run; must not throw. */
export type EventListener = (event: StoredRunEvent) => void;

/** Called with each event this process appended (metrics); a throwing observer is logged and ignored. */
export type AppendObserver = (runId: string, event: RunEvent) => void;

/** A run's event log: a bounded Redis stream plus a pub/sub channel for live subscribers. */
export class EventLog {
  private subscriber: Redis | undefined;
  private readonly listeners = new Map<string, Set<EventListener>>();
  private readonly observers = new Set<AppendObserver>();

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly maxLength: number = DEFAULT_EVENT_LOG_MAX_LENGTH,
  ) {}

  /** Validates and appends an event; returns its stream id. */
  async append(runId: string, event: RunEvent): Promise<string> {
    const valid = RunEvent.parse(event);
    const keys = runKeys(this.prefix, runId);
    const id = await this.redis.eval(
      APPEND_SCRIPT,
      2,
      keys.events,
      keys.channel,
      this.maxLength,
      JSON.stringify(valid),
    );
    for (const observer of this.observers) {
      try {
        observer(runId, valid);
      } catch (error) {
        log.warn({ err: error, runId }, 'an event observer threw');
      }
    }
    return String(id);
  }

  /** Calls `observer` with every event this process appends from now on; returns the function that stops it. */
  observeAppends(observer: AppendObserver): () => void {
    this.observers.add(observer);
    return () => this.observers.delete(observer);
  }

  /** Events of a run, oldest first; entries that fail validation are logged and skipped. */
  async read(runId: string, options: ReadEventsOptions = {}): Promise<StoredRunEvent[]> {
    const key = runKeys(this.prefix, runId).events;
    const count = options.count ?? 100;
    const entries = options.latest
      ? (
          await this.redis.xrevrange(key, '+', options.after ? `(${options.after}` : '-', 'COUNT', count)
        ).reverse()
      : await this.redis.xrange(key, options.after ? `(${options.after}` : '-', '+', 'COUNT', count);
    const events: StoredRunEvent[] = [];
    for (const [id, fields] of entries) {
      const event = decode(id, fields[1]);
      if (event) events.push(event);
    }
    return events;
  }

  /** Number of entries in a run's stream. */
  async length(runId: string): Promise<number> {
    return this.redis.xlen(runKeys(this.prefix, runId).events);
  }

  /**
   * Calls `listener` with every event appended from now on; resolves once subscribed, to an unsubscribe function.
   * To see history without a gap, subscribe first, then `read`, and drop ids already seen.
   */
  async subscribe(runId: string, listener: EventListener): Promise<() => Promise<void>> {
    const channel = runKeys(this.prefix, runId).channel;
    const subscriber = this.subscriberConnection();
    let set = this.listeners.get(channel);
    if (!set) {
      set = new Set();
      this.listeners.set(channel, set);
      await subscriber.subscribe(channel);
    }
    set.add(listener);
    return async () => {
      const current = this.listeners.get(channel);
      if (!current?.delete(listener) || current.size > 0) return;
      this.listeners.delete(channel);
      await subscriber.unsubscribe(channel).catch(() => undefined);
    };
  }

  /** Closes the subscriber connection (the main client belongs to the caller). */
  async close(): Promise<void> {
    this.listeners.clear();
    const subscriber = this.subscriber;
    this.subscriber = undefined;
    if (subscriber) await subscriber.quit().catch(() => subscriber.disconnect());
  }

  private subscriberConnection(): Redis {
    if (this.subscriber) return this.subscriber;
    const subscriber = this.redis.duplicate();
    subscriber.on('message', (channel: string, message: string) => {
      const space = message.indexOf(' ');
      const event = decode(message.slice(0, space), message.slice(space + 1));
      if (!event) return;
      for (const listener of this.listeners.get(channel) ?? []) {
        try {
          listener(event);
        } catch (error) {
          log.warn({ err: error, channel }, 'event listener threw; ignored');
        }
      }
    });
    // Debug only: a lost connection is told once by the process's RedisOutageWatch, not at every reconnect.
    subscriber.on('error', (error) => log.debug({ err: error }, 'event subscriber connection error'));
    this.subscriber = subscriber;
    return subscriber;
  }
}

function decode(id: string, json: string | undefined): StoredRunEvent | undefined {
  try {
    const parsed = RunEvent.safeParse(JSON.parse(json ?? ''));
    if (parsed.success) return { id, event: parsed.data };
    log.warn({ id, issues: parsed.error.issues.slice(0, 3) }, 'invalid event in the log; skipped');
  } catch (error) {
    log.warn({ id, err: error }, 'unreadable event in the log; skipped');
  }
  return undefined;
}
