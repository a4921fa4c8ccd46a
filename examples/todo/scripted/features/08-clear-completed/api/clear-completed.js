// F-008: POST /api/todos/clear-completed removes every completed todo and returns the rest.
import { sendJson } from './http.js';
import { addRoute } from './router.js';
import { removeWhere, todos } from './store.js';

addRoute('POST', /^\/api\/todos\/clear-completed$/, ({ res }) => {
  removeWhere((todo) => todo.completed);
  sendJson(res, 200, todos);
});
