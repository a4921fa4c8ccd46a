// F-003: a checkbox per todo marks it completed (or active again); the state is saved on the server.
import { api, on, render } from '../core.js';

on('item', (item, todo) => {
  const box = document.createElement('input');
  box.type = 'checkbox';
  box.checked = todo.completed;
  box.setAttribute('aria-label', `Toggle ${todo.title}`);
  box.addEventListener('change', async () => {
    Object.assign(todo, await api('PATCH', `/api/todos/${todo.id}`, { completed: box.checked }));
    render();
  });
  item.prepend(box);
});
