// Dispatches a request through the route table (app/routes.js): the `before` hooks of every matching entry run
// first (in `hookOrder`, then table order), then the page handler named after the method. Builds the request
// context every feature works with (ctx: db, user, params, query, form, state, render, redirect, notFound).
import { html } from './html.js';
import { page } from './layout.js';
import { ROUTES } from './routes.js';

const MAX_FORM_BYTES = 1024 * 1024;

function compile(pattern) {
  if (pattern === '*') return () => ({});
  const below = pattern.endsWith('/*');
  const base = below ? pattern.slice(0, -2) : pattern;
  const names = [];
  const source = base.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/:([a-z]+)/g, (_match, name) => {
    names.push(name);
    return '([^/]+)';
  });
  const regex = new RegExp(`^${source}${below ? '(?:/.*)?' : '/?'}$`);
  return (pathname) => {
    const match = regex.exec(pathname);
    if (!match) return undefined;
    return Object.fromEntries(names.map((name, index) => [name, decodeURIComponent(match[index + 1])]));
  };
}

export async function createRouter(db) {
  const entries = [];
  for (const [pattern, name] of ROUTES) {
    const module = await import(`./features/${name}.js`);
    entries.push({ pattern, name, match: compile(pattern), module });
  }
  return { handle: (req, res, url) => handle(entries, db, req, res, url) };
}

function parseCookies(header) {
  const cookies = {};
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0) cookies[part.slice(0, at).trim()] = decodeURIComponent(part.slice(at + 1).trim());
  }
  return cookies;
}

async function readForm(req) {
  const chunks = [];
  let size = 0;
  for await (const chunk of req) {
    size += chunk.length;
    if (size > MAX_FORM_BYTES) throw new Error('form too large');
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

function createContext(db, req, res, url) {
  const cookies = parseCookies(req.headers.cookie);
  const setCookies = [];
  const ctx = {
    db,
    req,
    res,
    url,
    path: url.pathname,
    query: url.searchParams,
    method: req.method === 'HEAD' ? 'GET' : (req.method ?? 'GET'),
    form: new URLSearchParams(),
    params: {},
    cookies,
    user: null,
    state: {},
    flash: cookies.flash || '',
    done: false,
    setCookie(name, value, maxAgeSeconds) {
      const age = maxAgeSeconds === undefined ? '' : `; Max-Age=${maxAgeSeconds}`;
      setCookies.push(`${name}=${encodeURIComponent(value)}; Path=/; HttpOnly; SameSite=Lax${age}`);
    },
    send(status, headers, body) {
      res.writeHead(status, { ...headers, 'set-cookie': setCookies, 'cache-control': 'no-store' });
      res.end(body);
      ctx.done = true;
    },
    render(title, body, status = 200) {
      // The flash is shown on this page, so it is spent; a redirect without a new one carries it on.
      if (cookies.flash) ctx.setCookie('flash', '', 0);
      ctx.send(status, { 'content-type': 'text/html; charset=utf-8' }, page(ctx, title, body));
    },
    redirect(location, flash) {
      if (flash) ctx.setCookie('flash', flash);
      ctx.send(303, { location }, '');
    },
    notFound(message = 'There is no page at this address.') {
      ctx.render('Page not found', html`<h1>Page not found</h1><p>${message}</p>`, 404);
    },
  };
  return ctx;
}

async function handle(entries, db, req, res, url) {
  const ctx = createContext(db, req, res, url);
  if (req.method === 'POST') ctx.form = await readForm(req);
  const matches = entries
    .map((entry) => ({ entry, params: entry.match(url.pathname) }))
    .filter((match) => match.params);
  // A fixed path wins over a pattern with parameters (`/recipes/new` over `/recipes/:id`), whatever the table order.
  const handler = matches
    .filter(({ entry }) => !entry.pattern.includes('*') && typeof entry.module[ctx.method] === 'function')
    .sort((a, b) => Object.keys(a.params).length - Object.keys(b.params).length)[0];
  ctx.handler = handler?.entry.module;
  ctx.params = handler?.params ?? {};
  const hooks = matches
    .filter(({ entry }) => typeof entry.module.before === 'function')
    .sort((a, b) => (a.entry.module.hookOrder ?? 100) - (b.entry.module.hookOrder ?? 100));
  for (const hook of hooks) {
    await hook.entry.module.before(ctx, hook.params);
    if (ctx.done) return;
  }
  if (!handler) {
    const other = matches.some(({ entry }) =>
      ['GET', 'POST'].some((m) => typeof entry.module[m] === 'function'),
    );
    if (other) return ctx.send(405, { 'content-type': 'text/plain; charset=utf-8' }, 'Method not allowed');
    return ctx.notFound();
  }
  if (handler.entry.module.access === 'user' && !ctx.user) {
    const body = html`<h1>Please log in</h1><p>You need an account to see this page.</p>`;
    return ctx.render('Please log in', body, 401);
  }
  await handler.entry.module[ctx.method](ctx);
}
