// The run page: header with controls, the night's story (story-card.ts), "now" card, lanes card (runs with lanes), nightly summary, chart, feature grid, timeline; live over SSE.
// `#feature=F-003` and `#session=12` in the URL open a feature's panel and a session's transcript.
import type { StoredRunEvent } from '../../../orchestrator/events.js';
import type { NightlySummaryView, RunResponse } from '../../api-types.js';
import { createActivityCard } from './activity-card.js';
import { createAddFeatureCard } from './add-feature-card.js';
import { api, observeLastEventIds } from './api.js';
import { progressChart } from './chart.js';
import { el, replaceChildren } from './dom.js';
import { showFeature } from './feature-detail.js';
import {
  createFeatureGrid,
  type FeatureGrid,
  type GridCell,
  gridCells,
  type LaneMark,
} from './feature-grid.js';
import { dateTime, money } from './format.js';
import { readHash, updateHash } from './hash.js';
import { createLanesCard, type LanesCard } from './lanes-card.js';
import { LoadGap, subscribeRun } from './live.js';
import { createQuestionsCard, type QuestionsCard } from './questions-card.js';
import { createRunHeader, type RunHeader } from './run-header.js';
import { createStoryCard, type StoryCard } from './story-card.js';
import { createTimeline } from './timeline.js';
import { openTranscript, type TranscriptDialog } from './transcript.js';

const REFRESH_DEBOUNCE_MS = 250;
/** Recent events replayed on connect, to see what happened while the page was loading. */
const REPLAY = 50;

/** Builds the run page's cards and panels and puts them into `root`, in page order. */
function renderRunLayout(root: HTMLElement, runId: string, onChanged: () => void) {
  const activity = createActivityCard();
  const lanes = createLanesCard();
  const questions = createQuestionsCard(runId, onChanged);
  const header = createRunHeader(runId, (response) => {
    header.render(response);
    activity.show(response);
    lanes.show(response.lanes);
    questions.show(response.run.questions);
  });
  const summary = el('section', { class: 'panel', id: 'nightly-summary' });
  summary.hidden = true;
  const chart = el(
    'section',
    { class: 'panel', id: 'chart-panel' },
    el('h2', null, 'Passing features over time'),
  );
  const detail = el('aside', { class: 'panel feature-detail', id: 'feature-detail' });
  detail.hidden = true;
  const grid = createFeatureGrid((featureId) => updateHash({ feature: featureId }));
  const timeline = createTimeline(runId);
  const story = createStoryCard((featureId) => updateHash({ feature: featureId }));
  replaceChildren(
    root,
    header.element,
    story.element,
    activity.element,
    questions.element,
    lanes.element,
    summary,
    chart,
    el('div', { class: 'grid-row' }, grid.element, detail),
    createAddFeatureCard(runId, onChanged),
    timeline.element,
  );
  return { header, story, activity, lanes, questions, summary, chart, detail, grid, timeline };
}

