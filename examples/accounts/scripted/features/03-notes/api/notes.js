// F-003: the signed-in person's own notes (GET /api/notes, POST /api/notes {text}); nobody else's.
import { readJson, sendJson } from './http.js';
import { addRoute } from './router.js';
import { currentUser } from './session.js';
import { notes, saveNotes } from './store.js';

function own(username) {
  if (!Object.hasOwn(notes, username)) notes[username] = [];
  return notes[username];
}

addRoute('GET', /^\/api\/notes$/, ({ req, res }) => {
  const username = currentUser(req);
  if (!username) return sendJson(res, 401, { error: 'Log in first' });
  sendJson(res, 200, own(username));
});

addRoute('POST', /^\/api\/notes$/, async ({ req, res }) => {
  const username = currentUser(req);
  if (!username) return sendJson(res, 401, { error: 'Log in first' });
  const body = await readJson(req);
  const text = typeof body.text === 'string' ? body.text.trim() : '';
  if (!text) return sendJson(res, 400, { error: 'A note needs some text' });
  if (text.length > 2_000) return sendJson(res, 400, { error: 'A note has at most 2000 characters' });
  const list = own(username);
  const note = { id: Math.max(0, ...list.map((item) => item.id)) + 1, text };
  list.push(note);
  saveNotes();
  sendJson(res, 201, note);
});
