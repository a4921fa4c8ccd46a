// The session timeline: one row per session (newest first), paged so big runs stay fast.
import type { SessionRecord } from '../../../orchestrator/run-state.js';
import type { SessionsResponse } from '../../api-types.js';
import { api } from './api.js';
import { el, replaceChildren } from './dom.js';
import { count, duration, money, time } from './format.js';
import { hashLink } from './hash.js';
import { roleBadge, sessionResult } from './labels.js';

const PAGE = 50;

/** The timeline panel: `reload()` refetches the current page (live updates call it), drawn once `after` settles. */
export interface Timeline {
  element: HTMLElement;
  reload(after?: Promise<unknown>): Promise<void>;
}

/** Column headers, and whether the column is numeric (right-aligned). */
const COLUMNS: ReadonlyArray<[string, boolean]> = [
  ['#', true],
  ['Role', false],
  ['Feature', false],
  ['Start', false],
  ['Duration', true],
  ['In', true],
  ['Out', true],
  ['Cached', true],
  ['Cost', true],
  ['Result', false],
  ['', false],
];

/** Creates the timeline of run `runId` (a session's transcript opens through its `#session=N` link). */
export function createTimeline(runId: string): Timeline {
  let offset = 0;
  let total = 0;
  const body = el('tbody');
  const status = el('span', { class: 'muted small', id: 'timeline-status' });
  const prev = el('button', { type: 'button', class: 'small-button' }, '← newer');
  const next = el('button', { type: 'button', class: 'small-button' }, 'older →');
  const element = el(
    'section',
    { class: 'panel', id: 'timeline' },
    el(
      'div',
      { class: 'panel-head' },
      el('h2', null, 'Sessions'),
      el('div', { class: 'pager' }, prev, status, next),
    ),
    el(
      'table',
      { class: 'sessions' },
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
    ),
  );
  const render = (page: SessionsResponse) => {
    total = page.total;
    replaceChildren(body, ...page.sessions.map(sessionRow));
    status.textContent =
      total === 0 ? 'no sessions yet' : `${offset + 1}–${offset + page.sessions.length} of ${total}`;
    prev.disabled = offset === 0;
    next.disabled = offset + PAGE >= total;
  };
  const reload = async (after?: Promise<unknown>) => {
    const page = await api.sessions(runId, offset, PAGE);
    await after?.catch(() => undefined);
    render(page);
  };
  prev.addEventListener('click', () => {
    offset = Math.max(0, offset - PAGE);
    void reload();
  });
  next.addEventListener('click', () => {
    if (offset + PAGE < total) offset += PAGE;
    void reload();
  });
  return { element, reload };
}

function sessionRow(session: SessionRecord): HTMLTableRowElement {
  const usage = session.usage;
  const result = sessionResult(session);
  const verdicts = session.verdicts.map((v) => `${v.featureId} ${v.verdict}`).join(', ');
  const open = hashLink({ session: session.seq }, 'transcript', {
    class: 'small-button link-button',
    'data-transcript': String(session.seq),
  });
  const finished = session.outcome !== null;
  return el(
    'tr',
    { 'data-seq': String(session.seq) },
    el('td', { class: 'num' }, String(session.seq)),
    el('td', null, roleBadge(session.role, session.kind)),
    el('td', null, session.featureIds.join(', ') || '—'),
    el('td', null, time(session.startedAt)),
    el('td', { class: 'num' }, duration(session.durationMs)),
    el('td', { class: 'num' }, count(usage?.inputTokens)),
    el('td', { class: 'num' }, count(usage?.outputTokens)),
    el('td', { class: 'num' }, count(usage?.cacheReadTokens)),
    el('td', { class: 'num' }, finished && session.costUsd === null ? 'unknown' : money(session.costUsd)),
    el(
      'td',
      { 'data-field': 'result' },
      el(
        'span',
        { class: `result result-${result.tone}`, 'data-result': result.label, title: session.reason ?? '' },
        result.label,
      ),
      verdicts ? el('div', { class: 'muted small' }, verdicts) : null,
    ),
    el('td', null, open),
  );
}
