// Live run events over server-sent events, with reconnect handled by EventSource.
import type { StoredRunEvent } from '../../../orchestrator/events.js';

/** Orders two Redis stream ids (`<ms>-<n>`): negative when `a` is older. */
export function compareStreamIds(a: string, b: string): number {
  const [am = 0, an = 0] = a.split('-').map(Number);
  const [bm = 0, bn = 0] = b.split('-').map(Number);
  return am === bm ? an - bn : am - bm;
}

/**
 * While a page loads its state and connects its event stream at the same time, tracks whether an event may fall
 * between the two: each run read reports the newest event it already reflects; any event seen that is newer than
 * the oldest of those — or a replay too short to reach back that far — means one more refresh.
 */
export class LoadGap {
  private reflected: string | undefined;
  private newest: string | undefined;
  private oldestReplayed: string | undefined;
  private replayed = 0;

  constructor(private readonly replayLimit: number) {}

  /** A run read reflected every event up to `id`. */
  reflectedUpTo(id: string): void {
    if (this.reflected === undefined || compareStreamIds(id, this.reflected) < 0) this.reflected = id;
  }

  /** An event received before the page was loaded and connected (`replayed`: history sent on connect). */
  saw(id: string, replayed: boolean): void {
    if (replayed && this.replayed++ === 0) this.oldestReplayed = id;
    if (this.newest === undefined || compareStreamIds(id, this.newest) > 0) this.newest = id;
  }

  /** True when the loaded state may miss an event. */
  needsRefresh(): boolean {
    const base = this.reflected ?? '0-0';
    if (this.newest !== undefined && compareStreamIds(this.newest, base) > 0) return true;
    const short = this.replayed >= this.replayLimit && this.oldestReplayed !== undefined;
    return short && compareStreamIds(this.oldestReplayed!, base) > 0;
  }
}

/** Callbacks of subscribeRun. */
export interface RunStreamHandlers {
  /** Each event; `live` is false for the history replayed before the server's `live` marker. */
  onEvent(event: StoredRunEvent, live: boolean): void;
  /** Connected (after the replay) or not; drives the live indicator. */
  onState(connected: boolean): void;
}

/** Subscribes to run events. Returns a disposer. */
export function subscribeRun(url: string, handlers: RunStreamHandlers): () => void {
  const source = new EventSource(url, { withCredentials: true });
  let live = false;
  source.addEventListener('live', () => {
    live = true;
    handlers.onState(true);
  });
  source.addEventListener('error', () => {
    live = false;
    handlers.onState(false);
  });
  source.addEventListener('run', (message) => {
    try {
      handlers.onEvent(JSON.parse((message as MessageEvent<string>).data) as StoredRunEvent, live);
    } catch {
      // A malformed frame is dropped; the next refresh shows the true state anyway.
    }
  });
  return () => source.close();
}
