// PATCH /api/todos/:id — F-003: mark a todo completed or active ({completed: boolean}).
import { readJson, sendJson } from './http.js';
import { addRoute } from './router.js';
import { changed, findTodo } from './store.js';

addRoute('PATCH', /^\/api\/todos\/(?<id>\d+)$/, async ({ req, res, params }) => {
  const todo = findTodo(Number(params.id));
  if (!todo) return sendJson(res, 404, { error: 'no such todo' });
  const body = await readJson(req);
  if (body.completed !== undefined && typeof body.completed !== 'boolean') {
    return sendJson(res, 400, { error: 'completed must be true or false' });
  }
  // -- editable fields: add checks above this line --
  if (body.completed !== undefined) todo.completed = body.completed;
  changed();
  sendJson(res, 200, todo);
});
