/**
 * Lanes at 200 features (issue 29): the lanes benchmark's spec (independent features, every fourth also adding its
 * line to one shared route table) built to done with 4 lanes on two worker processes, at 24 features and at 200.
 * Reports wall time, the merge queue's share of it, the replays by site, and Redis commands and bytes per session:
 * what the harness does per session must not grow faster than the features do (planner, run record reads and
 * writes, feature list parsing, dashboard updates). `npm run bench -- --only lanes-200` (about an hour on 2 cores).
 */
import { z } from 'zod';
import { buildWithLanes, LanesRun } from './lanes.js';
import { cpuCell } from './lanes-report.js';

/** One size of the spec built with 4 lanes. */
export const LanesScaleSize = z.object({ features: z.number().int(), run: LanesRun });
export type LanesScaleSize = z.infer<typeof LanesScaleSize>;

/** The 200-feature lanes section of the benchmark. */
export const LanesScaleResult = z.object({
  lanes: z.number().int(),
  latencyMs: z.number(),
  sizes: z.array(LanesScaleSize),
});
export type LanesScaleResult = z.infer<typeof LanesScaleResult>;

/** Builds the spec at each size with `lanes` lanes. */
export async function measureLanesScale(options: {
  sizes: readonly number[];
  lanes: number;
  latencyMs: number;
  log?: (line: string) => void;
}): Promise<LanesScaleResult> {
  const sizes: LanesScaleSize[] = [];
  for (const features of options.sizes) {
    const run = await buildWithLanes(options.lanes, features, options.latencyMs, 4);
    options.log?.(
      `${features} features: ${run.status} ${run.passing}/${features} in ${Math.round(run.wallMs / 1000)} s, ${run.sessions} sessions`,
    );
    sizes.push({ features, run });
  }
  return { lanes: options.lanes, latencyMs: options.latencyMs, sizes };
}

/** Per-session Redis figures of one build (null when it recorded none). */
function perSession(run: LanesRun): { commands: number; kilobytes: number } | null {
  if (!run.redis || run.sessions === 0) return null;
  return {
    commands: Math.round(run.redis.commands / run.sessions),
    kilobytes: Math.round(run.redis.outputBytes / run.sessions / 1024),
  };
}

function share(part: number | undefined, whole: number): string {
  return part === undefined || whole <= 0 ? '—' : `${Math.round((part / whole) * 100)} %`;
}

/**
 * The target row: the largest size ends done with every feature passing, and Redis commands per session grow no
 * faster than the features (the largest size's over the smallest's, at most the ratio of their feature counts).
 */
export function lanesScaleTargetRow(
  result: LanesScaleResult | undefined,
): Array<{ name: string; target: string; measured: string; met: boolean; note?: string }> {
  const small = result?.sizes[0];
  const large = result?.sizes.at(-1);
  if (!result || !small || !large || small === large) return [];
  const smallSession = perSession(small.run);
  const largeSession = perSession(large.run);
  const growth =
    smallSession && largeSession ? Number((largeSession.commands / smallSession.commands).toFixed(2)) : null;
  const done = large.run.status === 'done' && large.run.passing === large.features;
  const met = done && growth !== null && growth <= large.features / small.features;
  return [
    {
      name: `${large.features}-feature run`,
      target: `${large.features} features with ${result.lanes} lanes to done; Redis commands per session grow no faster than the features (${large.features} vs ${small.features}; issue 29)`,
      measured: `${large.run.status} ${large.run.passing}/${large.features} in ${(large.run.wallMs / 60_000).toFixed(1)} min, merge queue ${share(large.run.mergeQueueMs, large.run.wallMs)} of it; Redis commands per session ${largeSession?.commands ?? '?'} vs ${smallSession?.commands ?? '?'} (${growth ?? '?'}×)`,
      met,
    },
  ];
}

/** The report's 200-feature lanes section. */
export function lanesScaleSection(result: LanesScaleResult | undefined, load: string): string {
  if (!result) return '';
  const rows = result.sizes.map(({ features, run }) => {
    const session = perSession(run);
    const replays = Object.entries(run.replays ?? {})
      .map(([where, count]) => `${where} ${count}`)
      .join(', ');
    return `| ${features} | ${run.status} ${run.passing}/${features} | ${(run.wallMs / 60_000).toFixed(1)} min | ${run.sessions} | ${share(run.mergeQueueMs, run.wallMs)} | ${run.merges.merged} / ${run.merges.conflict} / ${run.merges.rejected} / ${run.merges.error} | ${replays || '—'} | ${session?.commands ?? '—'} | ${session?.kilobytes ?? '—'} kB | ${run.blockedByConflicts} | ${cpuCell(run)} |`;
  });
  return [
    '## Lanes at 200 features',
    '',
    `The lanes spec (independent features, every fourth also adding its line to one shared route table) built to done with ${result.lanes} lanes by two worker processes, at each size; every model request waits ${result.latencyMs} ms. The lanes spec's scripted model, not the overnight one: the simulated model knows the todo example's 8 features and the meal planner's, not 200. The merge queue's share is the wall time in which some lane's passed feature waited for or was in the merge queue. Redis figures are the server's own counters over the build (nothing else used that Redis), divided by the sessions: BullMQ's polling and lock renewals are in them, so they grow with the wall time as well.`,
    '',
    '| features | run | wall time | sessions | merge queue share | merges: merged / conflict / rejected / error | checks replayed by site | Redis commands per session | Redis bytes sent per session | blocked by conflicts | worker CPU (over the cores) |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    `Load average when this section started: ${load}.`,
    '',
  ].join('\n');
}
