// F-001: list the todos (GET /api/todos) and add one (POST /api/todos {title}).
import { readJson, sendJson } from './http.js';
import { addRoute } from './router.js';
import { createTodo, todos } from './store.js';

addRoute('GET', /^\/api\/todos$/, ({ res }) => sendJson(res, 200, todos));

addRoute('POST', /^\/api\/todos$/, async ({ req, res }) => {
  const body = await readJson(req);
  const title = typeof body.title === 'string' ? body.title.trim() : '';
  if (!title) return sendJson(res, 400, { error: 'title is required' });
  if (title.length > 500) return sendJson(res, 400, { error: 'title is longer than 500 characters' });
  sendJson(res, 201, createTodo(title));
});
