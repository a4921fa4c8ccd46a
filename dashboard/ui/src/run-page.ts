// The run page: header with controls, nightly summary, chart, feature grid, timeline; live over SSE.
import type { StoredRunEvent } from '../../../orchestrator/events.js';
import type { FeatureView, NightlySummaryView, RunResponse } from '../../api-types.js';
import { api, observeLastEventIds } from './api.js';
import { progressChart } from './chart.js';
import { el, replaceChildren } from './dom.js';
import { showFeature } from './feature-detail.js';
import { createFeatureGrid, type FeatureGrid } from './feature-grid.js';
import { dateTime, elapsed, money } from './format.js';
import { LoadGap, subscribeRun } from './live.js';
import { createTimeline } from './timeline.js';
import { openTranscript } from './transcript.js';
import { progressBar, statusBadge } from './widgets.js';

const REFRESH_DEBOUNCE_MS = 250;
/** Recent events replayed on connect, to see what happened while the page was loading. */
const REPLAY = 50;

/** Renders the page of run `runId` into `root`; returns a disposer (closes the event stream). */
export function renderRunPage(root: HTMLElement, runId: string): () => void {
  document.title = `${runId} · nightshift`;
  const header = el(
    'section',
    { class: 'panel run-header', id: 'run-header' },
    el('p', { class: 'muted' }, 'Loading…'),
  );
  const summary = el('section', { class: 'panel', id: 'nightly-summary' });
  summary.hidden = true;
  const chart = el(
    'section',
    { class: 'panel', id: 'chart-panel' },
    el('h2', null, 'Passing features over time'),
  );
  const detail = el('aside', { class: 'panel feature-detail', id: 'feature-detail' });
  detail.hidden = true;
  const grid = createFeatureGrid((featureId) => void showFeature(detail, runId, featureId));
  const timeline = createTimeline(runId, (seq) => openTranscript(runId, seq));
  replaceChildren(
    root,
    header,
    summary,
    chart,
    el('div', { class: 'grid-row' }, grid.element, detail),
    timeline.element,
  );

  const refresh = refresher(runId, { header, summary, chart, grid, timeline });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const schedule = () => {
    clearTimeout(timer);
    timer = setTimeout(() => void refresh.all(), REFRESH_DEBOUNCE_MS);
  };
  // The load and the event stream start together; LoadGap tells whether an event may have slipped between them.
  const gap = new LoadGap(REPLAY);
  let loaded = false;
  let connected = false;
  const settle = () => {
    if (loaded && connected && gap.needsRefresh()) schedule();
  };
  observeLastEventIds((id) => gap.reflectedUpTo(id));
  void refresh.all().then(() => {
    loaded = true;
    observeLastEventIds(undefined);
    root.setAttribute('aria-busy', 'false');
    settle();
  });
  const live = document.getElementById('live');
  let connections = 0;
  const stop = subscribeRun(api.eventsUrl(runId, REPLAY), {
    onEvent(stored, isLive) {
      if (!loaded || !connected) return gap.saw(stored.id, !isLive);
      if (!isLive) return;
      applyEvent(grid, stored);
      schedule();
    },
    onState(isConnected) {
      live?.classList.toggle('connected', isConnected);
      if (!isConnected) return;
      // A reconnect replays what was missed (Last-Event-ID) before its marker: refresh once.
      if (connections++ === 0) {
        connected = true;
        settle();
      } else schedule();
    },
  });
  return () => {
    clearTimeout(timer);
    observeLastEventIds(undefined);
    stop();
    live?.classList.remove('connected');
  };
}

/** Applies what an event says at once (the debounced refresh then brings in the rest). */
function applyEvent(grid: FeatureGrid, stored: StoredRunEvent): void {
  const event = stored.event;
  if (event.type === 'verdict.applied') {
    const feature = grid.get(event.featureId);
    if (feature) {
      grid.update({
        ...feature,
        passes: event.passes,
        lastVerdict: event.verdict,
        lastVerdictAt: event.at,
        attempts: event.attempts,
      });
    }
  }
}

