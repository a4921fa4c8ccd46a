// Accounts and sessions: passwords kept as salted scrypt hashes, sessions as random tokens in the `sid` cookie
// (HttpOnly, SameSite=Lax) stored in the database, so a restart keeps everyone signed in.
import { randomBytes, scryptSync, timingSafeEqual } from 'node:crypto';

const SESSION_COOKIE = 'sid';
const SESSION_DAYS = 30;

export function hashPassword(password) {
  const salt = randomBytes(16).toString('hex');
  return `${salt}:${scryptSync(password, salt, 32).toString('hex')}`;
}

export function passwordMatches(password, stored) {
  const [salt, hash] = String(stored).split(':');
  if (!salt || !hash) return false;
  const expected = Buffer.from(hash, 'hex');
  const actual = scryptSync(password, salt, expected.length);
  return timingSafeEqual(actual, expected);
}

export function normalizeEmail(email) {
  return String(email ?? '')
    .trim()
    .toLowerCase();
}

export function findUserByEmail(db, email) {
  return db.get('SELECT * FROM users WHERE email = ?', [normalizeEmail(email)]);
}

export function createUser(db, { name, email, password }) {
  return db.run('INSERT INTO users (name, email, password_hash, created_at) VALUES (?, ?, ?, ?)', [
    name.trim(),
    normalizeEmail(email),
    hashPassword(password),
    new Date().toISOString(),
  ]);
}

export function startSession(ctx, userId) {
  const token = randomBytes(24).toString('base64url');
  ctx.db.run('INSERT INTO sessions (token, user_id, created_at) VALUES (?, ?, ?)', [
    token,
    userId,
    new Date().toISOString(),
  ]);
  ctx.setCookie(SESSION_COOKIE, token, SESSION_DAYS * 24 * 3600);
}

export function endSession(ctx) {
  const token = ctx.cookies[SESSION_COOKIE];
  if (token) ctx.db.run('DELETE FROM sessions WHERE token = ?', [token]);
  ctx.setCookie(SESSION_COOKIE, '', 0);
  ctx.user = null;
}

export function userForSession(db, token) {
  if (!token) return null;
  return (
    db.get(
      'SELECT users.* FROM sessions JOIN users ON users.id = sessions.user_id WHERE sessions.token = ?',
      [token],
    ) ?? null
  );
}

export { SESSION_COOKIE };
