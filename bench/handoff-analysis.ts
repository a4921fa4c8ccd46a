/**
 * Turns one finished run's records (event log, BullMQ job timestamps, git spans, the scripted server's
 * request log) into handoff samples: session end → the next session's first model request, in segments.
 */
import type { RunEvent } from '../orchestrator/events.js';
import type { RecordedRequest } from '../testkit/types.js';
import { commandsIn, coveredMs, type GitSpan } from './git-spans.js';

/** When a session's job entered the queue and when a worker took it (BullMQ `timestamp`, `processedOn`). */
export interface JobTimes {
  enqueuedAt: number;
  pickedAt: number;
}

/**
 * One handoff from session `fromSeq` to `fromSeq + 1`, in ms. Two views of the same window: the timeline
 * (`closeMs` … `sendMs`, consecutive, adding up to `totalMs`) and the cost split (`gitMs`, `queueMs`,
 * `contextMs`, `otherMs`, also adding up to `totalMs`).
 */
export interface HandoffSample {
  fromSeq: number;
  fromRole: string;
  toRole: string;
  totalMs: number;
  /** Agent loop ended → result recorded: WIP checkpoint, integrity guard, verdict commit, app stop and trace (evaluator). */
  closeMs: number;
  /** Result recorded → next job enqueued: planner and enqueue. */
  advanceMs: number;
  /** Job enqueued → picked by the worker (BullMQ `timestamp` → `processedOn`). */
  queueMs: number;
  /** Picked → session recorded as started: run lock, run checks. */
  claimMs: number;
  /** Session started → agent loop started: rollback, backup, first message (evaluator: app start, browser context). */
  prepareMs: number;
  /** Agent loop started → the first request received by the model server. */
  sendMs: number;
  /** All git processes the harness ran in the window (checkpoint, guard, verdict commit, rollback, backup, log). */
  gitMs: number;
  /** Git in the close segment, and in the prepare segment. */
  gitCloseMs: number;
  gitPrepareMs: number;
  /** Prepare without git: context assembly (generator), plus app start and browser context (evaluator). */
  contextMs: number;
  /** Everything not git, queue or context: closing without git, recording, planning, claiming, sending. */
  otherMs: number;
  /** Git subcommands run in the window, with counts. */
  gitCommands: Record<string, number>;
}

interface SessionMarks {
  role?: string;
  agentStarted?: number;
  agentEnded?: number;
  started?: number;
  finished?: number;
}

function marksBySeq(events: readonly RunEvent[]): Map<number, SessionMarks> {
  const marks = new Map<number, SessionMarks>();
  const of = (seq: number) => {
    let entry = marks.get(seq);
    if (!entry) {
      entry = {};
      marks.set(seq, entry);
    }
    return entry;
  };
  for (const event of events) {
    const at = Date.parse(event.at);
    if (event.type === 'session.started') Object.assign(of(event.seq), { started: at, role: event.role });
    else if (event.type === 'session.finished') of(event.seq).finished = at;
    else if (event.type === 'agent' && event.event.type === 'session.started')
      of(event.seq).agentStarted ??= at;
    else if (event.type === 'agent' && event.event.type === 'session.ended') of(event.seq).agentEnded = at;
  }
  return marks;
}

/** Receipt time of the first request at or after `from` (single-run, one-at-a-time logs only). */
function firstRequestAfter(requests: readonly RecordedRequest[], from: number): number | undefined {
  // Event times are ISO strings (ms); a request can land in the same millisecond.
  return requests.find((request) => request.receivedAt >= from)?.receivedAt;
}

/**
 * Handoff samples of a run that ran one session at a time. Transitions where either session never reached
 * the model (e.g. a session that ended before its loop started) are skipped.
 */
export function handoffSamples(input: {
  events: readonly RunEvent[];
  jobs: ReadonlyMap<number, JobTimes>;
  gitSpans: readonly GitSpan[];
  requests: readonly RecordedRequest[];
}): HandoffSample[] {
  const marks = marksBySeq(input.events);
  const requests = [...input.requests].sort((a, b) => a.receivedAt - b.receivedAt);
  const samples: HandoffSample[] = [];
  for (const [seq, from] of [...marks].sort((a, b) => a[0] - b[0])) {
    const to = marks.get(seq + 1);
    const job = input.jobs.get(seq + 1);
    if (!to || !job || from.agentEnded === undefined || from.finished === undefined) continue;
    if (to.started === undefined || to.agentStarted === undefined) continue;
    const firstRequest = firstRequestAfter(requests, to.agentStarted);
    if (firstRequest === undefined) continue;
    const totalMs = firstRequest - from.agentEnded;
    const gitMs = coveredMs(input.gitSpans, from.agentEnded, firstRequest);
    const queueMs = Math.max(0, job.pickedAt - job.enqueuedAt);
    const prepareMs = to.agentStarted - to.started;
    const gitPrepareMs = coveredMs(input.gitSpans, to.started, to.agentStarted);
    const contextMs = Math.max(0, prepareMs - gitPrepareMs);
    samples.push({
      fromSeq: seq,
      fromRole: from.role ?? 'unknown',
      toRole: to.role ?? 'unknown',
      totalMs,
      closeMs: from.finished - from.agentEnded,
      advanceMs: job.enqueuedAt - from.finished,
      queueMs,
      claimMs: to.started - job.pickedAt,
      prepareMs,
      sendMs: firstRequest - to.agentStarted,
      gitMs,
      gitCloseMs: coveredMs(input.gitSpans, from.agentEnded, from.finished),
      gitPrepareMs,
      contextMs,
      otherMs: totalMs - gitMs - queueMs - contextMs,
      gitCommands: commandsIn(input.gitSpans, from.agentEnded, firstRequest),
    });
  }
  return samples;
}

/** One generator session's orientation: model requests up to the one whose reply first writes or edits a file. */
export interface OrientationSample {
  seq: number;
  /** The step (1-based model request) of the first write/edit, or null when the session never wrote. */
  requestsBeforeFirstEdit: number | null;
  /** Model requests of the whole session. */
  requests: number;
  /** Tool calls before the first write/edit (reads, bash). */
  toolCallsBefore: number;
}

/** Orientation samples of every generator session in the events. */
export function orientationSamples(events: readonly RunEvent[]): OrientationSample[] {
  const sessions = new Map<number, OrientationSample>();
  const generators = new Set<number>();
  for (const event of events) {
    if (event.type === 'session.started' && event.role === 'generator') generators.add(event.seq);
    if (event.type !== 'agent') continue;
    let sample = sessions.get(event.seq);
    if (!sample) {
      sample = { seq: event.seq, requestsBeforeFirstEdit: null, requests: 0, toolCallsBefore: 0 };
      sessions.set(event.seq, sample);
    }
    const inner = event.event;
    if (inner.type === 'model.request') sample.requests += 1;
    if (inner.type !== 'tool.started' || sample.requestsBeforeFirstEdit !== null) continue;
    if (inner.name === 'write' || inner.name === 'edit') sample.requestsBeforeFirstEdit = inner.step;
    else sample.toolCallsBefore += 1;
  }
  return [...sessions.values()].filter((sample) => generators.has(sample.seq));
}
