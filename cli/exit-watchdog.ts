/**
 * After a command has ended nothing should keep the process alive, but a worker, connection or timer left open on a
 * failed path would (a foreground `run` once hung that way after printing its error: cli/foreground.ts). In a
 * cron job that is a run that never exits and blocks the next night's. So once the command has returned, a timer
 * that never keeps the process alive itself (unref'd) waits a grace and then exits with the command's own code,
 * saying what was still open: such a bug costs seconds and a line on stderr, not a night.
 */
import { moduleLogger } from '../core/log.js';
import { terminalSink } from './terminal-text.js';

const log = moduleLogger('cli/exit-watchdog');

/** How long a process may stay alive after its command ended, in ms. */
export const EXIT_WATCHDOG_MS = 30_000;

/** What the watchdog touches, injected for its tests. */
export interface ExitWatchdogIo {
  /** Writes one line for the person (stderr). */
  write(text: string): void;
  /** Ends the process. */
  exit(code: number): void;
  /** Kinds of what keeps the event loop busy (Node's `process.getActiveResourcesInfo()`). */
  openResources(): string[];
}

const processIo: ExitWatchdogIo = {
  write: (text) => terminalSink(process.stderr).write(text),
  exit: (code) => process.exit(code),
  openResources: () => process.getActiveResourcesInfo(),
};

/**
 * Arms the watchdog for a command that ended with `exitCode`: if the process is still alive `delayMs` later, it
 * names what is open and exits with that code. The timer is unref'd: a process with nothing open exits at once.
 */
export function armExitWatchdog(
  exitCode: number,
  io: ExitWatchdogIo = processIo,
  delayMs = EXIT_WATCHDOG_MS,
): NodeJS.Timeout {
  const timer = setTimeout(() => {
    // Node lists only what is ref'd: this timer never shows, a leaked interval does (as `Timeout`).
    const open = countKinds(io.openResources());
    log.warn({ open, exitCode }, 'the process was kept alive after its command ended; exiting');
    io.write(
      `nightshift: the command ended ${Math.round(delayMs / 1000)} s ago but the process was kept alive (open: ${open || 'nothing listed'}); exiting. This is a bug: please report it with the log.\n`,
    );
    io.exit(exitCode);
  }, delayMs);
  timer.unref();
  return timer;
}

/** `TCPSocketWrap ×2, FSReqCallback` from a list of kinds. */
function countKinds(kinds: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const kind of kinds) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  return [...counts].map(([kind, count]) => (count > 1 ? `${kind} ×${count}` : kind)).join(', ');
}
