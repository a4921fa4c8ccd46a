/**
 * A run worked in the terminal (`nightshift run` without --detach, `nightshift plan` that starts one): an in-process
 * worker, the live progress, and what the command says and exits with when the run stops — every way it can stop.
 */
import { logFile, moduleLogger } from '../core/log.js';
import { pauseRun } from '../orchestrator/controls.js';
import { usesLanes } from '../orchestrator/lanes/lanes.js';
import type { RunRecord } from '../orchestrator/run/index.js';
import type { OpenCliContext, ResolvedDeps } from './context.js';
import { followRun } from './follow.js';
import { oneLine } from './terminal-text.js';
import { startCliWorker, untilSignal } from './worker.js';

const log = moduleLogger('cli/foreground');

/**
 * Exit codes of a foreground `run` and of `follow`, by how the run stopped (docs/operations.md lists them):
 * 0 done (or paused at a budget, deadline, stuck or no-progress limit it was given), 1 ended `incomplete`,
 * `failed` or `cancelled`, paused `harness-error`, or gone from Redis while followed (RunVanishedError), 2 bad
 * input (nothing was changed), 3 paused by a person (`nightshift pause`, the dashboard, a Ctrl-C in another
 * terminal), 130 interrupted here (Ctrl-C or SIGTERM: the run is paused).
 */
export const EXIT_CODES = {
  done: 0,
  ended: 1,
  badInput: 2,
  pausedByPerson: 3,
  interrupted: 130,
} as const;

/** Exit code of a foreground `run` that stopped following `run` (see {@link EXIT_CODES}). */
export function exitCodeOf(run: Pick<RunRecord, 'status' | 'pausedReason'>): number {
  if (run.status === 'failed' || run.status === 'cancelled' || run.status === 'incomplete') {
    return EXIT_CODES.ended;
  }
  // Paused because the harness itself keeps failing, not at a limit it was given: like a failure, it needs a person.
  if (run.status === 'paused' && run.pausedReason === 'harness-error') return EXIT_CODES.ended;
  if (run.status === 'paused' && run.pausedReason === 'user') return EXIT_CODES.pausedByPerson;
  return EXIT_CODES.done;
}

/**
 * The way on after a foreground run stopped paused: the same command works it here again; workers can too. Who
 * paused it (the run's detail) is said unless it was this terminal's Ctrl-C.
 */
export function goOnLine(
  run: Pick<RunRecord, 'id' | 'pausedReason' | 'detail'>,
  options: { interruptedHere?: boolean } = {},
): string {
  const who = run.detail && !options.interruptedHere ? ` (${oneLine(run.detail, 400)})` : '';
  const resume =
    run.pausedReason === 'budget'
      ? `\`nightshift resume ${run.id} --budget-usd N\``
      : `\`nightshift resume ${run.id}\` (or Resume in the dashboard)`;
  return `run ${run.id} is paused${who}. Go on with the same \`nightshift run\` command (it resumes the run on this workspace), or ${resume} for workers.`;
}

/**
 * After a run is registered: with `detach`, nothing more (workers do the rest); otherwise works it with an
 * in-process worker, shows progress until it ends and sets the exit code. The first Ctrl-C (or SIGTERM)
 * pauses the run — the session in flight stops at its next turn with a checkpoint — says how to resume it
 * and exits 130 once the worker has let go; a second one exits at once. A pause from elsewhere (the dashboard,
 * `nightshift pause`) ends it the same way with exit code 3. When following fails (the run's record gone from
 * Redis: RunVanishedError) the worker is closed before the error goes on. Returns the run to report.
 */
export async function detachOrFollow(
  context: OpenCliContext,
  resolved: ResolvedDeps,
  run: RunRecord,
  options: { detach?: boolean },
): Promise<RunRecord> {
  if (options.detach) return run;
  const where = run.workspace.kind === 'local' ? run.workspace.path : run.workspace.url;
  const logPath = logFile();
  resolved.stderr.write(`run ${run.id}: workspace ${where}${logPath ? ` (log: ${logPath})` : ''}\n`);
  // The in-process worker runs every lane of the run at once (a run in lanes also takes other workers' slots), and
  // the merge queue beside them: lanes keep working while their passed features wait to merge.
  const lanesSlots = usesLanes(run.config) ? run.config.lanes + 1 : run.config.lanes;
  const slots = Math.max(context.config.worker.concurrency, lanesSlots);
  const worker = await startCliWorker(context, resolved.env, slots);
  const stop = new AbortController();
  let interrupted = false;
  void untilSignal().then(async (signal) => {
    const key = signal === 'SIGINT' ? 'Ctrl-C' : signal;
    resolved.stderr.write(
      `\n${key}: pausing run ${run.id}; the session in flight stops at its next turn with a checkpoint (${key} again to exit now).\n`,
    );
    try {
      await pauseRun(context.orchestrator, run.id, `interrupted (${key}) in the foreground`);
      interrupted = true;
    } catch {
      // Already finished, or Redis is gone: stop following either way.
      stop.abort();
    }
  });
  // A terminal redraws the progress line in place (the sink passes on its width); a log gets a line per change.
  let finished: RunRecord;
  try {
    finished = await followRun(context.orchestrator, run.id, {
      stream: resolved.stderr,
      signal: stop.signal,
    });
  } catch (error) {
    // Following failed (the run's record gone from Redis, say): the worker must stop too, or it keeps the process
    // alive after the error is printed. Its session in flight gets the shutdown grace, as on SIGTERM.
    const grace = context.config.worker.shutdownGraceSeconds;
    resolved.stderr.write(
      `\nrun ${run.id}: following it failed; stopping this terminal's worker (a session in flight gets up to ${grace} s to finish).\n`,
    );
    await worker
      .close()
      .catch((closeError: unknown) =>
        log.warn({ err: closeError, runId: run.id }, 'closing the worker after a failed follow failed'),
      );
    throw error;
  }
  await worker.close();
  if (interrupted || finished.status === 'paused') {
    resolved.stderr.write(`${goOnLine(finished, { interruptedHere: interrupted })}\n`);
  }
  resolved.setExitCode(interrupted ? EXIT_CODES.interrupted : exitCodeOf(finished));
  return finished;
}
