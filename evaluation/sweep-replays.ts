/**
 * The browser side of a sweep: contexts of the shared browser on one app, each reused and cleared between checks,
 * several at once where the machine has the cores and the memory for them (a many-core worker checks a merge in
 * about the time of its slowest check), and how many that is.
 */
import os from 'node:os';
import type { RecordedCheck } from '../checks/format.js';
import type { ReplayResult } from '../checks/replay.js';
import { ReplayContextResetError } from '../checks/replay-context.js';
import { InputError } from '../core/errors.js';
import { moduleLogger } from '../core/log.js';
import type { BrowserSource } from './browser-source.js';
import { keptReplayContexts, type LentReplayContext } from './kept-replay-contexts.js';

const log = moduleLogger('evaluation/sweep-replays');

/** Memory one replay context may take (its renderer with the app's page), for sizing from free memory. */
const CONTEXT_MEMORY_BYTES = 256 * 1024 * 1024;

/** Most contexts a sweep opens at once, however large the machine: the app under test is one process. */
export const MAX_REPLAY_CONTEXTS = 8;

/** What sizes the replay contexts: the machine's cores, how busy they are, and free memory. */
export interface MachineSize {
  cores: number;
  /** The 1-minute load average: cores other work keeps busy are not free for replays. */
  load: number;
  freeMemoryBytes: number;
}

/** This machine, as Node sees it now. */
export function thisMachine(): MachineSize {
  return { cores: os.availableParallelism(), load: os.loadavg()[0] ?? 0, freeMemoryBytes: os.freemem() };
}

/**
 * How many contexts a sweep replays in at once: `NIGHTSHIFT_REPLAY_CONTEXTS` when set, else one per idle core
 * (cores less the load average: on a saturated machine a second context only slows both), as many as half the
 * free memory holds, at most {@link MAX_REPLAY_CONTEXTS}, at least one.
 */
export function replayContexts(machine: MachineSize = thisMachine(), env = process.env): number {
  const raw = env.NIGHTSHIFT_REPLAY_CONTEXTS;
  if (raw !== undefined && raw !== '') {
    const parsed = Number(raw);
    if (!Number.isInteger(parsed) || parsed < 1 || parsed > 32) {
      throw new InputError(
        'ENV_INVALID',
        `NIGHTSHIFT_REPLAY_CONTEXTS must be a whole number of browser contexts from 1 to 32, not "${raw}".`,
        { hint: 'e.g. NIGHTSHIFT_REPLAY_CONTEXTS=2, or unset it to size from the machine.' },
      );
    }
    return parsed;
  }
  const byMemory = Math.floor(machine.freeMemoryBytes / 2 / CONTEXT_MEMORY_BYTES);
  const idleCores = Math.round(machine.cores - machine.load);
  return Math.max(1, Math.min(idleCores, byMemory, MAX_REPLAY_CONTEXTS));
}

/**
 * Runs `work` on every item, at most `limit` at once, items started in order; `slot` (0 … limit-1) names the
 * runner, so a runner can keep a context of its own. After a failure no item starts; the first failure is thrown
 * once every started item has ended (nothing is left running behind the caller's cleanup).
 */
export async function eachAtMost<T>(
  items: readonly T[],
  limit: number,
  work: (item: T, slot: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failed = false;
  const runner = async (slot: number) => {
    while (!failed && next < items.length) {
      const item = items[next] as T;
      next += 1;
      try {
        await work(item, slot);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  const runners = Math.max(1, Math.min(limit, items.length));
  const settled = await Promise.allSettled(Array.from({ length: runners }, (_, slot) => runner(slot)));
  const failure = settled.find((outcome) => outcome.status === 'rejected');
  if (failure) throw failure.reason;
}

/**
 * The replays of one app in one context lent by the browser's kept contexts (behind its gate, reaching the app's
 * origin only), cleared between checks; another one when it cannot be cleared (a crash).
 */
export class SweepReplays {
  private current: Promise<LentReplayContext> | undefined;

  constructor(
    private readonly browser: BrowserSource,
    private readonly baseUrl: string,
    private readonly evidenceDir: string,
  ) {}

  /** Replays the check on the context's cleared page (another context once, when the old one is lost). */
  async replay(check: RecordedCheck, options: { screenshotDir: string }): Promise<ReplayResult> {
    for (let attempt = 0; ; attempt += 1) {
      const lent = await this.context();
      try {
        return await lent.replay(check, options);
      } catch (error) {
        if (!(error instanceof ReplayContextResetError) || attempt >= 1) throw error;
        log.warn(
          { err: error, featureId: check.featureId },
          'replay context lost; a new one replays the rest',
        );
        await this.close();
      }
    }
  }

  /** Gives the context back (kept for the next app unless it broke); a later replay takes one again. */
  async close(): Promise<void> {
    const current = this.current;
    this.current = undefined;
    const lent = await current?.catch(() => undefined);
    await lent?.release();
  }

  private context() {
    this.current ??= keptReplayContexts(this.browser).lend(this.baseUrl, { evidenceDir: this.evidenceDir });
    const opened = this.current;
    opened.catch(() => {
      if (this.current === opened) this.current = undefined;
    });
    return opened;
  }
}

/** The contexts of one app's sweep, one per slot, opened when a slot first replays. */
export class SweepContexts {
  private readonly slots = new Map<number, SweepReplays>();

  constructor(
    private readonly browser: BrowserSource,
    private readonly baseUrl: string,
    private readonly evidenceDir: string,
  ) {}

  /** The context of `slot`. */
  at(slot: number): SweepReplays {
    let replays = this.slots.get(slot);
    if (!replays) {
      replays = new SweepReplays(this.browser, this.baseUrl, this.evidenceDir);
      this.slots.set(slot, replays);
    }
    return replays;
  }

  /** Closes every context. */
  async close(): Promise<void> {
    await Promise.all([...this.slots.values()].map((replays) => replays.close()));
    this.slots.clear();
  }
}
