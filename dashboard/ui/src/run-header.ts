// The run page header: spec, status, controls (pause / resume / cancel) and the counts, with failing and untested
// features apart.

import type { RunResponse, RunView } from '../../api-types.js';
import type { FeatureStateName } from '../../feature-state.js';
import { api } from './api.js';
import { el, replaceChildren } from './dom.js';
import { costText, dateTime, elapsed, shortRunId } from './format.js';
import { progressBar, statusBadge } from './widgets.js';

/** The header: `render` after each run read; `counts` when the grid knows how many features are in each state. */
export interface RunHeader {
  element: HTMLElement;
  render(response: RunResponse): void;
  counts(counts: Record<FeatureStateName, number>): void;
}

/** Creates the header of run `runId`; `onChanged` gets the run after a control changed it. */
export function createRunHeader(runId: string, onChanged: (response: RunResponse) => void): RunHeader {
  const element = el(
    'section',
    { class: 'panel run-header', id: 'run-header' },
    el('p', { class: 'muted' }, 'Loading…'),
  );
  let run: RunView | undefined;
  let gridCounts: Record<FeatureStateName, number> | undefined;
  const failing = el('div', { class: 'stat-value' }, '…');
  const untested = el('div', { class: 'stat-value' }, '…');

  const renderCounts = () => {
    if (!run) return;
    const { total, passing, blocked } = run.features;
    // The store's count when it keeps one; otherwise the grid's (both count features never evaluated).
    const notTested = run.features.untested ?? gridCounts?.untested;
    untested.textContent = notTested === undefined ? '…' : String(notTested);
    failing.textContent =
      notTested === undefined ? '…' : String(Math.max(0, total - passing - blocked - notTested));
  };

  return {
    element,
    counts(next) {
      gridCounts = next;
      renderCounts();
    },
    render(response) {
      run = response.run;
      replaceChildren(element, ...headerParts(run, { runId, onChanged, failing, untested }));
      document.title = `${run.name} · ${shortRunId(run.id)} · nightshift`;
      renderCounts();
    },
  };
}

/** What the header's parts need besides the run: its controls' wiring and the two counts kept current. */
interface HeaderWiring {
  runId: string;
  onChanged: (response: RunResponse) => void;
  failing: HTMLElement;
  untested: HTMLElement;
}

/** The header's parts: name, status and controls; spec, workspace and id; the stats. */
function headerParts(run: RunView, wiring: HeaderWiring): HTMLElement[] {
  const { passing, total, blocked } = run.features;
  return [
    el(
      'div',
      { class: 'panel-head' },
      el('h1', null, run.name),
      statusBadge(run.status, run.pausedReason),
      controls(run, wiring.runId, wiring.onChanged),
    ),
    el(
      'p',
      { class: 'muted small', title: run.id },
      `${run.specName} · ${run.workspace} · ${run.id}`,
      run.detail ? ` · ${run.detail}` : '',
    ),
    el(
      'div',
      { class: 'stats' },
      progressBar(passing, total, blocked),
      stat('failing', wiring.failing),
      stat('untested', wiring.untested),
      stat('blocked', String(blocked)),
      stat('sessions', String(run.sessions)),
      stat('cost', costText(run.costUsd, run.costUnknownSessions)),
      stat('started', run.startedAt ? dateTime(run.startedAt) : '—'),
      stat('elapsed', elapsed(run.startedAt, run.finishedAt)),
      stat('next start', run.nextScheduledAt ? dateTime(run.nextScheduledAt) : '—'),
    ),
  ];
}

function controls(run: RunView, runId: string, onChanged: (response: RunResponse) => void): HTMLElement {
  const box = el('div', { class: 'controls' });
  const message = el('span', { class: 'muted small', id: 'control-message' });
  const button = (action: 'pause' | 'resume' | 'cancel', label: string, enabled: boolean) => {
    const b = el(
      'button',
      { type: 'button', id: `${action}-button`, class: action === 'cancel' ? 'danger' : '' },
      label,
    );
    b.disabled = !enabled;
    b.addEventListener('click', async () => {
      if (action === 'cancel' && !confirm(`Cancel run ${runId}? This cannot be undone.`)) return;
      b.disabled = true;
      try {
        onChanged(await api.control(runId, action));
      } catch (error) {
        message.textContent = (error as Error).message;
        b.disabled = false;
      }
    });
    return b;
  };
  const finished = run.status === 'done' || run.status === 'cancelled';
  box.append(
    button('pause', 'Pause', !finished && run.status !== 'paused'),
    button(
      'resume',
      run.status === 'incomplete' ? 'Retry blocked' : 'Resume',
      run.status === 'paused' || run.status === 'failed' || run.status === 'incomplete',
    ),
    button('cancel', 'Cancel', !finished),
    message,
  );
  return box;
}

function stat(label: string, value: string | HTMLElement): HTMLElement {
  return el(
    'div',
    { class: 'stat', 'data-stat': label },
    typeof value === 'string' ? el('div', { class: 'stat-value' }, value) : value,
    el('div', { class: 'muted small' }, label),
  );
}
