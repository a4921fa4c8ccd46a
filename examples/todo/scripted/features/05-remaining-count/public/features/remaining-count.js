// F-005: the status line under the list says how many todos are still to do ("1 item left", "3 items left").
import { on, state } from '../core.js';

on('rendered', () => {
  const status = document.getElementById('remaining');
  if (!status) return;
  const left = state.todos.length;
  status.textContent = `${left} ${left === 1 ? 'item' : 'items'} left`;
});
