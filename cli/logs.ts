/**
 * `nightshift logs [RUN] [--session N] [--follow]`: what happened, as lines with their time. Without `--session`,
 * the run's event log (sessions, verdicts with their reasons, status changes); with it, one session's transcript
 * (the model's text, tool calls with short arguments, results' first lines) and its verdicts. `--follow` keeps
 * printing until the run (or the session) ends, or Ctrl-C.
 */
import { existsSync } from 'node:fs';
import { open } from 'node:fs/promises';
import type { Command } from 'commander';
import { TranscriptLine } from '../agent/transcript.js';
import { InputError } from '../core/errors.js';
import { sessionTranscriptPath } from '../core/paths.js';
import type { Orchestrator } from '../orchestrator/orchestrator.js';
import { FINISHED_STATUSES, type SessionRecord } from '../orchestrator/run/index.js';
import { type CliDeps, orchestratorOptions, resolveDeps, withOrchestrator } from './context.js';
import { eventLine, verdictLine } from './event-lines.js';
import { runOrNewest } from './follow-command.js';
import type { TextSink } from './output.js';
import { TranscriptFormatter } from './transcript-lines.js';
import { untilSignal } from './worker.js';

/** How often `--follow` looks for more. */
const POLL_MS = 500;
/** Events read per page. */
const PAGE = 1_000;

interface LogsOptions {
  session?: number;
  follow?: boolean;
  config?: string;
}

/** `2026-05-01T03:12:04Z  text` */
function stamped(at: string, text: string): string {
  return `${at.slice(0, 19)}Z  ${text}\n`;
}

/** Registers `logs [RUN] [--session N] [--follow]`. */
export function registerLogsCommand(program: Command, deps: CliDeps = {}): void {
  program
    .command('logs')
    .description("print a run's event log, or one session's transcript (--session N), as readable lines")
    .argument('[run]', 'run id (default: the newest run)')
    .option('--session <n>', 'one session: its transcript and verdicts', sessionNumber)
    .option('--follow', 'keep printing until the run (or the session) ends; Ctrl-C to stop')
    .option('--config <file>', 'config file (default: $NIGHTSHIFT_CONFIG or ./nightshift.config.json)')
    .action((runId: string | undefined, options: LogsOptions) => {
      const resolved = resolveDeps(deps);
      return withOrchestrator(orchestratorOptions(resolved, options.config), async (context) => {
        const id = await runOrNewest(context.orchestrator, runId);
        const stop = new AbortController();
        if (options.follow) void untilSignal().then(() => stop.abort());
        const follow = options.follow ? stop.signal : undefined;
        if (options.session === undefined) {
          await printEvents(context.orchestrator, id, resolved.stdout, follow);
        } else {
          const file = sessionTranscriptPath(context.dataDir, id, options.session);
          await printSession(
            context.orchestrator,
            { runId: id, seq: options.session, file },
            resolved.stdout,
            follow,
          );
        }
      });
    });
}

function sessionNumber(value: string): number {
  const seq = Number(value);
  if (!Number.isInteger(seq) || seq < 1) {
    throw new InputError('OPTION_INVALID', `--session must be a session number (1, 2, …), not "${value}".`, {
      hint: 'The sessions of a run are numbered from 1: see `nightshift logs RUN` or `nightshift status RUN`.',
    });
  }
  return seq;
}

/** Prints the run's events from the first; following, also those appended later, until the run finishes. */
async function printEvents(
  orchestrator: Orchestrator,
  runId: string,
  out: TextSink,
  follow: AbortSignal | undefined,
): Promise<void> {
  let after: string | undefined;
  for (;;) {
    const page = await orchestrator.store.readEvents(runId, { count: PAGE, ...(after ? { after } : {}) });
    for (const { id, event } of page) {
      after = id;
      const line = eventLine(event);
      if (line) out.write(stamped(event.at, line));
    }
    if (page.length === PAGE) continue;
    if (!follow || follow.aborted) return;
    // The run's last events are appended before its status is final: one more read after it is, then stop.
    if (FINISHED_STATUSES.includes((await orchestrator.store.getRun(runId)).status)) {
      const rest = await orchestrator.store.readEvents(runId, { count: PAGE, ...(after ? { after } : {}) });
      for (const { event } of rest) {
        const line = eventLine(event);
        if (line) out.write(stamped(event.at, line));
      }
      return;
    }
    await pause(POLL_MS, follow);
  }
}

