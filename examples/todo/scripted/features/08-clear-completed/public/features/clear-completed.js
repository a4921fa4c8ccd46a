// F-008: a "Clear completed" button in the footer removes all completed todos.
import { api, on, render, state } from '../core.js';

on('start', () => {
  const button = document.createElement('button');
  button.type = 'button';
  button.textContent = 'Clear completed';
  button.addEventListener('click', async () => {
    state.todos = await api('POST', '/api/todos/clear-completed');
    render();
  });
  document.getElementById('footer').append(button);
});
