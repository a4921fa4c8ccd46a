// The notes app's HTTP server: static files from public/ (every page path gets index.html, the client
// draws the page) and a small JSON API under /api/. Node built-ins only: `node server.js` runs it.
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sendJson } from './api/http.js';
import './api/session.js';
import './api/modules.js';
import { findRoute } from './api/router.js';

const root = path.dirname(fileURLToPath(import.meta.url));
const publicDir = path.join(root, 'public');
const port = Number(process.env.PORT || 3000);
const host = process.env.HOST || '127.0.0.1';

const CONTENT_TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

async function serveStatic(res, pathname) {
  const relative = path.extname(pathname) ? decodeURIComponent(pathname.slice(1)) : 'index.html';
  const file = path.resolve(publicDir, relative);
  if (!file.startsWith(publicDir + path.sep)) return sendJson(res, 404, { error: 'not found' });
  try {
    const body = await readFile(file);
    const type = CONTENT_TYPES[path.extname(file)] ?? 'application/octet-stream';
    res.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' });
    res.end(body);
  } catch {
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
    res.end('Not found');
  }
}

const server = createServer(async (req, res) => {
  try {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname.startsWith('/api/')) {
      const route = findRoute(req.method ?? 'GET', url.pathname);
      if (!route) return sendJson(res, 404, { error: `no route for ${req.method} ${url.pathname}` });
      return await route.handler({ req, res, url, params: route.params });
    }
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return sendJson(res, 405, { error: 'method not allowed' });
    await serveStatic(res, url.pathname);
  } catch (error) {
    if (!res.headersSent)
      sendJson(res, 500, { error: error instanceof Error ? error.message : String(error) });
  }
});

server.listen(port, host, () => console.log(`Notes app listening on http://${host}:${port}/`));
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(0));
