// "Now": what the run is doing at this moment — the session in flight (role, features, since when), the session
// waiting for a worker (and, when no worker is connected, how to start one), or why nothing runs; with lanes, the
// newest merge-queue results. Loaded with the run, then
// kept current by the event stream.
import type { StoredRunEvent } from '../../../orchestrator/events.js';
import { laneMergeText } from '../../../orchestrator/lanes/lane-labels.js';
import type {
  ActivityView,
  LaneMergeView,
  RunningSessionView,
  RunResponse,
  RunView,
} from '../../api-types.js';
import { el, replaceChildren } from './dom.js';
import { elapsed, time } from './format.js';
import { roleBadge } from './labels.js';

const ACTIVE = new Set<RunView['status']>(['created', 'initializing', 'building']);
/** Merge results shown (newest first). */
const MERGES_SHOWN = 3;

/** The card: `show` renders a loaded state, `apply` an event at once; the elapsed time ticks every second. */
export interface ActivityCard {
  element: HTMLElement;
  show(response: RunResponse): void;
  apply(stored: StoredRunEvent): void;
  dispose(): void;
}

/** Who a session is: its role, kind and features. */
type RoleView = Pick<RunningSessionView, 'featureIds'> & {
  role: RunningSessionView['role'] | null;
  kind: RunningSessionView['kind'];
};

interface CardState {
  status: RunView['status'];
  detail: string | null;
  activity: ActivityView;
  /** The last session that ended, as the events told (shown while between sessions). */
  ended: { seq: number; outcome: string } | null;
  /** The last app start that failed (an evaluation, or after the initializer), until a later session works. */
  appStart: { seq: number; text: string } | null;
  /** The newest merge-queue results (lanes mode), newest first. */
  merges: LaneMergeView[];
  /** The run wants sessions and no worker is connected: what to do (from the server), else null. */
  noWorker: string | null;
}

/** Creates the card (hidden until the run is loaded). */
export function createActivityCard(): ActivityCard {
  const element = el('section', { class: 'panel now', id: 'now', 'aria-live': 'polite' });
  element.hidden = true;
  let state: CardState | undefined;
  const since = el('span', { 'data-field': 'elapsed' });
  const tick = setInterval(() => {
    const running = state?.activity.running;
    const queued = state?.activity.queued;
    if (running) since.textContent = elapsed(running.startedAt, null);
    else if (queued?.at) since.textContent = elapsed(queued.at, null);
  }, 1000);

  const render = () => {
    if (!state) return;
    element.hidden = false;
    drawActivity(element, state, since);
    appendNotes(element, state);
  };

  return {
    element,
    show(response) {
      state = {
        status: response.run.status,
        detail: response.run.detail,
        activity: response.activity,
        ended: state?.ended ?? null,
        appStart: state?.appStart ?? null,
        merges: response.lanes?.recentMerges ?? state?.merges ?? [],
        noWorker: response.run.noWorker,
      };
      render();
    },
    apply({ event }) {
      if (!state) return;
      if (applyEvent(state, event)) render();
    },
    dispose: () => clearInterval(tick),
  };
}

/** The card's one line: what (a role badge and features, with `lead` before them), then `detail`, muted. */
function drawLine(
  element: HTMLElement,
  mode: string,
  lead: Node | string,
  role: RoleView,
  detail: Array<Node | string | null>,
): void {
  element.dataset.state = mode;
  replaceChildren(
    element,
    el('h2', null, 'Now'),
    el(
      'p',
      { class: 'now-line' },
      lead,
      ' ',
      roleBadge(role.role, role.kind),
      ' ',
      features(role.featureIds),
      el('span', { class: 'muted' }, ...detail),
    ),
  );
}

