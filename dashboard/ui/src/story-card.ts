// "The night so far" (GET /api/runs/:id/story): the run in groups at the top of the run page — features by where they
// stand, what is stuck and why, what it cost, what runs and what is next, the night by the hour. Its size follows the
// groups, not the features or sessions; every text (feature names, reasons, questions: often model-written) is text.
import type { RunStory } from '../../api-types.js';
import { el, replaceChildren } from './dom.js';
import { hourMinute, money, time } from './format.js';

/** Items of a stuck list shown before "… and N more" (the rest are in the grid's Blocked filter). */
const STUCK_SHOWN = 8;

/** The groups of the counts line, in reading order, with their labels. */
const GROUPS: ReadonlyArray<[keyof RunStory['counts'], string]> = [
  ['passing', 'passing'],
  ['failing', 'failed, to retry'],
  ['blocked', 'blocked'],
  ['waiting', 'waiting for an answer'],
  ['inProgress', 'in progress'],
  ['notStarted', 'not started'],
];

/** The card: `show` renders a story. */
export interface StoryCard {
  element: HTMLElement;
  show(story: RunStory): void;
}

/** Creates the card; `onFeature` opens a feature's panel (a stuck feature's id was clicked). */
export function createStoryCard(onFeature: (featureId: string) => void): StoryCard {
  const element = el('section', { class: 'panel story', id: 'story' });
  element.hidden = true;
  element.addEventListener('click', (event) => {
    const target = (event.target as Element).closest<HTMLElement>('[data-story-feature]');
    if (target?.dataset.storyFeature) onFeature(target.dataset.storyFeature);
  });
  return {
    element,
    show(story) {
      element.hidden = false;
      replaceChildren(
        element,
        el('h2', null, `The night so far · ${story.counts.passing} / ${story.counts.total} passing`),
        countsLine(story.counts),
        stuckPart(story.stuck),
        el('div', { class: 'story-row', 'data-field': 'cost' }, costLine(story)),
        nowAndNext(story),
        timelinePart(story.timeline),
      );
    },
  };
}

function countsLine(counts: RunStory['counts']): HTMLElement {
  return el(
    'div',
    { class: 'story-counts' },
    ...GROUPS.map(([key, label]) =>
      el(
        'span',
        { class: `story-count count-${key}`, 'data-count': key },
        el('strong', null, String(counts[key])),
        ` ${label}`,
      ),
    ),
  );
}

/** A feature id that opens its panel. */
function featureLink(featureId: string): HTMLElement {
  return el('button', { type: 'button', class: 'story-feature', 'data-story-feature': featureId }, featureId);
}

/** A list of at most STUCK_SHOWN items, then how many more. */
function shortList(field: string, items: HTMLElement[]): HTMLElement {
  const more = items.length - STUCK_SHOWN;
  return el(
    'ul',
    { class: 'story-list', 'data-field': field },
    ...items.slice(0, STUCK_SHOWN),
    more > 0 ? el('li', { class: 'muted' }, `… and ${more} more`) : null,
  );
}

/** What is stuck and why: blocked features, features failing again and again, open questions (none: a calm line). */
function stuckPart(stuck: RunStory['stuck']): HTMLElement {
  const { blocked, struggling, questions } = stuck;
  if (blocked.length + struggling.length + questions.length === 0)
    return el('p', { class: 'story-row muted', 'data-field': 'stuck' }, 'Nothing is stuck.');
  return el(
    'div',
    { class: 'story-stuck', 'data-field': 'stuck' },
    blocked.length
      ? openGroup(
          `Blocked (${blocked.length}): the planner skips these until someone unblocks them`,
          shortList(
            'blocked',
            blocked.map(({ featureId, description, reason }) =>
              el(
                'li',
                { 'data-feature-id': featureId },
                featureLink(featureId),
                ` ${description} — `,
                el('span', { class: 'story-reason' }, reason),
              ),
            ),
          ),
        )
      : null,
    struggling.length
      ? openGroup(
          `Failing again and again (${struggling.length})`,
          shortList(
            'struggling',
            struggling.map(({ featureId, description, failedEvaluations, limit }) =>
              el(
                'li',
                { 'data-feature-id': featureId },
                featureLink(featureId),
                ` ${description} — ${failedEvaluations} of ${limit} failed evaluations before it is blocked`,
              ),
            ),
          ),
        )
      : null,
    questions.length
      ? openGroup(
          `Waiting for an answer (${questions.length}): answer in Questions below`,
          shortList(
            'questions',
            questions.map(({ id, featureId, question, askedAt }) =>
              el(
                'li',
                { 'data-question-id': id },
                `${id} · `,
                featureLink(featureId),
                ` · asked ${time(askedAt)} — ${question}`,
              ),
            ),
          ),
        )
      : null,
  );
}

