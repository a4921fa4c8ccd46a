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

/** What the grid keeps between renders. */
interface GridState {
  element: HTMLElement;
  legend: HTMLElement;
  cells: Map<string, GridCell>;
  buttons: Map<string, HTMLButtonElement>;
  descriptions: ReadonlyMap<string, string>;
  lanes: ReadonlyMap<string, LaneMark>;
  selected: string | null;
  /** Bumped by each setAll, so chunks of an older one stop. */
  generation: number;
}

/**
 * What the grid shows: everything, stuck features (blocked, failing) first, or one kind only. The filter is a
 * `data-filter` on the grid that the stylesheet acts on (order and display), so changing it touches no cell and
 * stays cheap at 1,000 features; it survives the cells' repaints.
 */
const FILTERS: ReadonlyArray<[value: string, label: string]> = [
  ['stuck-first', 'stuck first'],
  ['all', 'all, in list order'],
  ['open', 'not passing'],
  ['fail', 'failing'],
  ['blocked', 'blocked'],
  ['untested', 'untested'],
  ['pass', 'passing'],
];
const DEFAULT_FILTER = 'stuck-first';

/** The filter's select; it sets the grid's `data-filter`. */
function filterPicker(): HTMLElement {
  const select = el(
    'select',
    { id: 'grid-filter', 'aria-label': 'Show features' },
    ...FILTERS.map(([value, label]) => {
      const option = el('option', null, label);
      option.value = value;
      return option;
    }),
  );
  select.value = DEFAULT_FILTER;
  select.addEventListener('change', () => {
    const grid = select.closest<HTMLElement>('#feature-grid');
    if (grid) grid.dataset.filter = select.value;
  });
  return el('label', { class: 'small muted' }, 'Show ', select);
}

/** Creates the grid; `onSelect` is called with a feature id when a cell is clicked. */
export function createFeatureGrid(onSelect: (featureId: string) => void): FeatureGrid {
  const legend = el('div', { class: 'legend', id: 'grid-legend' });
  const groups = el('div', { class: 'grid-groups' });
  const element = el(
    'section',
    { class: 'panel', id: 'feature-grid', 'data-filter': DEFAULT_FILTER },
    el('div', { class: 'panel-head' }, el('h2', null, 'Features'), filterPicker()),
    legend,
    groups,
  );
  const state: GridState = {
    element,
    legend,
    cells: new Map(),
    buttons: new Map(),
    descriptions: new Map(),
    lanes: new Map(),
    selected: null,
    generation: 0,
  };

  groups.addEventListener('click', (event) => {
    const cell = (event.target as Element).closest<HTMLElement>('[data-feature]');
    if (cell?.dataset.feature) onSelect(cell.dataset.feature);
  });

  const { cells, buttons } = state;
  return {
    element,
    get: (id) => cells.get(id),
    counts: () => countStates(cells.values()),
    setAll: (list) => setAllCells(state, groups, list),
    update(cell) {
      if (!cells.has(cell.id)) return false;
      cells.set(cell.id, cell);
      const button = buttons.get(cell.id);
      if (button) paint(state, button, cell);
      renderLegendInto(legend, countStates(cells.values()));
      return true;
    },
    select(id) {
      if (state.selected) buttons.get(state.selected)?.classList.remove('selected');
      state.selected = id;
      if (id) buttons.get(id)?.classList.add('selected');
    },
    describe(next) {
      state.descriptions = next;
      for (const [id, button] of buttons) paint(state, button, cells.get(id)!);
    },
    markLanes(next) {
      const previous = state.lanes;
      state.lanes = next;
      for (const id of changedMarks(previous, next)) {
        const button = buttons.get(id);
        const cell = cells.get(id);
        if (button && cell) paint(state, button, cell);
      }
    },
  };
}

/** Paints `cell` into `button` with the grid's selection, descriptions and lane marks. */
function paint(state: GridState, button: HTMLButtonElement, cell: GridCell): void {
  paintCell(button, cell, {
    selected: cell.id === state.selected,
    description: state.descriptions.get(cell.id),
    mark: state.lanes.get(cell.id),
  });
}

