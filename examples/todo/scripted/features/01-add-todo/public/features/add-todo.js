// F-001: the new-todo form adds a todo (Enter or the Add button) and clears itself.
import { api, on, render, state } from '../core.js';

on('start', () => {
  const form = document.getElementById('new-todo-form');
  const input = document.getElementById('new-todo');
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const title = input.value.trim();
    if (!title) return;
    state.todos.push(await api('POST', '/api/todos', { title }));
    input.value = '';
    input.focus();
    render();
  });
});