function costLine({ cost, sessions }: RunStory): string {
  const spent = cost.usd === null ? 'cost unknown' : `${money(cost.usd)} so far`;
  const cap = cost.capUsd === null ? '' : ` of ${money(cost.capUsd)}`;
  const each = cost.perPassingUsd === null ? '' : ` · ${money(cost.perPassingUsd)} per passing feature`;
  const unknown = cost.unknownSessions ? ` (+${cost.unknownSessions} sessions of unknown cost)` : '';
  const wasted = sessions.wasted ? `, ${sessions.wasted} without a usable result` : '';
  return `${spent}${cap}${each}${unknown} · ${sessions.finished} sessions${wasted}, at most ${sessions.max}`;
}

function nowAndNext({ running, next }: RunStory): HTMLElement {
  const now = running.map(
    (session) =>
      `session ${session.seq} ${session.role}${session.kind === 'regress' ? ' (regression)' : ''}${session.featureIds.length ? ` on ${session.featureIds.join(', ')}` : ''}${session.lane ? ` · lane ${session.lane}` : ''} since ${time(session.startedAt)}`,
  );
  const upcoming = next.upcoming.length
    ? `Next in line: ${next.upcoming.join(', ')}${next.more ? ` and ${next.more} more` : ''}.`
    : null;
  return el(
    'div',
    { class: 'story-row', 'data-field': 'next' },
    el('div', null, el('strong', null, 'Now: '), now.length ? now.join('; ') : 'no session is running'),
    next.step ? el('div', null, el('strong', null, 'Then: '), next.step) : null,
    upcoming ? el('div', { class: 'muted' }, upcoming) : null,
  );
}

/** The night by bucket: one bar per bucket (passes), with sessions and failures in its tooltip and below. */
function timelinePart(timeline: RunStory['timeline']): HTMLElement | null {
  if (timeline.buckets.length === 0) return null;
  const peak = Math.max(1, ...timeline.buckets.map((bucket) => bucket.sessions));
  const unit = timeline.hours === 1 ? 'hour' : `${timeline.hours} hours`;
  const group = openGroup(
    `The night by the ${unit}: passes, failed checks and sessions`,
    el(
      'div',
      { class: 'story-bars' },
      ...timeline.buckets.map((bucket) => {
        const bar = el('span', { class: 'story-bar' });
        // Heights go through the CSSOM (allowed by the CSP), not a style attribute.
        bar.style.height = `${Math.round((bucket.sessions / peak) * 40)}px`;
        const passed = el('span', { class: 'story-bar-pass' });
        passed.style.height = `${Math.round((bucket.passed / peak) * 40)}px`;
        return el(
          'div',
          {
            class: 'story-bucket',
            'data-bucket': bucket.start,
            title: `${hourMinute(bucket.start)}: ${bucket.passed} passed, ${bucket.failed} failed, ${bucket.sessions} sessions, ${money(bucket.costUsd)}`,
          },
          el('span', { class: 'story-bar-box' }, bar, passed),
          el('span', { class: 'small' }, `${bucket.passed}✓ ${bucket.failed}✗`),
          el('span', { class: 'small muted' }, hourMinute(bucket.start)),
        );
      }),
    ),
  );
  group.dataset.field = 'timeline';
  group.classList.add('story-night');
  return group;
}

/** A collapsible group, open at first (a person folds away what they have read). */
function openGroup(summary: string, body: HTMLElement): HTMLDetailsElement {
  const group = el('details', { class: 'story-group' }, el('summary', null, summary), body);
  group.open = true;
  return group;
}
