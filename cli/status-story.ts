/** The run's story (dashboard/story.ts) as the few `label  value` rows `nightshift status` prints. Pure. */
import type { RunStory } from '../dashboard/story-schema.js';
import { formatBar, formatMoney, formatTimestamp } from './output.js';
import { oneLine } from './terminal-text.js';

/** Ids named in one row before the rest is counted (`… and 12 more`). */
const IDS_SHOWN = 8;
/** Blocked features and questions listed one per row before the rest is counted. */
const ROWS_SHOWN = 5;
const SPARK = '▁▂▃▄▅▆▇█';

/** The story's rows, in three places of the status: what stands and is stuck, what the night cost and did, what is next. */
export interface StoryRows {
  /** Features by group, blocked features with why, struggling features, open questions. */
  standing: Array<[string, string]>;
  /** Cost per passing feature, the night's timeline, the newest nightly summary. */
  night: Array<[string, string]>;
  /** The features next in line. */
  upcoming: Array<[string, string]>;
}

/** The story as status rows. */
export function storyRows(story: RunStory): StoryRows {
  const { counts, stuck, cost, next } = story;
  const open = counts.total - counts.passing;
  // Failing and blocked are always said (a 0 there is news); the other groups only when some feature is in them.
  const groups = [
    `${counts.failing} failed, to retry`,
    `${counts.blocked} blocked`,
    counts.waiting && `${counts.waiting} waiting for an answer`,
    counts.inProgress && `${counts.inProgress} in progress`,
    counts.notStarted && `${counts.notStarted} not started`,
  ].filter(Boolean);
  const rows: Array<[string, string]> = [
    [
      'features',
      `${formatBar(counts.passing, counts.total)} ${counts.passing}/${counts.total} passing${open ? ` · ${groups.join(' · ')}` : ''}`,
    ],
    ...listRows(
      'blocked',
      stuck.blocked.map(({ featureId, reason }) => `${featureId}: ${oneLine(reason, 300)}`),
    ),
  ];
  if (stuck.struggling.length)
    rows.push([
      'struggling',
      `${idList(stuck.struggling.map(({ featureId, failedEvaluations, limit }) => `${featureId} ${failedEvaluations}/${limit} failed`))}`,
    ]);
  rows.push(
    ...listRows(
      'question',
      stuck.questions.map(({ id, featureId, question }) => `${id} (${featureId}): ${oneLine(question, 200)}`),
    ),
  );
  const night: Array<[string, string]> = [];
  if (cost.perPassingUsd !== null)
    night.push(['per feature', `${formatMoney(cost.perPassingUsd)} per passing feature`]);
  const line = nightLine(story.timeline);
  if (line) night.push(['night', line]);
  if (story.lastWindow) night.push(['last window', windowLine(story.lastWindow)]);
  const upcoming: Array<[string, string]> = next.upcoming.length
    ? [['upcoming', `${next.upcoming.join(', ')}${next.more ? ` (then ${next.more} more)` : ''}`]]
    : [];
  return { standing: rows, night, upcoming };
}

/** One row per item, at most ROWS_SHOWN, then how many more (`status --json` has them all). */
function listRows(label: string, items: readonly string[]): Array<[string, string]> {
  const rows = items.slice(0, ROWS_SHOWN).map((item): [string, string] => [label, item]);
  if (items.length > ROWS_SHOWN)
    rows.push([label, `… and ${items.length - ROWS_SHOWN} more (\`status --json\` lists them all)`]);
  return rows;
}

/** `a, b, c … and 4 more`. */
function idList(ids: readonly string[]): string {
  const more = ids.length > IDS_SHOWN ? ` … and ${ids.length - IDS_SHOWN} more` : '';
  return `${ids.slice(0, IDS_SHOWN).join(', ')}${more}`;
}

/** The night in one line: passes per bucket as a sparkline, with the totals and the span. */
export function nightLine(timeline: RunStory['timeline']): string | null {
  const { buckets, hours } = timeline;
  if (buckets.length === 0) return null;
  const peak = Math.max(1, ...buckets.map((bucket) => bucket.passed));
  const spark = buckets
    .map((bucket) =>
      bucket.passed === 0
        ? '·'
        : SPARK[Math.min(SPARK.length - 1, Math.ceil((bucket.passed / peak) * SPARK.length) - 1)],
    )
    .join('');
  const sum = (pick: (bucket: RunStory['timeline']['buckets'][number]) => number) =>
    buckets.reduce((total, bucket) => total + pick(bucket), 0);
  const unit = hours === 1 ? 'hour' : `${hours} hours`;
  const totals = [
    counted(
      sum((b) => b.passed),
      'pass',
      'passes',
    ),
    counted(
      sum((b) => b.failed),
      'failed check',
      'failed checks',
    ),
  ];
  return `passes per ${unit} ${spark} from ${formatTimestamp(buckets[0]!.start)}: ${totals.join(', ')} in ${counted(
    sum((b) => b.sessions),
    'session',
    'sessions',
  )}`;
}

/** "1 pass", "3 passes". */
function counted(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** The newest nightly summary: newly passing, newly failing and blocked features, and what the window cost. */
function windowLine(window: NonNullable<RunStory['lastWindow']>): string {
  const ids = (list: readonly string[]) => (list.length ? idList(list) : 'none');
  return `${formatTimestamp(window.since)} → ${formatTimestamp(window.at)}: newly passing ${ids(window.newlyPassing)}; newly failing ${ids(window.newlyFailing)}; blocked ${ids(window.blocked)}; ${formatMoney(window.costUsd)}`;
}
