// The feature grid: one cell per feature, grouped by category, updated in place as verdicts arrive.
import type { FeatureView } from '../../api-types.js';
import { append, el, replaceChildren } from './dom.js';

/** The four states a cell shows. */
export type FeatureStateName = 'pass' | 'fail' | 'blocked' | 'untested';

/** Which of the four states a feature is in. */
export function featureState(feature: FeatureView): FeatureStateName {
  if (feature.passes) return 'pass';
  if (feature.blocked) return 'blocked';
  return feature.lastVerdict === null && feature.attempts === 0 ? 'untested' : 'fail';
}

/** A rendered grid that can update single features without re-rendering. */
export interface FeatureGrid {
  element: HTMLElement;
  /** Renders all features (one pass, one DocumentFragment). */
  setAll(features: FeatureView[]): void;
  /** Updates one feature's cell; false when the feature is unknown (the caller reloads). */
  update(feature: FeatureView): boolean;
  get(id: string): FeatureView | undefined;
}

/** Creates the grid; `onSelect` is called with a feature id when a cell is clicked. */
export function createFeatureGrid(onSelect: (featureId: string) => void): FeatureGrid {
  const features = new Map<string, FeatureView>();
  const cells = new Map<string, HTMLButtonElement>();
  const legend = el('div', { class: 'legend', id: 'grid-legend' });
  const groups = el('div', { class: 'grid-groups' });
  const element = el(
    'section',
    { class: 'panel', id: 'feature-grid' },
    el('h2', null, 'Features'),
    legend,
    groups,
  );

  let selected: string | undefined;
  groups.addEventListener('click', (event) => {
    const cell = (event.target as Element).closest<HTMLElement>('[data-feature]');
    if (!cell?.dataset.feature) return;
    if (selected) cells.get(selected)?.classList.remove('selected');
    selected = cell.dataset.feature;
    cell.classList.add('selected');
    onSelect(selected);
  });

  const renderLegend = () => {
    const totals: Record<FeatureStateName, number> = { pass: 0, fail: 0, blocked: 0, untested: 0 };
    for (const feature of features.values()) totals[featureState(feature)]++;
    replaceChildren(
      legend,
      ...(Object.keys(totals) as FeatureStateName[]).map((state) =>
        el('span', { class: `legend-item state-${state}`, 'data-count': state }, `${state} ${totals[state]}`),
      ),
    );
  };

  const paint = (cell: HTMLButtonElement, feature: FeatureView) => {
    const state = featureState(feature);
    cell.className = `cell state-${state}${cell.dataset.feature === selected ? ' selected' : ''}`;
    cell.dataset.state = state;
    cell.title = `${feature.id} · ${state} · ${feature.attempts} attempt(s)\n${feature.description}`;
    replaceChildren(
      cell,
      el('span', { class: 'cell-id' }, feature.id),
      feature.attempts > 0 ? el('span', { class: 'cell-attempts' }, `×${feature.attempts}`) : null,
    );
  };

  return {
    element,
    get: (id) => features.get(id),
    setAll(list) {
      features.clear();
      cells.clear();
      const byCategory = new Map<string, FeatureView[]>();
      for (const feature of list) {
        features.set(feature.id, feature);
        const group = byCategory.get(feature.category) ?? [];
        group.push(feature);
        byCategory.set(feature.category, group);
      }
      const fragment = document.createDocumentFragment();
      for (const [category, members] of byCategory) {
        const passing = members.filter((f) => f.passes).length;
        const box = el('div', { class: 'cells' });
        for (const feature of members) {
          const cell = el('button', { type: 'button', 'data-feature': feature.id });
          paint(cell, feature);
          cells.set(feature.id, cell);
          box.appendChild(cell);
        }
        append(
          fragment,
          el(
            'div',
            { class: 'group', 'data-category': category },
            el('h3', null, category, el('span', { class: 'muted small' }, ` ${passing}/${members.length}`)),
            box,
          ),
        );
      }
      groups.replaceChildren(fragment);
      renderLegend();
    },
    update(feature) {
      const cell = cells.get(feature.id);
      if (!cell) return false;
      features.set(feature.id, feature);
      paint(cell, feature);
      renderLegend();
      return true;
    },
  };
}