/** The card's main line: the running session, the queued one, or why nothing runs; `since` shows the elapsed time. */
function drawActivity(element: HTMLElement, state: CardState, since: HTMLElement): void {
  const { running, queued } = state.activity;
  if (running) {
    since.textContent = elapsed(running.startedAt, null);
    const pulse = el('span', { class: 'pulse', 'aria-hidden': 'true' }, '●');
    drawLine(element, 'running', pulse, running, [
      ` · session ${running.seq} · since `,
      el('span', { 'data-field': 'since' }, time(running.startedAt)),
      ' (',
      since,
      `) · worker ${running.workerId}`,
    ]);
  } else if (queued) {
    if (queued.at) since.textContent = elapsed(queued.at, null);
    const at = queued.at
      ? [' · queued at ', el('span', { 'data-field': 'since' }, time(queued.at)), ' (', since, ' ago)']
      : [];
    drawLine(element, 'queued', 'Waiting for a worker: ', queued, [` · session ${queued.seq}`, ...at]);
  } else {
    element.dataset.state = ACTIVE.has(state.status) ? 'idle' : 'stopped';
    const ended = state.ended ? ` Session ${state.ended.seq} ended (${state.ended.outcome}).` : '';
    const text = ACTIVE.has(state.status)
      ? `Between sessions: choosing the next step.${ended}`
      : `Nothing runs: the run is ${state.status}${state.detail ? ` (${state.detail})` : ''}.`;
    replaceChildren(element, el('h2', null, 'Now'), el('p', { class: 'now-line muted' }, text));
  }
}

/** The lines under the main one: no worker connected, a failed app start, the newest merges. */
function appendNotes(element: HTMLElement, state: CardState): void {
  // Nothing takes a session while no worker is connected: say so, and how to start one, under any line.
  if (state.noWorker && ACTIVE.has(state.status) && !state.activity.running)
    element.append(el('p', { class: 'now-line no-worker', 'data-field': 'no-worker' }, state.noWorker));
  if (state.appStart)
    element.append(el('p', { class: 'now-line app-start', 'data-field': 'app-start' }, state.appStart.text));
  for (const merge of state.merges.slice(0, MERGES_SHOWN))
    element.append(
      el(
        'p',
        { class: `now-line merge-line merge-${merge.outcome}`, 'data-merge': merge.outcome },
        el('strong', null, 'Merge queue: '),
        laneMergeText(merge),
      ),
    );
}

/** Applies one event to the card's state; false when the card does not show what it tells. */
function applyEvent(state: CardState, event: StoredRunEvent['event']): boolean {
  if (event.type === 'session.queued') {
    const { seq, role, kind, featureIds, at } = event;
    state.activity = { running: null, queued: { seq, role, kind, featureIds, at } };
  } else if (event.type === 'session.started') {
    const { seq, role, featureIds, workerId, at } = event;
    const queued = state.activity.queued;
    const kind = queued?.seq === seq ? queued.kind : null;
    state.activity = { running: { seq, role, kind, featureIds, startedAt: at, workerId }, queued: null };
  } else if (event.type === 'session.finished') {
    if (state.activity.running?.seq === event.seq) state.activity = { running: null, queued: null };
    state.ended = { seq: event.seq, outcome: event.outcome };
    // A later evaluation or initializer that completed had an app that started.
    const started = event.outcome === 'completed' && event.role !== 'generator';
    if (started && state.appStart && event.seq > state.appStart.seq) state.appStart = null;
  } else if (event.type === 'app.start_failed') {
    state.appStart = { seq: event.seq, text: appStartText(event) };
  } else if (event.type === 'lane.merge') {
    const { at, seq, lane, featureId, outcome, detail, head, checked } = event;
    const merge = { at, seq, lane, featureId, outcome, detail, head, checked };
    state.merges = [merge, ...state.merges.filter((kept) => kept.seq !== seq)];
  } else if (event.type === 'run.status') {
    state.status = event.status;
    state.detail = event.detail;
  } else return false;
  return true;
}

/** `The app did not start in session 4 (evaluator, F-002): init.sh exited with code 1. Last log line: …` */
function appStartText(event: Extract<StoredRunEvent['event'], { type: 'app.start_failed' }>): string {
  const how = event.exitCode === null ? 'did not answer in time' : `exited with code ${event.exitCode}`;
  const who = [event.role, ...event.featureIds].join(', ');
  const last = event.logTail.at(-1);
  return `The app did not start in session ${event.seq} (${who}): init.sh ${how}.${last ? ` Last log line: ${last}` : ''} Log: ${event.logFile} (data dir).`;
}

function features(ids: readonly string[]): HTMLElement {
  return el('strong', { 'data-field': 'features' }, ids.length ? ids.join(', ') : 'no feature');
}
