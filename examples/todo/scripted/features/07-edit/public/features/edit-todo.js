// F-007: edit a todo's text with its Edit button or a double-click; Enter (or leaving the field) saves, Escape cancels.
import { api, on, render } from '../core.js';

function startEditing(todo, title) {
  const input = document.createElement('input');
  input.className = 'edit';
  input.value = todo.title;
  input.setAttribute('aria-label', `New text for ${todo.title}`);
  let finished = false;
  const finish = async (save) => {
    if (finished) return;
    finished = true;
    const value = input.value.trim();
    if (save && value && value !== todo.title) {
      Object.assign(todo, await api('PATCH', `/api/todos/${todo.id}`, { title: value }));
    }
    render();
  };
  input.addEventListener('keydown', (event) => {
    if (event.key === 'Enter') finish(true);
    if (event.key === 'Escape') finish(false);
  });
  input.addEventListener('blur', () => finish(true));
  title.replaceWith(input);
  input.focus();
  input.select();
}

on('item', (item, todo, title) => {
  const button = document.createElement('button');
  button.type = 'button';
  button.textContent = 'Edit';
  button.setAttribute('aria-label', `Edit ${todo.title}`);
  button.addEventListener('click', () => startEditing(todo, title));
  title.addEventListener('dblclick', () => startEditing(todo, title));
  item.append(button);
});
