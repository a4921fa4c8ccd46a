/**
 * Times every `git` process the harness spawns in this process, so a handoff can be split into git and
 * the rest without touching the harness: `child_process.spawn` is wrapped and the ESM bindings synced
 * (`syncBuiltinESMExports`), which handoff/git-process.ts's `import { spawn }` then sees. Git run by the agent
 * inside `bash` is a grandchild and is not counted (it is model work, not handoff).
 */
import childProcess, { type ChildProcess } from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';

/** One git process: wall-clock start and end (epoch ms) and its subcommand. */
export interface GitSpan {
  start: number;
  end: number;
  command: string;
}

/** A recorder of git spans; `stop` restores the original spawn. */
export interface GitSpanRecorder {
  readonly spans: GitSpan[];
  stop(): void;
}

/** The git subcommand of an argument list (skipping `-c key=value` and other leading options). */
function subcommand(args: readonly string[]): string {
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] as string;
    if (arg === '-c' || arg === '-C') {
      index++;
      continue;
    }
    if (!arg.startsWith('-')) return arg;
  }
  return '(none)';
}

/** Starts recording the git processes spawned by this process. */
export function recordGitSpans(): GitSpanRecorder {
  const spans: GitSpan[] = [];
  const original = childProcess.spawn;
  const wrapped = ((command: string, ...rest: unknown[]) => {
    const child = (original as (...args: unknown[]) => ChildProcess)(command, ...rest);
    if (command === 'git' || command.endsWith('/git')) {
      const args = Array.isArray(rest[0]) ? (rest[0] as string[]) : [];
      const start = Date.now();
      child.once('close', () => spans.push({ start, end: Date.now(), command: subcommand(args) }));
    }
    return child;
  }) as typeof childProcess.spawn;
  childProcess.spawn = wrapped;
  syncBuiltinESMExports();
  return {
    spans,
    stop() {
      childProcess.spawn = original;
      syncBuiltinESMExports();
    },
  };
}

/** Milliseconds of [from, to] covered by at least one span (overlapping spans counted once). */
export function coveredMs(spans: readonly GitSpan[], from: number, to: number): number {
  const clipped = spans
    .map((span) => [Math.max(span.start, from), Math.min(span.end, to)] as const)
    .filter(([start, end]) => end > start)
    .sort((a, b) => a[0] - b[0]);
  let total = 0;
  let cursorEnd = -Infinity;
  for (const [start, end] of clipped) {
    if (end <= cursorEnd) continue;
    total += end - Math.max(start, cursorEnd);
    cursorEnd = end;
  }
  return total;
}

/** Git subcommands (with counts) whose spans start inside [from, to]. */
export function commandsIn(spans: readonly GitSpan[], from: number, to: number): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const span of spans) {
    if (span.start < from || span.start > to) continue;
    counts[span.command] = (counts[span.command] ?? 0) + 1;
  }
  return counts;
}
