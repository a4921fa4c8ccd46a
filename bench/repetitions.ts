/** How much each benchmark section repeats, and which repetitions the report states for sections kept. */
import type { Repetitions } from './results.js';

/** The repetitions of one `npm run bench` (`--quick`: fewer). */
export function repetitions(quick: boolean): Repetitions {
  return {
    demoRuns: 1,
    evaluatorColdRounds: quick ? 2 : 4,
    evaluatorWarmRounds: quick ? 3 : 8,
    // 20 runs are the least that can keep 20 sessions busy; 40 shared runs are the target itself.
    scaleRuns: quick
      ? { '1x1': 2, '1x5': 5, '1x20': 20, '2x10': 40 }
      : { '1x1': 4, '1x5': 10, '1x20': 20, '2x10': 40 },
    dashboardApiRepetitions: quick ? 5 : 21,
    dashboardPageLoads: quick ? 2 : 5,
    appStarts: quick ? 5 : 12,
    appDepsStarts: quick ? 3 : 6,
    recoveryKillsPerMode: quick ? 2 : 3,
    recoveryFailovers: 3,
    checkReplays: quick ? 30 : 100,
  };
}

/**
 * The repetitions to report: those of this run for what it measured (`measured`), the stored ones for the sections
 * kept from latest.json (a `--quick` section stays described as quick after a full rerun of another).
 */
export function reportedRepetitions(
  now: Repetitions,
  measured: ReadonlyArray<keyof Repetitions>,
  previous: Repetitions | undefined,
): Repetitions {
  if (!previous) return now;
  const reported: Repetitions = { ...previous };
  for (const key of measured) Object.assign(reported, { [key]: now[key] });
  return reported;
}
