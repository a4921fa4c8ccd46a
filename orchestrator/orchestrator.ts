import type { Redis } from 'ioredis';
import type { RunEvent } from './events.js';
import type { Queues } from './queues.js';
import type { RunRecord } from './run/run-state.js';
import type { RunStore } from './run/run-store.js';

/** Called after a run's status changed (webhooks, nightly summaries); must not throw. */
export type StatusListener = (before: RunRecord, after: RunRecord) => Promise<void>;

/** What every orchestrator function works with: passed explicitly, no globals. */
export interface Orchestrator {
  redis: Redis;
  store: RunStore;
  queues: Queues;
  /** The key prefix (also BullMQ's, with `bull` appended). */
  prefix: string;
  now: () => Date;
  /** Told about every status change the orchestrator makes. */
  onStatusChange?: StatusListener;
  /** Told about the events a session result produced (regression webhooks); must not throw. */
  onSessionEvents?: (run: RunRecord, events: RunEvent[]) => void;
}