interface Parts {
  header: HTMLElement;
  summary: HTMLElement;
  chart: HTMLElement;
  grid: FeatureGrid;
  timeline: { reload(): Promise<void> };
}

function refresher(runId: string, parts: Parts) {
  let known = '';
  const syncFeatures = (features: FeatureView[]) => {
    const ids = features.map((f) => f.id).join(',');
    if (ids !== known) {
      known = ids;
      parts.grid.setAll(features);
      return;
    }
    for (const feature of features) {
      const shown = parts.grid.get(feature.id);
      if (!shown || JSON.stringify(shown) !== JSON.stringify(feature)) parts.grid.update(feature);
    }
  };
  return {
    async all() {
      try {
        // Each part renders as soon as its data arrives; the grid does not wait for the chart.
        await Promise.all([
          api.run(runId).then((run) => {
            renderHeader(parts.header, run, runId);
            renderSummary(parts.summary, run.nightlySummary);
          }),
          api.features(runId).then((features) => syncFeatures(features.features)),
          api
            .progress(runId)
            .then((progress) =>
              replaceChildren(
                parts.chart,
                el('h2', null, 'Passing features over time'),
                progressChart(progress),
              ),
            ),
          parts.timeline.reload(),
        ]);
      } catch (error) {
        replaceChildren(
          parts.header,
          el('p', { class: 'error' }, `Could not load run ${runId}: ${(error as Error).message}`),
        );
      }
    },
  };
}

function renderHeader(header: HTMLElement, { run }: RunResponse, runId: string): void {
  const controls = el('div', { class: 'controls' });
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
        const result = await api.control(runId, action);
        renderHeader(header, result, runId);
      } catch (error) {
        message.textContent = (error as Error).message;
        b.disabled = false;
      }
    });
    return b;
  };
  const finished = run.status === 'done' || run.status === 'cancelled';
  controls.append(
    button('pause', 'Pause', !finished && run.status !== 'paused'),
    button('resume', 'Resume', run.status === 'paused' || run.status === 'failed'),
    button('cancel', 'Cancel', !finished),
    message,
  );
  const { passing, total, blocked, failing } = run.features;
  replaceChildren(
    header,
    el(
      'div',
      { class: 'panel-head' },
      el('h1', null, run.specName),
      statusBadge(run.status, run.pausedReason),
      controls,
    ),
    el('p', { class: 'muted small' }, `${run.id} · ${run.workspace}`, run.detail ? ` · ${run.detail}` : ''),
    el(
      'div',
      { class: 'stats' },
      progressBar(passing, total, blocked),
      stat('failing', String(failing)),
      stat('blocked', String(blocked)),
      stat('sessions', String(run.sessions)),
      stat(
        'cost',
        run.costUsd === null ? 'unknown' : `${money(run.costUsd)}${run.costUnknownSessions ? ' +?' : ''}`,
      ),
      stat('elapsed', elapsed(run.startedAt, run.finishedAt)),
      stat('next start', run.nextScheduledAt ? dateTime(run.nextScheduledAt) : '—'),
    ),
  );
}

function stat(label: string, value: string): HTMLElement {
  return el(
    'div',
    { class: 'stat', 'data-stat': label },
    el('div', { class: 'stat-value' }, value),
    el('div', { class: 'muted small' }, label),
  );
}

function renderSummary(panel: HTMLElement, summary: NightlySummaryView | null): void {
  panel.hidden = summary === null;
  if (!summary) return;
  const list = (label: string, ids: string[]) =>
    el(
      'div',
      { class: 'summary-list' },
      el('strong', null, `${label} (${ids.length}): `),
      ids.length ? ids.join(', ') : '—',
    );
  replaceChildren(
    panel,
    el('h2', null, `Nightly summary · ${dateTime(summary.since)} → ${dateTime(summary.at)}`),
    el('p', null, `${summary.passing} / ${summary.total} passing · ${money(summary.costUsd)}`),
    list('newly passing', summary.newlyPassing),
    list('newly failing', summary.newlyFailing),
    list('blocked', summary.blocked),
  );
}
