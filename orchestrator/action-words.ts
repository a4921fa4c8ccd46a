/** The planner's next step in words (pure), as `nightshift status` and the run page's story say it. */
import type { LaneAction } from './lanes/lane-scheduler.js';
import type { NextAction } from './scheduler.js';

/** One clause a person reads: `generator session on F-003`, `merge lanes 1, 3 into the run branch`. */
export function describeNextAction(action: NextAction | LaneAction): string {
  switch (action.kind) {
    case 'initialize':
      return 'initializer session (spec → feature list)';
    case 'generate':
      return `generator session on ${action.featureId}`;
    case 'evaluate':
      return `evaluator session on ${action.featureId}`;
    case 'regress':
      return `evaluator (regression) session re-checking ${action.featureIds.length} passing feature(s)`;
    case 'merge':
      return action.lanes.length
        ? `merge ${action.lanes.map(({ lane, featureId }) => `lane ${lane} (${featureId})`).join(', ')} into the run branch${action.fullSweep ? ' after a full sweep' : ''}`
        : 'full sweep: replay every passing feature’s recorded check';
    case 'finish':
      return 'finish (every non-blocked feature passes)';
    case 'pause':
      return `pause (${action.reason}: ${action.detail})`;
    case 'fail':
      return `fail (${action.reason})`;
    case 'wait':
      return action.reason;
  }
}