/** Replaces every cell: group boxes at once, the cells' buttons in chunks. */
function setAllCells(state: GridState, groups: HTMLElement, list: readonly GridCell[]): void {
  state.generation++;
  delete state.element.dataset.complete;
  state.cells.clear();
  state.buttons.clear();
  for (const cell of list) state.cells.set(cell.id, cell);
  const { fragment, ordered } = renderGroupBoxes(groupByCategory(list));
  renderChunks(state, ordered, 0, state.generation);
  groups.replaceChildren(fragment);
  renderLegendInto(state.legend, countStates(state.cells.values()));
}

/** Renders the buttons of `ordered` from `from` on, one chunk now and the rest when idle, unless a newer setAll began. */
function renderChunks(
  state: GridState,
  ordered: Array<[HTMLElement, GridCell]>,
  from: number,
  mine: number,
): void {
  if (mine !== state.generation) return; // a newer setAll took over
  const end = Math.min(ordered.length, from + CHUNK);
  for (let index = from; index < end; index++) {
    const [box, cell] = ordered[index]!;
    const button = el('button', { type: 'button', 'data-feature': cell.id });
    paint(state, button, state.cells.get(cell.id) ?? cell);
    state.buttons.set(cell.id, button);
    box.appendChild(button);
  }
  if (end < ordered.length) whenIdle(() => renderChunks(state, ordered, end, mine));
  else state.element.dataset.complete = 'true';
}

/** How many of `cells` are in each state. */
function countStates(cells: Iterable<GridCell>): Record<FeatureStateName, number> {
  const totals = Object.fromEntries(FEATURE_STATES.map((state) => [state, 0])) as Record<
    FeatureStateName,
    number
  >;
  for (const cell of cells) totals[cell.state]++;
  return totals;
}

/** The legend: one item per state with its count. */
function renderLegendInto(legend: HTMLElement, totals: Record<FeatureStateName, number>): void {
  replaceChildren(
    legend,
    ...FEATURE_STATES.map((state) =>
      el('span', { class: `legend-item state-${state}`, 'data-count': state }, `${state} ${totals[state]}`),
    ),
  );
}

/** What a cell shows besides its feature: selection, tooltip description, lane mark. */
interface CellLook {
  selected: boolean;
  description: string | undefined;
  mark: LaneMark | undefined;
}

/** Paints one cell's button: state class, tooltip, id, attempts and lane badges. */
function paintCell(button: HTMLButtonElement, cell: GridCell, look: CellLook): void {
  const { description, mark } = look;
  button.className = `cell state-${cell.state}${look.selected ? ' selected' : ''}`;
  button.dataset.state = cell.state;
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
}

/** The cells by category, categories in order of first appearance. */
function groupByCategory(list: readonly GridCell[]): Map<string, GridCell[]> {
  const byCategory = new Map<string, GridCell[]>();
  for (const cell of list) {
    const group = byCategory.get(cell.category) ?? [];
    group.push(cell);
    byCategory.set(cell.category, group);
  }
  return byCategory;
}

/** One empty group box per category (heading with its pass count), and every cell paired with its box in order. */
function renderGroupBoxes(byCategory: ReadonlyMap<string, GridCell[]>): {
  fragment: DocumentFragment;
  ordered: Array<[HTMLElement, GridCell]>;
} {
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
  return { fragment, ordered };
}

/** The features whose lane mark differs between `previous` and `next`. */
function changedMarks(
  previous: ReadonlyMap<string, LaneMark>,
  next: ReadonlyMap<string, LaneMark>,
): string[] {
  const changed = new Set([...previous.keys(), ...next.keys()]);
  return [...changed].filter((id) => {
    const [before, after] = [previous.get(id), next.get(id)];
    return !(before?.lane === after?.lane && before?.waiting === after?.waiting);
  });
}
