// F-002: signs in with a username and password (POST /api/login) and out again (POST /api/logout).
import { readJson, sendJson } from './http.js';
import { addRoute } from './router.js';
import { endSession, passwordMatches, startSession } from './session.js';
import { accounts } from './store.js';

addRoute('POST', /^\/api\/login$/, async ({ req, res }) => {
  const body = await readJson(req);
  const username = typeof body.username === 'string' ? body.username.trim() : '';
  const password = typeof body.password === 'string' ? body.password : '';
  const stored = Object.hasOwn(accounts, username) ? accounts[username] : undefined;
  if (!passwordMatches(password, stored)) return sendJson(res, 401, { error: 'Wrong username or password' });
  startSession(res, username);
  sendJson(res, 200, { username });
});

addRoute('POST', /^\/api\/logout$/, ({ req, res }) => {
  endSession(req, res);
  sendJson(res, 200, { username: null });
});
