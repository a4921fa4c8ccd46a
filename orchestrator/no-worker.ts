/** What the CLI and the dashboard say about a run that wants sessions while no worker is connected to the queue. */
import type { RunRecord } from './run/run-state.js';

/** A shell word: quoted only when it has to be. */
function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}

/** The `nightshift run` command that works this run's workspace here (it goes on with the run, not a new one). */
export function workHereCommand(run: Pick<RunRecord, 'spec' | 'workspace'>): string {
  const where =
    run.workspace.kind === 'local'
      ? `--workspace ${shellWord(run.workspace.path)}`
      : `--repo ${shellWord(run.workspace.url)} --branch ${shellWord(run.workspace.branch)}`;
  return `nightshift run ${shellWord(run.spec.path)} ${where}`;
}

/** `no worker is connected: start one (…) or work it here (…)`: the way on for a run nobody works. */
export function noWorkerNote(run: Pick<RunRecord, 'spec' | 'workspace'>): string {
  return `no worker is connected: start one with \`nightshift worker\`, or work it here with \`${workHereCommand(run)}\``;
}
