// The session timeline: one row per session (newest first), paged so big runs stay fast.
import type { SessionRecord } from '../../../orchestrator/run-state.js';
import type { SessionsResponse } from '../../api-types.js';
import { api } from './api.js';
import { el, replaceChildren } from './dom.js';
import { count, duration, money, time } from './format.js';

const PAGE = 50;

/** The timeline panel: `reload()` refetches the current page (live updates call it). */
export interface Timeline {
  element: HTMLElement;
  reload(): Promise<void>;
}

/** Creates the timeline of run `runId`; `onTranscript(seq)` opens a session's transcript. */
export function createTimeline(runId: string, onTranscript: (seq: number) => void): Timeline {
  let offset = 0;
  let total = 0;
  const body = el('tbody');
  const status = el('span', { class: 'muted small', id: 'timeline-status' });
  const prev = el('button', { type: 'button', class: 'small-button' }, '← newer');
  const next = el('button', { type: 'button', class: 'small-button' }, 'older →');
  const headers = ['#', 'Role', 'Feature', 'Start', 'Duration', 'In', 'Out', 'Cached', 'Cost', 'Outcome', ''];
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
          ...headers.map((h, i) => el('th', i === 0 || (i >= 4 && i <= 8) ? { class: 'num' } : null, h)),
        ),
      ),
      body,
    ),
  );
  const render = (page: SessionsResponse) => {
    total = page.total;
    replaceChildren(body, ...page.sessions.map((session) => sessionRow(session, onTranscript)));
    status.textContent =
      total === 0 ? 'no sessions yet' : `${offset + 1}–${offset + page.sessions.length} of ${total}`;
    prev.disabled = offset === 0;
    next.disabled = offset + PAGE >= total;
  };
  const reload = async () => render(await api.sessions(runId, offset, PAGE));
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

function sessionRow(session: SessionRecord, onTranscript: (seq: number) => void): HTMLTableRowElement {
  const usage = session.usage;
  const outcome = session.outcome ?? 'running';
  const verdicts = session.verdicts.map((v) => `${v.featureId} ${v.verdict}`).join(', ');
  const open = el(
    'button',
    { type: 'button', class: 'small-button', 'data-transcript': String(session.seq) },
    'transcript',
  );
  open.addEventListener('click', () => onTranscript(session.seq));
  return el(
    'tr',
    { 'data-seq': String(session.seq) },
    el('td', { class: 'num' }, String(session.seq)),
    el('td', null, el('span', { class: `role role-${session.role}` }, session.kind ?? session.role)),
    el('td', null, session.featureIds.join(', ') || '—'),
    el('td', null, time(session.startedAt)),
    el('td', { class: 'num' }, duration(session.durationMs)),
    el('td', { class: 'num' }, count(usage?.inputTokens)),
    el('td', { class: 'num' }, count(usage?.outputTokens)),
    el('td', { class: 'num' }, count(usage?.cacheReadTokens)),
    // A finished session without a cost had a model without a price: unknown, not "—" (still running).
    el(
      'td',
      { class: 'num' },
      session.finishedAt && session.costUsd === null ? 'unknown' : money(session.costUsd),
    ),
    el(
      'td',
      null,
      el('span', { class: `outcome outcome-${outcome}`, title: session.reason ?? '' }, outcome),
      verdicts ? el('div', { class: 'muted small' }, verdicts) : null,
    ),
    el('td', null, open),
  );
}
