/** The chaos suite's figures: recovery per disruption, summed up per mode, written for docs/reliability.md. */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { spread } from '../../bench/stats.js';
import type { RecoveryPhases } from './rig.js';

/** Where the last passing chaos run's figures go (docs/reliability.md quotes them). */
export const FIGURES_PATH = fileURLToPath(new URL('../../bench/results/chaos.json', import.meta.url));

/** One disruption: what, in which session, when, and how long until the run's next model request. */
export interface Disruption {
  what: string;
  kind: 'kill' | 'redis' | 'app' | 'reject' | 'disk';
  role: string;
  at: number;
  /** For kills: one worker alone (restarted after the kill) or a second worker already running. */
  mode?: string;
  /** For kills: whether a worker was running the session (false: none was, nothing was killed). */
  killed?: boolean;
  recoveryMs?: number;
  /** For kills: where the recovery's time went. */
  phases?: RecoveryPhases;
}

/** What the suite reports about the run besides the disruptions. */
export interface RunFacts {
  run: { status: string; features: unknown; sessions: number };
  heads: number;
  seconds: number;
  load: number[];
}

/** Median, worst and n of recoveries in seconds. */
export function recoveryFigure(ms: readonly number[]): {
  n: number;
  median: number | null;
  worst: number | null;
} {
  const figure = spread(ms.map((value) => value / 1000));
  return { n: figure.n, median: figure.median, worst: figure.max };
}

/**
 * The queue's share of a kill's recovery: until the job is back in the wait list, counted from the kill when
 * another worker was running, and from the restarted worker's start when it was alone (how long node takes to
 * start a worker is the machine's, not the failover settings').
 */
export function failoverMs(entry: Disruption): number | undefined {
  const phases = entry.phases;
  if (phases?.backInWaitMs === undefined) return undefined;
  const from = entry.mode === SOLO && phases.workerUpMs !== undefined ? phases.workerUpMs : 0;
  return Math.max(0, phases.backInWaitMs - from);
}

/** The kill mode with one worker, restarted after each kill. */
export const SOLO = 'one worker, restarted';

const seconds = (ms: number | undefined) => (ms === undefined ? 'n/a' : (ms / 1000).toFixed(1));
const phaseCells = (phases: RecoveryPhases) =>
  [phases.workerUpMs, phases.backInWaitMs, phases.sessionStartedMs].map(seconds).join(' | ');

/** The figures of one run, and its Markdown table. */
export function summarize(disruptions: readonly Disruption[], facts: RunFacts) {
  const kills = disruptions.filter((entry) => entry.kind === 'kill' && entry.killed);
  const recoveries = (list: readonly Disruption[]) =>
    recoveryFigure(list.flatMap((entry) => (entry.recoveryMs === undefined ? [] : [entry.recoveryMs])));
  const failovers = (list: readonly Disruption[]) =>
    recoveryFigure(list.flatMap((entry) => failoverMs(entry) ?? []));
  const modes = [...new Set(kills.map((entry) => entry.mode ?? ''))];
  const rows = disruptions.map(
    (entry, index) =>
      `| ${index + 1} | ${entry.what}${entry.kind === 'kill' && !entry.killed ? ' (no worker was busy)' : ''} | ${entry.mode ?? '—'} | ${entry.role} | ${seconds(entry.recoveryMs)} | ${entry.phases ? phaseCells(entry.phases) : '— | — | —'} |`,
  );
  const table = [
    '| # | disruption | workers | session in flight | recovery (s, to the next model request) | new worker up (s) | job back in wait (s) | session started (s) |',
    '|---|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
  return {
    measuredAt: new Date().toISOString(),
    ...facts,
    load: facts.load.map((value) => Number(value.toFixed(1))),
    killRecovery: {
      all: recoveries(kills),
      ...Object.fromEntries(
        modes.map((mode) => [mode, recoveries(kills.filter((entry) => entry.mode === mode))]),
      ),
    },
    queueFailover: {
      all: failovers(kills),
      ...Object.fromEntries(
        modes.map((mode) => [mode, failovers(kills.filter((entry) => entry.mode === mode))]),
      ),
    },
    disruptions: disruptions.map(({ at: _at, ...entry }) => entry),
    table,
  };
}

/** Writes the figures for docs/reliability.md. */
export function writeFigures(summary: ReturnType<typeof summarize>): void {
  fs.writeFileSync(FIGURES_PATH, `${JSON.stringify(summary, null, 2)}\n`);
}
