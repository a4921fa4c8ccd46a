// The feature grid: one cell per feature, grouped by category, rendered in chunks (the first screen at once, the
// rest in later tasks, so a 1,000-feature run paints fast) and updated in place as verdicts arrive.
import type { GridResponse } from '../../api-types.js';
import { FEATURE_STATES, type FeatureStateName } from '../../feature-state.js';
import { el, replaceChildren } from './dom.js';

/** Cells rendered in the first pass (about two screens); the rest follow in chunks of this size. */
const CHUNK = 240;

/**
 * Runs `task` when the page is idle: the rest of the grid waits until the header, chart and timeline (whose data
 * arrives meanwhile) have rendered; the timeout bounds the wait on a page that is never idle.
 */
function whenIdle(task: () => void): void {
  if (typeof requestIdleCallback === 'function') requestIdleCallback(task, { timeout: 300 });
  else setTimeout(task, 0);
}

/** What a cell shows. */
export interface GridCell {
  id: string;
  category: string;
  state: FeatureStateName;
  attempts: number;
}

/** The cells of a compact grid payload. */
export function gridCells(grid: GridResponse): GridCell[] {
  return grid.features.map(([id, category, state, attempts]) => ({
    id,
    category: grid.categories[category] ?? '',
    state,
    attempts,
  }));
}

/** A feature in flight on a lane (lanes mode): its lane, and whether it waits for the merge queue. */
export interface LaneMark {
  lane: number;
  waiting: boolean;
}

/** A rendered grid that can update single features without re-rendering. */
export interface FeatureGrid {
  element: HTMLElement;
  /** Renders all cells (the first chunk now, the rest in later tasks; `data-complete` is set when done). */
  setAll(cells: readonly GridCell[]): void;
  /** Updates one feature's cell; false when the feature is unknown (the caller reloads). */
  update(cell: GridCell): boolean;
  get(id: string): GridCell | undefined;
  /** Marks the selected feature's cell (null: none). */
  select(id: string | null): void;
  /** Feature descriptions for the cells' tooltips (loaded after the first paint). */
  describe(descriptions: ReadonlyMap<string, string>): void;
  /** How many features are in each state. */
  counts(): Record<FeatureStateName, number>;
  /** Marks the features in flight on a lane (repaints only the cells whose mark changed). */
  markLanes(marks: ReadonlyMap<string, LaneMark>): void;
}

