// The session timeline: one row per session (newest first), paged so big runs stay fast. With lanes, a Lane column
// places each session on its lane's track, so sessions that overlap read as parallel.
import type { SessionRecord } from '../../../orchestrator/run/run-state.js';
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
  /** Shows the Lane column for a run with `lanes` > 1 (0 or 1: hidden). */
  setLanes(lanes: number): void;
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
  const headRow = el('tr');
  let lanes = 0;
  let shown: SessionsResponse | undefined;
  const renderHead = () =>
    replaceChildren(
      headRow,
      ...columns(lanes).map(([label, numeric]) => el('th', numeric ? { class: 'num' } : null, label)),
    );
  renderHead();
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
    el('table', { class: 'sessions' }, el('thead', null, headRow), body),
  );
  const render = (page: SessionsResponse) => {
    total = page.total;
    shown = page;
    replaceChildren(body, ...page.sessions.map((session) => sessionRow(session, lanes)));
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
  const setLanes = (next: number) => {
    const value = next > 1 ? next : 0;
    if (value === lanes) return;
    lanes = value;
    renderHead();
    if (shown) render(shown);
  };
  return { element, reload, setLanes };
}

/** The columns, with Lane after # when the run has lanes. */
function columns(lanes: number): ReadonlyArray<[string, boolean]> {
  return lanes > 0 ? [COLUMNS[0]!, ['Lane', false], ...COLUMNS.slice(1)] : COLUMNS;
}

/** `lane 2` on a track of `lanes` marks (the run's own slot — initializer, sweeps — reads `run`). */
function laneCell(session: SessionRecord, lanes: number): HTMLElement {
  const track = el(
    'span',
    { class: 'lane-track', 'aria-hidden': 'true' },
    // A pipelined lane (its predecessor waiting for the merge queue) may be numbered above `lanes`.
    ...Array.from({ length: Math.max(lanes, session.lane ?? 0) }, (_, index) =>
      el('span', { class: index + 1 === session.lane ? 'lane-mark on' : 'lane-mark' }),
    ),
  );
  return el(
    'td',
    { 'data-field': 'lane', 'data-lane': String(session.lane ?? 0) },
    track,
    el('span', { class: 'lane-label' }, session.lane === null ? 'run' : `lane ${session.lane}`),
  );
}

function sessionRow(session: SessionRecord, lanes: number): HTMLTableRowElement {
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
    lanes > 0 ? laneCell(session, lanes) : null,
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