/** Renders the page of run `runId` into `root`; returns a disposer (closes the event stream). */
export function renderRunPage(root: HTMLElement, runId: string): () => void {
  document.title = `${runId} · nightshift`;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const schedule = () => {
    clearTimeout(timer);
    timer = setTimeout(() => void refresh(), REFRESH_DEBOUNCE_MS);
  };
  const { detail, ...parts } = renderRunLayout(root, runId, schedule);
  const { grid, activity } = parts;
  const route = hashRouter(runId, detail, grid, schedule);
  const refresh = refresher(runId, parts);
  // The load and the event stream start together; LoadGap tells whether an event may have slipped between them.
  const gap = new LoadGap(REPLAY);
  let loaded = false;
  let connected = false;
  const settle = () => {
    if (loaded && connected && gap.needsRefresh()) schedule();
  };
  observeLastEventIds((id) => gap.reflectedUpTo(id));
  route.apply();
  void refresh().then(() => {
    loaded = true;
    observeLastEventIds(undefined);
    root.setAttribute('aria-busy', 'false');
    settle();
    void loadDescriptions(runId, grid);
  });
  window.addEventListener('hashchange', route.apply);
  const live = document.getElementById('live');
  let connections = 0;
  const stop = subscribeRun(api.eventsUrl(runId, REPLAY), {
    onEvent(stored, isLive) {
      if (!loaded || !connected) return gap.saw(stored.id, !isLive);
      if (!isLive) return;
      applyEvent(grid, stored);
      activity.apply(stored);
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
    window.removeEventListener('hashchange', route.apply);
    route.dispose();
    activity.dispose();
    stop();
    live?.classList.remove('connected');
  };
}

/** Opens and closes the feature panel and the transcript dialog as the URL fragment says. */
function hashRouter(runId: string, detail: HTMLElement, grid: FeatureGrid, onRetried: () => void) {
  let transcript: TranscriptDialog | undefined;
  let shownFeature: string | null = null;
  const apply = () => {
    const { feature, session } = readHash();
    if (feature !== shownFeature) {
      shownFeature = feature;
      grid.select(feature);
      if (feature) {
        void showFeature(detail, runId, feature, {
          onClose: () => updateHash({ feature: null }),
          onRetried,
        });
      } else {
        detail.hidden = true;
        delete detail.dataset.feature;
      }
    }
    if (transcript && transcript.seq !== session) {
      const open = transcript;
      transcript = undefined;
      open.close();
    }
    if (session !== null && !transcript) {
      transcript = openTranscript(runId, session, () => {
        // Closed by the user (Esc, button): drop it from the URL; closed by a hash change: already gone.
        if (transcript?.seq === session) {
          transcript = undefined;
          updateHash({ session: null });
        }
      });
    }
  };
  return { apply, dispose: () => transcript?.close() };
}

/** Applies what an event says at once (the debounced refresh then brings in the rest). */
function applyEvent(grid: FeatureGrid, stored: StoredRunEvent): void {
  const event = stored.event;
  if (event.type !== 'verdict.applied') return;
  const cell = grid.get(event.featureId);
  if (!cell) return;
  const state: GridCell['state'] = event.passes ? 'pass' : event.verdict === 'fail' ? 'fail' : cell.state;
  grid.update({ ...cell, state, attempts: event.attempts });
}

/** Descriptions only feed the cells' tooltips: fetched after the first paint, off the page's critical path. */
async function loadDescriptions(runId: string, grid: FeatureGrid): Promise<void> {
  try {
    const { features } = await api.features(runId);
    grid.describe(new Map(features.map((feature) => [feature.id, feature.description])));
  } catch {
    // Tooltips without descriptions are still correct; the panel shows the description anyway.
  }
}

interface Parts {
  header: RunHeader;
  story: StoryCard;
  activity: ReturnType<typeof createActivityCard>;
  lanes: LanesCard;
  questions: QuestionsCard;
  summary: HTMLElement;
  chart: HTMLElement;
  grid: FeatureGrid;
  timeline: { reload(after?: Promise<unknown>): Promise<void>; setLanes(lanes: number): void };
}

/** The grid marks of a run's lanes: each busy lane's feature, and whether it waits for (or is in) the merge queue. */
function laneMarks(lanes: RunResponse['lanes']): Map<string, LaneMark> {
  return new Map(
    (lanes?.lanes ?? []).map((lane) => [
      lane.featureId,
      { lane: lane.lane, waiting: lane.step.kind === 'waiting-merge' || lane.step.kind === 'merging' },
    ]),
  );
}

function refresher(runId: string, parts: Parts): () => Promise<void> {
  let known = '';
  const syncGrid = (cells: GridCell[]) => {
    const ids = cells.map((cell) => cell.id).join(',');
    if (ids !== known) {
      known = ids;
      parts.grid.setAll(cells);
    } else {
      for (const cell of cells) {
        const shown = parts.grid.get(cell.id);
        if (!shown || shown.state !== cell.state || shown.attempts !== cell.attempts) parts.grid.update(cell);
      }
    }
    parts.header.counts(parts.grid.counts());
  };
  return async () => {
    try {
      // Everything is fetched at once; the header and the grid's first screen are drawn as soon as their data
      // arrives, the chart and the timeline (below the first screen) only after the grid's first chunk.
      const gridShown = api.grid(runId).then((grid) => syncGrid(gridCells(grid)));
      const afterGrid = gridShown.catch(() => undefined);
      await Promise.all([
        api.run(runId).then((run) => {
          parts.header.render(run);
          parts.activity.show(run);
          parts.lanes.show(run.lanes);
          parts.questions.show(run.run.questions);
          parts.grid.markLanes(laneMarks(run.lanes));
          parts.timeline.setLanes(run.lanes?.configured ?? 0);
          renderSummary(parts.summary, run.nightlySummary);
        }),
        gridShown,
        // A story that cannot be told now keeps the last one shown: the rest of the page stands on its own.
        api.story(runId).then(parts.story.show, () => undefined),
        Promise.all([api.progress(runId), afterGrid]).then(([progress]) =>
          replaceChildren(parts.chart, el('h2', null, 'Passing features over time'), progressChart(progress)),
        ),
        parts.timeline.reload(afterGrid),
      ]);
    } catch (error) {
      replaceChildren(
        parts.header.element,
        el('p', { class: 'error' }, `Could not load run ${runId}: ${(error as Error).message}`),
      );
    }
  };
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
    el(
      'div',
      { class: 'summary-list', 'data-field': 'blocked' },
      el('strong', null, `blocked (${summary.blocked.length}): `),
      summary.blocked.length
        ? (summary.blockedReasons.length
            ? summary.blockedReasons.map(({ featureId, reason }) => `${featureId} (${reason})`)
            : summary.blocked
          ).join('; ')
        : '—',
    ),
  );
}
