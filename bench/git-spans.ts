/**
 * Times every `git` process the harness runs in this process, so a handoff can be split into git and the rest
 * without touching the harness: handoff/git-process.ts tells each one on its diagnostics channel, from the request
 * to the end (the process helper's start included). Git run by the agent inside `bash` is not counted (it is model
 * work, not handoff).
 */
import { type GitProcessSpan, gitProcessChannel } from '../handoff/git-process.js';

/** One git process: wall-clock start and end (epoch ms) and its subcommand. */
export interface GitSpan {
  start: number;
  end: number;
  command: string;
}

/** A recorder of git spans; `stop` stops listening. */
export interface GitSpanRecorder {
  readonly spans: GitSpan[];
  stop(): void;
}

/** Starts recording the git processes this process runs. */
export function recordGitSpans(): GitSpanRecorder {
  const spans: GitSpan[] = [];
  const listener = (message: unknown) => {
    const span = message as GitProcessSpan;
    spans.push({ start: span.start, end: span.end, command: span.subcommand });
  };
  gitProcessChannel.subscribe(listener);
  return {
    spans,
    stop() {
      gitProcessChannel.unsubscribe(listener);
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
