// F-001: creates an account (POST /api/signup {username, password}) and signs it in.
import { readJson, sendJson } from './http.js';
import { addRoute } from './router.js';
import { hashPassword, startSession } from './session.js';
import { accounts, saveAccounts } from './store.js';

const USERNAME = /^[A-Za-z0-9._@-]{3,60}$/;

addRoute('POST', /^\/api\/signup$/, async ({ req, res }) => {
  const body = await readJson(req);
  const username = typeof body.username === 'string' ? body.username.trim() : '';
  const password = typeof body.password === 'string' ? body.password : '';
  if (!USERNAME.test(username))
    return sendJson(res, 400, { error: 'A username is 3–60 letters, digits or . _ - @' });
  if (password.length < 8) return sendJson(res, 400, { error: 'A password has at least 8 characters' });
  if (Object.hasOwn(accounts, username)) return sendJson(res, 409, { error: 'That username is taken' });
  accounts[username] = hashPassword(password);
  saveAccounts();
  startSession(res, username);
  sendJson(res, 201, { username });
});
