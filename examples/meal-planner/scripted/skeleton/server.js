// The meal planner's HTTP server: static files under /static/ from public/, every other request through the
// route table (app/routes.js). Data lives in SQLite (sql.js) in data/app.sqlite, saved after every change.
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDatabase } from './app/db.js';
import { createRouter } from './app/router.js';

const root = path.dirname(fileURLToPath(import.meta.url));
const publicDir = path.join(root, 'public');
const port = Number(process.env.PORT || 3000);
const host = process.env.HOST || '127.0.0.1';
const dataDir = path.resolve(root, process.env.DATA_DIR || 'data');

const CONTENT_TYPES = {
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
};

async function serveStatic(res, pathname) {
  const file = path.resolve(publicDir, decodeURIComponent(pathname.slice('/static/'.length)));
  const type = CONTENT_TYPES[path.extname(file)];
  if (!file.startsWith(publicDir + path.sep) || !type) {
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
    return res.end('Not found');
  }
  try {
    const body = await readFile(file);
    res.writeHead(200, { 'content-type': type, 'cache-control': 'no-cache' });
    res.end(body);
  } catch {
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
    res.end('Not found');
  }
}

const db = await openDatabase(path.join(dataDir, 'app.sqlite'));
const router = await createRouter(db);

const server = createServer(async (req, res) => {
  try {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname.startsWith('/static/')) return await serveStatic(res, url.pathname);
    await router.handle(req, res, url);
  } catch (error) {
    console.error(error);
    if (!res.headersSent) {
      res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('Something went wrong on our side.');
    }
  }
});

server.listen(port, host, () => console.log(`Meal planner listening on http://${host}:${port}/`));
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(0));
