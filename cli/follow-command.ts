/**
 * `nightshift follow [RUN]`: the live progress of any run from another terminal — worked by a foreground `run`, by
 * workers, or by nobody yet — until it stops, then how it ended and the way on. Changes nothing.
 */
import type { Command } from 'commander';
import { InputError } from '../core/errors.js';
import type { Orchestrator } from '../orchestrator/orchestrator.js';
import { connectedWorkers } from '../orchestrator/queues.js';
import { type CliDeps, orchestratorOptions, resolveDeps, withOrchestrator } from './context.js';
import { followRun } from './follow.js';
import { EXIT_CODES, exitCodeOf } from './foreground.js';
import { statusJsonOf, statusLabel } from './status.js';
import { stampLines, terminalSink } from './terminal-text.js';
import { untilSignal } from './worker.js';

/** The run a command means: the one named, or the newest. */
export async function runOrNewest(orchestrator: Orchestrator, runId: string | undefined): Promise<string> {
  if (runId) return (await orchestrator.store.getRun(runId)).id;
  const [newest] = await orchestrator.store.listRuns({ limit: 1 });
  if (!newest) {
    throw new InputError('NO_RUNS', 'There are no runs yet.', {
      hint: 'Start one with `nightshift run SPEC` (or try `nightshift demo`).',
    });
  }
  return newest.id;
}

/** Registers `follow [RUN]` (exit code: how the run stopped, as a foreground `run`; 130 after Ctrl-C). */
export function registerFollowCommand(program: Command, deps: CliDeps = {}): void {
  program
    .command('follow')
    .description('show the live progress of a run (default: the newest) until it stops; changes nothing')
    .argument('[run]', 'run id (default: the newest run)')
    .option('--config <file>', 'config file (default: $NIGHTSHIFT_CONFIG or ./nightshift.config.json)')
    .action((runId: string | undefined, options: { config?: string }) => {
      const resolved = resolveDeps(deps);
      return withOrchestrator(orchestratorOptions(resolved, options.config), async ({ orchestrator }) => {
        const id = await runOrNewest(orchestrator, runId);
        // In a log (CI, a file) every line carries its time; a terminal redraws one line in place.
        const stream = resolved.stdout.isTTY
          ? resolved.stdout
          : terminalSink(stampLines(resolved.stdout, resolved.now));
        const run = await orchestrator.store.getRun(id);
        stream.write(`following run ${id} (${statusLabel(run)}); Ctrl-C stops following, the run goes on\n`);
        const stop = new AbortController();
        let stopped = false;
        void untilSignal().then(() => {
          stopped = true;
          stop.abort();
        });
        const finished = await followRun(orchestrator, id, {
          stream,
          signal: stop.signal,
          connectedWorkers: () => connectedWorkers(orchestrator.queues),
        });
        const { next } = await statusJsonOf(orchestrator, id, resolved.now());
        stream.write(`next: ${next}\n`);
        resolved.setExitCode(stopped ? EXIT_CODES.interrupted : exitCodeOf(finished));
      });
    });
}
