import { loadLanesView } from '../orchestrator/lanes/lane-view.js';
import type { Orchestrator } from '../orchestrator/orchestrator.js';
import {
  FINISHED_STATUSES,
  knownCostUsd,
  RunNotFoundError,
  type RunRecord,
  RunVanishedError,
  type SessionRecord,
} from '../orchestrator/run/index.js';
import { progressNote } from './event-lines.js';
import type { ProgressLane } from './lanes-format.js';
import type { TextSink } from './output.js';
import { createProgressRenderer, type ProgressRenderer } from './progress.js';
import { runElapsedMs } from './status.js';

/** Statuses after which `run` stops following (a rate-limited pause resumes by itself, so it is followed). */
export function hasEnded(run: RunRecord): boolean {
  return (
    FINISHED_STATUSES.includes(run.status) || (run.status === 'paused' && run.pausedReason !== 'rate-limited')
  );
}

/** Options of {@link followRun}. */
export interface FollowOptions {
  stream: TextSink & { isTTY?: boolean; columns?: number };
  /** Poll interval in ms (default 500). */
  intervalMs?: number;
  signal?: AbortSignal;
  /** A line for every verdict above the progress line (default true; the demo's summary tells them instead). */
  verdictLines?: boolean;
  /** Workers connected to the queue (`follow`: a run nobody works says so); absent: not asked. */
  connectedWorkers?: () => Promise<number | null>;
}

/** Events read per poll when adding up the running session's cost. */
const EVENT_PAGE = 500;

/**
 * The cost of the sessions in flight so far (several at once with lanes), from their `model.usage` events (the
 * run's counters only grow when a session ends), and the run's verdicts, app start failures and merges as lines to
 * show (`progressNote`). Reads only the events appended since the last call.
 */
export class InFlightCost {
  private after: string | undefined;
  /** Cost so far per session seq (NaN: a model without a price). */
  private readonly costs = new Map<number, number>();
  /** Verdicts, app start failures and merges read since the last {@link drainNotes}, as lines for the user. */
  private notes: string[] = [];

  constructor(
    private readonly orchestrator: Pick<Orchestrator, 'store'>,
    private readonly runId: string,
    /** Lines for verdicts too (the demo leaves them to its summary). */
    private readonly verdicts = true,
  ) {}

  /** The known cost so far of sessions `seqs` (null when one's model has no price). */
  async of(seqs: readonly number[]): Promise<number | null> {
    for (;;) {
      const page = await this.orchestrator.store.readEvents(this.runId, {
        count: EVENT_PAGE,
        ...(this.after ? { after: this.after } : { latest: true }),
      });
      for (const { id, event } of page) {
        this.after = id;
        const note = event.type === 'verdict.applied' && !this.verdicts ? null : progressNote(event);
        if (note) this.notes.push(note);
        if (event.type !== 'agent' || event.event.type !== 'model.usage') continue;
        const cost = event.event.costUsd;
        this.costs.set(event.seq, cost === null ? Number.NaN : (this.costs.get(event.seq) ?? 0) + cost);
      }
      if (page.length < EVENT_PAGE) break;
    }
    // Sessions older than every one in flight have ended: their cost is in the run's counters now.
    const oldest = Math.min(...seqs);
    for (const seq of this.costs.keys()) if (seq < oldest) this.costs.delete(seq);
    const total = seqs.reduce((sum, seq) => sum + (this.costs.get(seq) ?? 0), 0);
    return Number.isNaN(total) ? null : total;
  }

  /** The notes gathered by the last reads, once each. */
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
 * Throws RunVanishedError when the run's record goes from Redis meanwhile (its callers saw it there first).
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
  const inFlight = new InFlightCost(orchestrator, runId, options.verdictLines ?? true);
  const workers = workerCheck(options.connectedWorkers, orchestrator.now);
  for (;;) {
    const { run, latest } = await readConsistently(orchestrator, runId).catch((error: unknown) => {
      throw error instanceof RunNotFoundError ? new RunVanishedError(runId, error) : error;
    });
    const elapsedMs = runElapsedMs(run, orchestrator.now()) ?? 0;
    const known = knownCostUsd(run.counters);
    if (hasEnded(run) || options.signal?.aborted) {
      // What happened since the last poll (the last verdict, the final merge) still gets its lines.
      await inFlight.of([]);
      for (const note of inFlight.drainNotes()) renderer.note(note);
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
    const { current, inFlightSeqs, lanes } = await runningNow(orchestrator, run, latest);
    const running = await inFlight.of(inFlightSeqs);
    for (const note of inFlight.drainNotes()) renderer.note(note);
    renderer.update({
      run,
      ...(lanes ? { lanes } : {}),
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
      ...(!current && !lanes?.length && (await workers.none()) ? { noWorker: true } : {}),
    });
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 500));
  }
}

/**
 * What runs now: the newest session if it is in flight (serial runs); with lanes, the busy lanes, every session in
 * flight, and the run slot's own session (initializer, sweep) as `current`.
 */
async function runningNow(
  orchestrator: Orchestrator,
  run: RunRecord,
  latest: SessionRecord | undefined,
): Promise<{ current: SessionRecord | null; inFlightSeqs: number[]; lanes?: ProgressLane[] }> {
  const lanesView = await loadLanesView(orchestrator.store, run);
  if (!lanesView) {
    const current = latest && !latest.finishedAt ? latest : null;
    return { current, inFlightSeqs: current ? [current.seq] : [] };
  }
  const inFlightSeqs = lanesView.lanes.flatMap((lane) =>
    lane.step.kind === 'session' ? [lane.step.seq] : [],
  );
  const main = run.mainSeq > 0 ? await orchestrator.store.getSession(run.id, run.mainSeq) : undefined;
  const current = main && !main.finishedAt ? main : null;
  if (current) inFlightSeqs.push(current.seq);
  const lanes = lanesView.lanes.map(({ lane, featureId, step }) => ({ lane, featureId, step }));
  return { current, inFlightSeqs, lanes };
}

/** How often `follow` asks Redis for the worker list (it lists every client: not at every poll). */
const WORKER_CHECK_MS = 5_000;

/** Whether no worker is connected, asked at most every {@link WORKER_CHECK_MS}; false when not asked or unknown. */
function workerCheck(
  count: (() => Promise<number | null>) | undefined,
  now: () => Date,
): { none(): Promise<boolean> } {
  let checkedAt = Number.NEGATIVE_INFINITY;
  let none = false;
  return {
    async none() {
      if (!count) return false;
      if (now().getTime() - checkedAt >= WORKER_CHECK_MS) {
        checkedAt = now().getTime();
        none = (await count()) === 0;
      }
      return none;
    },
  };
}
