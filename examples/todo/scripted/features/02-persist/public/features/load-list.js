// F-002: the page shows the saved list when it opens.
import { api, on, state } from '../core.js';

on('start', async () => {
  state.todos = await api('GET', '/api/todos');
});
