// The runs page: every run (spec, workspace and short id) with status, progress, blocked count, cost, start,
// elapsed time and next scheduled start.
import type { RunView } from '../../api-types.js';
import { api } from './api.js';
import { el, replaceChildren } from './dom.js';
import { costText, dateTime, elapsed, shortRunId, workspaceName } from './format.js';
import { progressBar, statusBadge } from './widgets.js';

const REFRESH_MS = 5000;
/** Column headers, and whether the column is numeric (right-aligned). */
const COLUMNS: ReadonlyArray<[string, boolean]> = [
  ['Run', false],
  ['Status', false],
  ['Progress', false],
  ['Blocked', true],
  ['Cost', true],
  ['Sessions', true],
  ['Started', false],
  ['Elapsed', true],
  ['Next start', false],
];

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
        ...COLUMNS.map(([label, numeric]) => el('th', numeric ? { class: 'num' } : null, label)),
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
        { href: `/runs/${encodeURIComponent(run.id)}`, 'data-nav': '', class: 'run-link', title: run.id },
        run.name,
      ),
      el(
        'div',
        {
          class: 'muted small',
          'data-field': 'run-where',
          title: `${run.workspace}\n${run.specName}\n${run.id}`,
        },
        `${workspaceName(run.workspace)} · ${shortRunId(run.id)}`,
      ),
    ),
    el(
      'td',
      null,
      statusBadge(run.status, run.pausedReason),
      run.detail ? el('div', { class: 'muted small' }, run.detail) : null,
      run.noWorker
        ? el(
            'div',
            { class: 'small no-worker', 'data-field': 'no-worker', title: run.noWorker },
            'no worker connected',
          )
        : null,
    ),
    el('td', { class: 'progress-cell' }, progressBar(passing, total, blocked)),
    el('td', { class: 'num', 'data-field': 'blocked' }, String(blocked)),
    el('td', { class: 'num' }, costText(run.costUsd, run.costUnknownSessions)),
    el('td', { class: 'num' }, String(run.sessions)),
    el(
      'td',
      { 'data-field': 'started', title: run.startedAt ?? `created ${run.createdAt}` },
      run.startedAt ? dateTime(run.startedAt) : `not yet (created ${dateTime(run.createdAt)})`,
    ),
    el('td', { class: 'num' }, elapsed(run.startedAt, run.finishedAt)),
    el('td', null, run.nextScheduledAt ? dateTime(run.nextScheduledAt) : '—'),
  );
}