/** Creates the grid; `onSelect` is called with a feature id when a cell is clicked. */
export function createFeatureGrid(onSelect: (featureId: string) => void): FeatureGrid {
  const cells = new Map<string, GridCell>();
  const buttons = new Map<string, HTMLButtonElement>();
  let descriptions: ReadonlyMap<string, string> = new Map();
  let lanes: ReadonlyMap<string, LaneMark> = new Map();
  let selected: string | null = null;
  let generation = 0;
  const legend = el('div', { class: 'legend', id: 'grid-legend' });
  const groups = el('div', { class: 'grid-groups' });
  const element = el(
    'section',
    { class: 'panel', id: 'feature-grid' },
    el('h2', null, 'Features'),
    legend,
    groups,
  );

  groups.addEventListener('click', (event) => {
    const cell = (event.target as Element).closest<HTMLElement>('[data-feature]');
    if (cell?.dataset.feature) onSelect(cell.dataset.feature);
  });

  const counts = () => {
    const totals = Object.fromEntries(FEATURE_STATES.map((state) => [state, 0])) as Record<
      FeatureStateName,
      number
    >;
    for (const cell of cells.values()) totals[cell.state]++;
    return totals;
  };
  const renderLegend = () => {
    const totals = counts();
    replaceChildren(
      legend,
      ...FEATURE_STATES.map((state) =>
        el('span', { class: `legend-item state-${state}`, 'data-count': state }, `${state} ${totals[state]}`),
      ),
    );
  };

  const paint = (button: HTMLButtonElement, cell: GridCell) => {
    button.className = `cell state-${cell.state}${cell.id === selected ? ' selected' : ''}`;
    button.dataset.state = cell.state;
    const description = descriptions.get(cell.id);
    const mark = lanes.get(cell.id);
    const onLane = mark
      ? ` · lane ${mark.lane}${mark.waiting ? ': passed on its lane, waiting to merge' : ''}`
      : '';
    button.title = `${cell.id} · ${cell.state} · ${cell.attempts} failed attempt(s)${onLane}${description ? `\n${description}` : ''}`;
    if (mark) button.classList.add('on-lane');
    if (mark?.waiting) button.classList.add('merge-pending');
    replaceChildren(
      button,
      el('span', { class: 'cell-id' }, cell.id),
      cell.attempts > 0 ? el('span', { class: 'cell-attempts' }, `×${cell.attempts}`) : null,
      mark ? el('span', { class: 'cell-lane', 'data-lane': String(mark.lane) }, `lane ${mark.lane}`) : null,
      mark?.waiting ? el('span', { class: 'cell-merge', title: 'waiting to merge' }, '⇢ merge') : null,
    );
  };

  const renderChunks = (ordered: Array<[HTMLElement, GridCell]>, from: number, mine: number) => {
    if (mine !== generation) return; // a newer setAll took over
    const end = Math.min(ordered.length, from + CHUNK);
    for (let index = from; index < end; index++) {
      const [box, cell] = ordered[index]!;
      const button = el('button', { type: 'button', 'data-feature': cell.id });
      paint(button, cells.get(cell.id) ?? cell);
      buttons.set(cell.id, button);
      box.appendChild(button);
    }
    if (end < ordered.length) whenIdle(() => renderChunks(ordered, end, mine));
    else element.dataset.complete = 'true';
  };

  return {
    element,
    get: (id) => cells.get(id),
    counts,
    setAll(list) {
      generation++;
      delete element.dataset.complete;
      cells.clear();
      buttons.clear();
      const byCategory = new Map<string, GridCell[]>();
      for (const cell of list) {
        cells.set(cell.id, cell);
        const group = byCategory.get(cell.category) ?? [];
        group.push(cell);
        byCategory.set(cell.category, group);
      }
      const fragment = document.createDocumentFragment();
      const ordered: Array<[HTMLElement, GridCell]> = [];
      for (const [category, members] of byCategory) {
        const passing = members.filter((cell) => cell.state === 'pass').length;
        const box = el('div', { class: 'cells' });
        fragment.appendChild(
          el(
            'div',
            { class: 'group', 'data-category': category },
            el('h3', null, category, el('span', { class: 'muted small' }, ` ${passing}/${members.length}`)),
            box,
          ),
        );
        for (const cell of members) ordered.push([box, cell]);
      }
      renderChunks(ordered, 0, generation);
      groups.replaceChildren(fragment);
      renderLegend();
    },
    update(cell) {
      if (!cells.has(cell.id)) return false;
      cells.set(cell.id, cell);
      const button = buttons.get(cell.id);
      if (button) paint(button, cell);
      renderLegend();
      return true;
    },
    select(id) {
      if (selected) buttons.get(selected)?.classList.remove('selected');
      selected = id;
      if (id) buttons.get(id)?.classList.add('selected');
    },
    describe(next) {
      descriptions = next;
      for (const [id, button] of buttons) paint(button, cells.get(id)!);
    },
    markLanes(next) {
      const previous = lanes;
      lanes = next;
      const changed = new Set([...previous.keys(), ...next.keys()]);
      for (const id of changed) {
        const [before, after] = [previous.get(id), next.get(id)];
        if (before?.lane === after?.lane && before?.waiting === after?.waiting) continue;
        const button = buttons.get(id);
        const cell = cells.get(id);
        if (button && cell) paint(button, cell);
      }
    },
  };
}
