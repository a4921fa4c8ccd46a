// Sessions and passwords. A session is a random token in an HttpOnly cookie, held in server memory (a
// restart signs everyone out); passwords are kept only as salted scrypt hashes.
import { randomBytes, scryptSync, timingSafeEqual } from 'node:crypto';
import { sendJson } from './http.js';
import { addRoute } from './router.js';

const COOKIE = 'notes_session';
/** @type {Map<string, string>} token → username */
const sessions = new Map();

/** A salted hash of the password, to store. */
export function hashPassword(password) {
  const salt = randomBytes(16).toString('hex');
  return { salt, hash: scryptSync(password, salt, 32).toString('hex') };
}

/** Whether the password matches a stored hash (compared in constant time). */
export function passwordMatches(password, stored) {
  if (!stored) return false;
  const hash = scryptSync(password, stored.salt, 32);
  return timingSafeEqual(hash, Buffer.from(stored.hash, 'hex'));
}

function tokenOf(req) {
  const cookies = (req.headers.cookie ?? '').split(';').map((part) => part.trim().split('='));
  return cookies.find(([name]) => name === COOKIE)?.[1];
}

/** The signed-in username of the request, or null. */
export function currentUser(req) {
  return sessions.get(tokenOf(req) ?? '') ?? null;
}

/** Signs the username in: a new session and its cookie on the response. */
export function startSession(res, username) {
  const token = randomBytes(24).toString('hex');
  sessions.set(token, username);
  res.setHeader('set-cookie', `${COOKIE}=${token}; HttpOnly; SameSite=Lax; Path=/`);
}

/** Signs the request's session out and clears its cookie. */
export function endSession(req, res) {
  sessions.delete(tokenOf(req) ?? '');
  res.setHeader('set-cookie', `${COOKIE}=; HttpOnly; SameSite=Lax; Path=/; Max-Age=0`);
}

addRoute('GET', /^\/api\/me$/, ({ req, res }) => sendJson(res, 200, { username: currentUser(req) }));
