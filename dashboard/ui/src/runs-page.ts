// The runs page: every run with status, progress, blocked count, cost, elapsed time and next scheduled start.
import type { RunView } from '../../api-types.js';
import { api } from './api.js';
import { el, replaceChildren } from './dom.js';
import { dateTime, elapsed, money } from './format.js';
import { progressBar, statusBadge } from './widgets.js';

const REFRESH_MS = 5000;

/** Renders the runs page into `root`; returns a disposer. */
export function renderRunsPage(root: HTMLElement): () => void {
  document.title = 'Runs · nightshift';
  const body = el('tbody');
  const message = el('p', { class: 'muted' }, 'Loading…');
  const table = el(
    'table',
    { class: 'runs', id: 'runs-table' },
    el(
      'thead',
      null,
      el(
        'tr',
        null,
        ...['Run', 'Status', 'Progress', 'Blocked', 'Cost', 'Sessions', 'Elapsed', 'Next start'].map((h, i) =>
          el('th', i >= 3 && i <= 6 ? { class: 'num' } : null, h),
        ),
      ),
    ),
    body,
  );
  replaceChildren(root, el('h1', null, 'Runs'), message, table);
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const load = async () => {
    try {
      const { runs } = await api.runs();
      if (stopped) return;
      message.textContent = runs.length === 0 ? 'No runs yet. Start one with `nightshift run <spec>`.' : '';
      replaceChildren(body, ...runs.map(runRow));
      root.setAttribute('aria-busy', 'false');
    } catch (error) {
      message.textContent = `Could not load runs: ${(error as Error).message}`;
    }
    if (!stopped) timer = setTimeout(load, REFRESH_MS);
  };
  void load();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

function runRow(run: RunView): HTMLTableRowElement {
  const { total, passing, blocked } = run.features;
  return el(
    'tr',
    { 'data-run': run.id },
    el(
      'td',
      null,
      el(
        'a',
        { href: `/runs/${encodeURIComponent(run.id)}`, 'data-nav': '', class: 'run-link' },
        run.specName,
      ),
      el('div', { class: 'muted small' }, run.id),
    ),
    el(
      'td',
      null,
      statusBadge(run.status, run.pausedReason),
      run.detail ? el('div', { class: 'muted small' }, run.detail) : null,
    ),
    el('td', { class: 'progress-cell' }, progressBar(passing, total, blocked)),
    el('td', { class: 'num', 'data-field': 'blocked' }, String(blocked)),
    el(
      'td',
      { class: 'num' },
      run.costUsd === null ? 'unknown' : money(run.costUsd),
      run.costUnknownSessions > 0 && run.costUsd !== null ? ' +?' : '',
    ),
    el('td', { class: 'num' }, String(run.sessions)),
    el('td', { class: 'num' }, elapsed(run.startedAt, run.finishedAt)),
    el('td', null, run.nextScheduledAt ? dateTime(run.nextScheduledAt) : '—'),
  );
}
