/**
 * What the overnight bench reports for one way of building the app (nightshift at 1 or 4 lanes, the quickstart-style
 * loop), the schema of its figures, and the helpers the three share: the truth about the final code (which
 * features really work, whatever the run claims), time spans and their union, the projection to real turn times,
 * and dollars at Claude Sonnet prices.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { costAtPrice } from '../agent/cost.js';
import type { Usage } from '../agent/messages.js';
import { DEFAULT_PRICES, type ModelPrice } from '../agent/models.js';
import { API_MODULES, TODO_FEATURES } from '../testkit/policies/todo-features.js';
import { featureFiles } from '../testkit/policies/todo-sources.js';
import { MISSING_MODULE } from '../testkit/simulated/generator-mistakes.js';

/** The model whose price the dollars are reported at: the current Claude Sonnet ($3 in, $15 out per MTok). */
export const PRICED_AS = 'anthropic:claude-sonnet-5-5';

/** Where the time of a build went, in ms (model wait projected to real turn times; the rest as measured). */
export const PhaseBreakdown = z.object({
  modelWait: z.number(),
  toolsBash: z.number(),
  appStart: z.number(),
  evaluationBrowser: z.number(),
  gitHandoff: z.number(),
  mergeQueue: z.number(),
  /** Nothing running: between sessions (queue pick-up, the quickstart's pause), or a rate-limit pause. */
  idle: z.number(),
});
export type PhaseBreakdown = z.infer<typeof PhaseBreakdown>;

/** The figures of one build to done. */
export const OvernightBuild = z.object({
  /** `nightshift-1`, `nightshift-4`, `quickstart`. */
  name: z.string(),
  label: z.string(),
  status: z.string(),
  features: z.number().int(),
  /** Features the run says pass. */
  claimedPassing: z.number().int(),
  /** Features whose final code is correct (the truth, from the code; see `featureWorks`). */
  passing: z.number().int(),
  /** Claimed passing, but the final code is wrong. */
  falsePasses: z.number().int(),
  blocked: z.number().int(),
  /** Blocked features whose final code is correct. */
  falseBlocks: z.number().int(),
  measuredWallMs: z.number(),
  /** Wall time with every model wait stretched back to real turn times. */
  projectedWallMs: z.number(),
  sessions: z.number().int(),
  modelRequests: z.number().int(),
  tokens: z.object({ input: z.number(), output: z.number(), cacheRead: z.number(), cacheWrite: z.number() }),
  costUsd: z.number(),
  /** Evaluations (LLM or self-checks) that failed a feature. */
  failedEvaluations: z.number().int(),
  regressionsCaughtByChecks: z.number().int(),
  regressionsCaughtByModel: z.number().int(),
  /** Regressions the model made (a dropped registration) and how many of those features end broken. */
  regressionsMade: z.number().int(),
  mistakesMade: z.record(z.string(), z.number().int()),
  /** Passing features whose recorded check replayed green at the end (null: the loop records no checks). */
  checksGreen: z.number().int().nullable(),
  /** The merge queue's outcomes (lanes only): merged, conflict, rejected, error. */
  merges: z.record(z.string(), z.number().int()).default({}),
  phases: PhaseBreakdown,
  /** Sessions, model turns and dollars by role (nightshift: generator, evaluator; empty for the loop). */
  byRole: z
    .record(
      z.string(),
      z.object({ sessions: z.number().int(), turns: z.number().int(), costUsd: z.number() }),
    )
    .default({}),
});
export type OvernightBuild = z.infer<typeof OvernightBuild>;

/** Reads a file of the final code: the working tree (quickstart) or a commit (nightshift's run branch). */
export type CodeReader = (file: string) => string | undefined;

/** Reads files from the working tree of `dir`. */
export function workingTree(dir: string): CodeReader {
  return (file) => {
    const full = path.join(dir, file);
    return fs.existsSync(full) ? fs.readFileSync(full, 'utf8') : undefined;
  };
}

/** Reads files at `HEAD` of the repository in `dir`. */
export function atHead(dir: string): CodeReader {
  return (file) => {
    try {
      return execFileSync('git', ['-C', dir, 'show', `HEAD:${file}`], { encoding: 'utf8', stdio: 'pipe' });
    } catch {
      return undefined;
    }
  };
}

/**
 * Whether the todo feature at `position` (0-based) works in the final code: its files are there, every registration
 * line is in place, its planted bug is fixed, and the server does not import the module a broken start left behind.
 * The scripted generator writes nothing else, so this is exactly "the evaluator's browser check would pass".
 */
export function featureWorks(read: CodeReader, position: number): boolean {
  const feature = TODO_FEATURES[position];
  if (!feature) return false;
  if (read(API_MODULES)?.includes(MISSING_MODULE)) return false;
  for (const file of featureFiles(feature.sourceDir)) if (read(file.path) === undefined) return false;
  for (const insertion of feature.insertions) {
    if (!read(insertion.path)?.includes(insertion.lines[0] as string)) return false;
  }
  const bug = feature.plantedBug;
  return !bug || !read(bug.path)?.includes(bug.buggy);
}

/** A span of time, epoch ms. */
export type Span = readonly [number, number];

/** Milliseconds covered by at least one span (overlaps counted once). */
export function unionMs(spans: readonly Span[]): number {
  const sorted = spans.filter(([start, end]) => end > start).sort((a, b) => a[0] - b[0]);
  let total = 0;
  let reach = Number.NEGATIVE_INFINITY;
  for (const [start, end] of sorted) {
    if (end <= reach) continue;
    total += end - Math.max(start, reach);
    reach = end;
  }
  return total;
}

/**
 * Wall time at real turn times: every moment at least one model request (or a compressed pause) was in flight is
 * stretched by the compression. For parallel lanes this is an upper bound: harness work of one lane that overlapped
 * another lane's model wait is stretched too, where at real speed it would hide inside the longer wait.
 */
export function projectWall(measuredWallMs: number, compressedSpans: readonly Span[], compression: number) {
  return measuredWallMs + (compression - 1) * unionMs(compressedSpans);
}

/** Usage summed. */
export function addUsage(total: Usage, usage: Usage | null | undefined): Usage {
  if (!usage) return total;
  return {
    inputTokens: total.inputTokens + usage.inputTokens,
    outputTokens: total.outputTokens + usage.outputTokens,
    cacheReadTokens: total.cacheReadTokens + usage.cacheReadTokens,
    cacheWriteTokens: total.cacheWriteTokens + usage.cacheWriteTokens,
  };
}

/** No usage yet. */
export const NO_USAGE: Usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };

/** Dollars of `usage` at Claude Sonnet prices (agent/models.ts). */
export function sonnetDollars(usage: Usage): number {
  return costAtPrice(DEFAULT_PRICES[PRICED_AS] as ModelPrice, usage);
}

/** The report's token figures of a usage. */
export function tokenFigures(usage: Usage): OvernightBuild['tokens'] {
  return {
    input: usage.inputTokens,
    output: usage.outputTokens,
    cacheRead: usage.cacheReadTokens,
    cacheWrite: usage.cacheWriteTokens,
  };
}

/** Counts of each mistake kind. */
export function countKinds(kinds: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const kind of kinds) counts[kind] = (counts[kind] ?? 0) + 1;
  return counts;
}
