// F-004: a Delete button per todo removes it.
import { api, on, render, state } from '../core.js';

on('item', (item, todo) => {
  const button = document.createElement('button');
  button.type = 'button';
  button.textContent = 'Delete';
  button.setAttribute('aria-label', `Delete ${todo.title}`);
  button.addEventListener('click', async () => {
    await api('DELETE', `/api/todos/${todo.id}`);
    state.todos = state.todos.filter((other) => other.id !== todo.id);
    render();
  });
  item.append(button);
});
