// F-004: DELETE /api/todos/:id removes a todo.
import { sendJson } from './http.js';
import { addRoute } from './router.js';
import { findTodo, removeWhere } from './store.js';

addRoute('DELETE', /^\/api\/todos\/(?<id>\d+)$/, ({ res, params }) => {
  const id = Number(params.id);
  if (!findTodo(id)) return sendJson(res, 404, { error: 'no such todo' });
  removeWhere((todo) => todo.id === id);
  sendJson(res, 200, { deleted: id });
});