/**
 * Prints a session's transcript and, once it has ended, its verdicts; following, it waits for the transcript to
 * grow until the session has a result.
 */
async function printSession(
  orchestrator: Orchestrator,
  session: { runId: string; seq: number; file: string },
  out: TextSink,
  follow: AbortSignal | undefined,
): Promise<void> {
  const record = await orchestrator.store.getSession(session.runId, session.seq);
  if (!record && !follow) throw noSession(session.runId, session.seq, 'has not started');
  const formatter = new TranscriptFormatter();
  const reader = transcriptReader(session.file);
  for (;;) {
    const current = await orchestrator.store.getSession(session.runId, session.seq);
    for (const line of await reader.next()) {
      for (const text of formatter.lines(line)) out.write(stamped(line.at, text));
    }
    if (current?.finishedAt) return printVerdicts(orchestrator, session.runId, current, out);
    if (!follow || follow.aborted) {
      if (current && !existsSync(session.file))
        throw noSession(session.runId, session.seq, 'has no transcript here');
      return;
    }
    await pause(POLL_MS, follow);
  }
}

function noSession(runId: string, seq: number, what: string): InputError {
  return new InputError('SESSION_NOT_FOUND', `Session ${seq} of run ${runId} ${what}.`, {
    hint: `Transcripts are in the data dir of the machine whose worker ran the session; \`nightshift logs ${runId}\` lists the sessions, \`--follow\` waits for one that is queued.`,
  });
}

/**
 * The verdicts a finished session recorded, one line each with the reason of a fail or a blocked (from the run's
 * `verdict.applied` events, read from the session's start on: stream ids begin with their time).
 */
async function printVerdicts(
  orchestrator: Orchestrator,
  runId: string,
  session: SessionRecord,
  out: TextSink,
): Promise<void> {
  const lines = new Map<string, string>();
  // A minute early: the worker that stamped the start may run on a clock a little off the Redis server's.
  let after = `${Date.parse(session.startedAt) - 60_000}-0`;
  for (;;) {
    const page = await orchestrator.store.readEvents(runId, { count: PAGE, after });
    for (const { id, event } of page) {
      after = id;
      if (event.type === 'verdict.applied' && event.seq === session.seq)
        lines.set(event.featureId, verdictLine(event));
    }
    if (page.length < PAGE) break;
  }
  const at = session.finishedAt ?? session.startedAt;
  for (const verdict of session.verdicts) {
    out.write(
      stamped(at, `verdict ${lines.get(verdict.featureId) ?? `${verdict.featureId} ${verdict.verdict}`}`),
    );
  }
  out.write(
    stamped(at, `session ${session.seq} ${session.role} ended ${session.outcome ?? 'without an outcome'}`),
  );
}

/** Reads the complete lines a transcript file has gained since the last call (none while it does not exist). */
function transcriptReader(file: string): { next(): Promise<TranscriptLine[]> } {
  let offset = 0;
  let partial = '';
  return {
    async next() {
      if (!existsSync(file)) return [];
      const handle = await open(file, 'r');
      try {
        const { size } = await handle.stat();
        if (size <= offset) return [];
        const buffer = Buffer.alloc(size - offset);
        await handle.read(buffer, 0, buffer.length, offset);
        offset = size;
        const text = partial + buffer.toString('utf8');
        const lines = text.split('\n');
        partial = lines.pop() ?? '';
        return lines.flatMap((raw) => {
          if (!raw.trim()) return [];
          try {
            const parsed = TranscriptLine.safeParse(JSON.parse(raw));
            return parsed.success ? [parsed.data] : [];
          } catch {
            return [];
          }
        });
      } finally {
        await handle.close();
      }
    },
  };
}

/** Waits `ms`, or less when `signal` aborts (its listener is removed either way: one wait per poll). */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
