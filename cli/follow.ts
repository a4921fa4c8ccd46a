import type { Orchestrator } from '../orchestrator/orchestrator.js';
import {
  FINISHED_STATUSES,
  knownCostUsd,
  type RunRecord,
  type SessionRecord,
} from '../orchestrator/run-state.js';
import { createProgressRenderer, formatAppStartFailure, type ProgressRenderer } from './progress.js';
import { runElapsedMs } from './status.js';

/** Statuses after which `run` stops following (a rate-limited pause resumes by itself, so it is followed). */
export function hasEnded(run: RunRecord): boolean {
  return (
    FINISHED_STATUSES.includes(run.status) || (run.status === 'paused' && run.pausedReason !== 'rate-limited')
  );
}

/** Options of {@link followRun}. */
export interface FollowOptions {
  stream: NodeJS.WriteStream | (Pick<NodeJS.WriteStream, 'write'> & { isTTY?: boolean; columns?: number });
  /** Poll interval in ms (default 500). */
  intervalMs?: number;
  signal?: AbortSignal;
}

/** Events read per poll when adding up the running session's cost. */
const EVENT_PAGE = 500;

/**
 * The cost of the session in flight so far, from its `model.usage` events (the run's counters only grow when a
 * session ends), and the run's `app.start_failed` events as lines to show. Reads only the events appended since
 * the last call.
 */
export class InFlightCost {
  private after: string | undefined;
  private seq = 0;
  private costUsd = 0;
  /** `app.start_failed` events read since the last {@link drainNotes}, as lines for the user. */
  private notes: string[] = [];

  constructor(
    private readonly orchestrator: Pick<Orchestrator, 'store'>,
    private readonly runId: string,
  ) {}

  /** The known cost so far of session `seq` (0 once it has ended; null for a model without a price). */
  async of(seq: number | null): Promise<number | null> {
    for (;;) {
      const page = await this.orchestrator.store.readEvents(this.runId, {
        count: EVENT_PAGE,
        ...(this.after ? { after: this.after } : { latest: true }),
      });
      for (const { id, event } of page) {
        this.after = id;
        if (event.type === 'app.start_failed') this.notes.push(formatAppStartFailure(event));
        if (event.type !== 'agent' || event.event.type !== 'model.usage') continue;
        if (event.seq !== this.seq) [this.seq, this.costUsd] = [event.seq, 0];
        this.costUsd = event.event.costUsd === null ? Number.NaN : this.costUsd + event.event.costUsd;
      }
      if (page.length < EVENT_PAGE) break;
    }
    if (seq === null || seq !== this.seq) return 0;
    return Number.isNaN(this.costUsd) ? null : this.costUsd;
  }

  /** The notes gathered by the last reads (app start failures), once each. */
  drainNotes(): string[] {
    return this.notes.splice(0);
  }
}

/** Reads of the run record per poll at most, when sessions keep ending between them. */
const CONSISTENT_READS = 3;

/**
 * The run and its newest session as of one moment: the record is read again after the session, and the pair
 * is kept only when no session ended in between. Otherwise a session that ended between the two reads would
 * be in neither the counters nor in flight (the cost would dip), or, read the other way round, in both.
 */
async function readConsistently(
  orchestrator: Orchestrator,
  runId: string,
): Promise<{ run: RunRecord; latest: SessionRecord | undefined }> {
  let run = await orchestrator.store.getRun(runId);
  for (let read = 1; ; read++) {
    const { sessions } = await orchestrator.store.listSessions(runId, { offset: 0, limit: 1, order: 'desc' });
    const again = await orchestrator.store.getRun(runId);
    if (again.counters.sessions === run.counters.sessions || read >= CONSISTENT_READS) {
      return { run: again, latest: sessions[0] };
    }
    run = again;
  }
}

/**
 * Shows a run's live progress (passing/total bar, current role and feature, cost including the session in
 * flight, the run's elapsed time) until it ends, then prints the summary line and returns the final record.
 */
export async function followRun(
  orchestrator: Orchestrator,
  runId: string,
  options: FollowOptions,
): Promise<RunRecord> {
  const renderer: ProgressRenderer = createProgressRenderer({
    stream: options.stream,
    isTTY: Boolean(options.stream.isTTY),
    now: orchestrator.now,
  });
  const inFlight = new InFlightCost(orchestrator, runId);
  for (;;) {
    const { run, latest } = await readConsistently(orchestrator, runId);
    const elapsedMs = runElapsedMs(run, orchestrator.now()) ?? 0;
    const known = knownCostUsd(run.counters);
    if (hasEnded(run) || options.signal?.aborted) {
      renderer.done({
        status: run.status,
        pausedReason: run.pausedReason,
        detail: run.detail,
        features: run.features,
        sessions: run.counters.sessions,
        costUsd: known,
        elapsedMs,
      });
      return run;
    }
    const current = latest && !latest.finishedAt ? latest : null;
    const running = await inFlight.of(current?.seq ?? null);
    for (const note of inFlight.drainNotes()) renderer.note(note);
    renderer.update({
      run,
      current: current
        ? {
            role: current.role,
            kind: current.kind,
            featureIds: current.featureIds,
            startedAt: current.startedAt,
          }
        : null,
      costUsd: known === null || running === null ? known : known + running,
      elapsedMs,
    });
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 500));
  }
}
