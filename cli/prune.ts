/** `nightshift prune [--older-than DURATION] [--dry-run] [--json]`: removes what finished runs leave behind. */
import type { Command } from 'commander';
import type { Freed } from '../orchestrator/housekeeping.js';
import { type PruneReport, pruneRuns } from '../orchestrator/prune.js';
import { type CliDeps, orchestratorOptions, resolveDeps, withOrchestrator } from './context.js';
import { durationMs } from './options.js';
import { formatDuration, formatTimestamp } from './output.js';
import { oneLine } from './terminal-text.js';

/** Runs that finished longer ago than this lose their records and run data unless `--older-than` says otherwise. */
export const DEFAULT_PRUNE_AGE = '30d';

/** `1.5 MB`: bytes for a person (powers of 1024, one decimal from KB on). */
export function formatBytes(bytes: number): string {
  const units = ['bytes', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${bytes} bytes` : `${value.toFixed(1)} ${units[unit]}`;
}

const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;

/** `2 worker clones, 3 lane branches, 1 app copy`; `nothing` when all are zero. */
function formatFreed(freed: Freed): string {
  const parts = [
    freed.runs ? plural(freed.runs, 'run record and its data', 'run records and their data') : '',
    freed.clones ? plural(freed.clones, 'worker clone') : '',
    freed.laneBranches ? plural(freed.laneBranches, 'lane branch', 'lane branches') : '',
    freed.appCopies ? plural(freed.appCopies, 'app copy', 'app copies') : '',
  ].filter(Boolean);
  return parts.length ? `${parts.join(', ')} (${formatBytes(freed.bytes)})` : 'nothing';
}

/** The human report: one line per run touched, then the total and what was left alone. */
export function formatPruneReport(report: PruneReport): string {
  const verb = report.dryRun ? 'would remove' : 'removed';
  const lines = report.runs.map(
    (run) =>
      `${run.id}  ${oneLine(run.name, 32)}  ${run.status}, finished ${formatTimestamp(run.finishedAt)}: ${verb} ${formatFreed(run.freed)}`,
  );
  const age = formatDuration(report.olderThanMs);
  lines.push(
    `${report.dryRun ? 'Dry run: would free' : 'Freed'} ${formatFreed(report.freed)}. Runs that finished more than ${age} ago (before ${formatTimestamp(report.before)}) lose their records and run data; every finished run loses its lane branches and clones.`,
  );
  if (report.notFinished) {
    lines.push(
      `Left alone: ${plural(report.notFinished, 'run that is not finished', 'runs that are not finished')}.`,
    );
  }
  lines.push(...report.problems.map((problem) => `note: ${problem}`));
  return lines.join('\n');
}

/** Registers `prune`. */
export function registerPruneCommand(program: Command, deps: CliDeps = {}): void {
  program
    .command('prune')
    .description(
      'remove what finished runs leave behind: lane branches, clones, and old runs with their evidence',
    )
    .option(
      '--older-than <duration>',
      `runs finished longer ago than this also lose their records and evidence (default: ${DEFAULT_PRUNE_AGE})`,
      durationMs('--older-than', '14d'),
    )
    .option('--dry-run', 'say what would be removed, and remove nothing')
    .option('--json', 'print the report as one JSON document')
    .option('--config <file>', 'config file')
    .action(async (options: { olderThan?: number; dryRun?: boolean; json?: boolean; config?: string }) => {
      const resolved = resolveDeps(deps);
      await withOrchestrator(orchestratorOptions(resolved, options.config), async (context) => {
        const report = await pruneRuns(
          { orchestrator: context.orchestrator, dataDir: context.dataDir, dryRun: Boolean(options.dryRun) },
          {
            olderThanMs: options.olderThan ?? durationMs('--older-than')(DEFAULT_PRUNE_AGE),
            now: resolved.now(),
          },
        );
        resolved.stdout.write(
          options.json ? `${JSON.stringify(report, null, 2)}\n` : `${formatPruneReport(report)}\n`,
        );
      });
    });
}
