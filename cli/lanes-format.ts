/** The lanes of a run in the terminal: the progress line's `lanes:` part and the `status` rows (pure). */
import {
  type LaneStepView,
  laneMergeText,
  laneStepLabel,
  lanesBusyText,
  shownLaneNumbers,
} from '../orchestrator/lanes/lane-labels.js';
import type { LanesView } from '../orchestrator/lanes/lane-view.js';
import { elapsedMs, formatDuration } from './output.js';

/** One busy lane as the progress line shows it. */
export interface ProgressLane {
  lane: number;
  featureId: string;
  step: LaneStepView;
}

/** `1 F-003 generator`, `3 merging F-002`, `2 F-004 waiting to merge`. */
function progressLane({ lane, featureId, step }: ProgressLane): string {
  return step.kind === 'merging'
    ? `${lane} merging ${featureId}`
    : `${lane} ${featureId} ${laneStepLabel(step)}`;
}

/** `lanes: 1 F-003 generator · 2 F-004 evaluator · 3 merging F-002` (`lanes: all free` when none is busy). */
export function formatProgressLanes(lanes: readonly ProgressLane[]): string {
  return `lanes: ${
    lanes.length
      ? [...lanes]
          .sort((a, b) => a.lane - b.lane)
          .map(progressLane)
          .join(' · ')
      : 'all free'
  }`;
}

/** `merge queue: lane 2 · F-004 merged (head 1a2b3c4, …)`: the line `run` prints per `lane.merge` event. */
export function formatMergeNote(merge: Parameters<typeof laneMergeText>[0]): string {
  return `merge queue: ${laneMergeText(merge)}`;
}

/** What a lane's step adds in `status`: the session and how long it runs, or the merge job. */
function stepDetail(step: LaneStepView, now: Date): string {
  if (step.kind === 'session')
    return ` (session ${step.seq}, running for ${formatDuration(elapsedMs(step.startedAt, now))}, worker ${step.workerId})`;
  if (step.kind === 'queued') return ` (session ${step.seq}, waiting for a worker)`;
  if (step.kind === 'merging') return ` (job ${step.seq})`;
  return '';
}

/**
 * The `status` rows of a run's lanes: a summary with the merge queue, then one row per lane (busy: its feature,
 * step, branch and last merge; free), then the newest merge result.
 */
export function formatLaneRows(lanes: LanesView, now: Date): Array<[string, string]> {
  const merging = lanes.lanes.find((lane) => lane.lane === lanes.merging);
  const queue = merging ? `merging lane ${merging.lane} (${merging.featureId})` : 'idle';
  const waiting = lanes.waiting.length
    ? `, waiting: ${lanes.waiting.map((n) => `lane ${n}`).join(', ')}`
    : '';
  const rows: Array<[string, string]> = [
    ['lanes', `${lanesBusyText(lanes.configured, lanes.lanes)} · merge queue ${queue}${waiting}`],
  ];
  const busy = new Map(lanes.lanes.map((lane) => [lane.lane, lane]));
  for (const number of shownLaneNumbers(lanes.configured, [...busy.keys()])) {
    const lane = busy.get(number);
    if (!lane) {
      rows.push([`lane ${number}`, 'free']);
      continue;
    }
    const setbacks = lane.mergeSetbacks ? ` · ${lane.mergeSetbacks} merge setback(s)` : '';
    rows.push([
      `lane ${number}`,
      `${lane.featureId} ${laneStepLabel(lane.step)}${stepDetail(lane.step, now)} · ${lane.branch}${setbacks}`,
    ]);
  }
  const newest = lanes.recentMerges[0];
  if (newest) rows.push(['last merge', laneMergeText(newest)]);
  return rows;
}
