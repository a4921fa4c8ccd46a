// "Add a feature": a person describes a new feature in their words; a short session writes it as a feature entry
// (POST /api/runs/:id/features) and the run builds it. The answer (the new id, or why nothing was added) is shown as
// text; the box keeps what was typed when the add fails, so it can be reworded.
import { api } from './api.js';
import { el } from './dom.js';

/** Creates the card; `onAdded` runs after a feature was added (the page refreshes the run). */
export function createAddFeatureCard(runId: string, onAdded: () => void): HTMLElement {
  const box = el('textarea', {
    id: 'add-feature-text',
    class: 'answer-box',
    'aria-label': 'the new feature, in your words',
  });
  box.rows = 2;
  box.maxLength = 4000;
  box.placeholder = 'e.g. A "Clear completed" button removes every completed todo';
  const status = el('p', { class: 'muted small', id: 'add-feature-status', role: 'status' });
  const submit = el('button', { type: 'button', id: 'add-feature' }, 'Add feature') as HTMLButtonElement;
  submit.addEventListener('click', () => {
    const text = box.value.trim();
    if (!text) {
      status.textContent = 'Describe the feature first.';
      return;
    }
    submit.disabled = true;
    status.textContent = 'Writing the feature entry…';
    api
      .addFeature(runId, text)
      .then((added) => {
        box.value = '';
        const needs = added.feature.dependsOn.length
          ? ` (depends on ${added.feature.dependsOn.join(', ')})`
          : '';
        status.textContent = `${added.feature.id} added: ${added.feature.description}${needs}`;
        onAdded();
      })
      .catch((error: Error) => {
        status.textContent = `Not added: ${error.message}`;
      })
      .finally(() => {
        submit.disabled = false;
      });
  });
  return el(
    'section',
    { class: 'panel add-feature', id: 'add-feature-card' },
    el('h2', null, 'Add a feature'),
    box,
    el('div', { class: 'answer-actions' }, submit),
    status,
  );
}
