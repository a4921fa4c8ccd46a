// "Lanes" (runs with config `lanes` > 1): what each lane is doing now — its feature, branch and step (a session in
// flight, queued, waiting for the merge queue, merging) and its last merge — and the merge queue. Refreshed with
// the run (every event schedules a refresh).

import {
  laneMergeText,
  laneStepLabel,
  lanesBusyText,
  shownLaneNumbers,
} from '../../../orchestrator/lanes/lane-labels.js';
import type { LaneActivity, LanesView } from '../../api-types.js';
import { el, replaceChildren } from './dom.js';
import { time } from './format.js';

/** The card: `show` renders the run's lanes (hidden for a serial run). */
export interface LanesCard {
  element: HTMLElement;
  show(lanes: LanesView | null): void;
}

/** Creates the card (hidden until a run with lanes is shown). */
export function createLanesCard(): LanesCard {
  const element = el('section', { class: 'panel lanes', id: 'lanes' });
  element.hidden = true;
  return {
    element,
    show(lanes) {
      element.hidden = lanes === null;
      if (!lanes) return;
      const busy = new Map(lanes.lanes.map((lane) => [lane.lane, lane]));
      const rows = shownLaneNumbers(lanes.configured, [...busy.keys()]).map((number) => {
        const lane = busy.get(number);
        return lane ? laneRow(lane) : freeRow(number);
      });
      replaceChildren(
        element,
        el('h2', null, `Lanes · ${lanesBusyText(lanes.configured, lanes.lanes)}`),
        el('ul', { class: 'lane-list' }, ...rows),
        mergeQueueLine(lanes),
      );
    },
  };
}

function laneRow(lane: LaneActivity): HTMLElement {
  const step = lane.step;
  const when =
    step.kind === 'session'
      ? ` · session ${step.seq} since ${time(step.startedAt)} · worker ${step.workerId}`
      : step.kind === 'queued' || step.kind === 'merging'
        ? ` · job ${step.seq}`
        : '';
  const setbacks = lane.mergeSetbacks > 0 ? ` · ${lane.mergeSetbacks} merge setback(s)` : '';
  return el(
    'li',
    { class: 'lane', 'data-lane': String(lane.lane), 'data-step': step.kind },
    el('span', { class: 'badge lane-badge' }, `lane ${lane.lane}`),
    ' ',
    el('strong', { 'data-field': 'feature' }, lane.featureId),
    lane.description ? el('span', { 'data-field': 'description' }, ` ${lane.description}`) : null,
    ' ',
    el('span', { class: `lane-step step-${step.kind}`, 'data-field': 'step' }, laneStepLabel(step)),
    el('span', { class: 'muted' }, `${when}${setbacks}`),
    el('div', { class: 'muted small', 'data-field': 'branch' }, lane.branch),
    lane.lastMerge
      ? el(
          'div',
          { class: `small merge-${lane.lastMerge.outcome}`, 'data-field': 'last-merge' },
          `last merge: ${laneMergeText(lane.lastMerge)}`,
        )
      : lane.last?.role === 'merge'
        ? el('div', { class: 'small', 'data-field': 'last-merge' }, `last merge: ${lane.last.outcome}`)
        : null,
  );
}

function freeRow(lane: number): HTMLElement {
  return el(
    'li',
    { class: 'lane lane-free', 'data-lane': String(lane), 'data-step': 'free' },
    el('span', { class: 'badge lane-badge' }, `lane ${lane}`),
    el('span', { class: 'muted' }, ' free'),
  );
}

function mergeQueueLine(lanes: LanesView): HTMLElement {
  const merging = lanes.lanes.find((lane) => lane.lane === lanes.merging);
  const now = merging ? `merging lane ${merging.lane} (${merging.featureId})` : 'idle';
  const waiting = lanes.waiting.length
    ? ` · waiting: ${lanes.waiting.map((lane) => `lane ${lane}`).join(', ')}`
    : '';
  return el(
    'p',
    { class: 'merge-queue', 'data-field': 'merge-queue' },
    el('strong', null, 'Merge queue: '),
    `${now}${waiting}`,
  );
}
