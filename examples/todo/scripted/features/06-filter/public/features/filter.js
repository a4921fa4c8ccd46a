// F-006: All / Active / Completed buttons choose which todos the list shows; the chosen one is pressed.
import { on, render, state } from '../core.js';

const FILTERS = [
  ['all', 'All'],
  ['active', 'Active'],
  ['completed', 'Completed'],
];

on('start', () => {
  const nav = document.createElement('nav');
  nav.setAttribute('aria-label', 'Filter');
  for (const [value, label] of FILTERS) {
    const button = document.createElement('button');
    button.type = 'button';
    button.textContent = label;
    button.dataset.filter = value;
    button.addEventListener('click', () => {
      state.filter = value;
      render();
    });
    nav.append(button);
  }
  document.getElementById('toolbar').append(nav);
});

on('visible', (todos) => {
  if (state.filter === 'active') return todos.filter((todo) => !todo.completed);
  if (state.filter === 'completed') return todos.filter((todo) => todo.completed);
  return todos;
});

on('rendered', () => {
  for (const button of document.querySelectorAll('[data-filter]')) {
    button.setAttribute('aria-pressed', String(button.dataset.filter === state.filter));
  }
});
