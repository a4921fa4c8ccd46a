import { createReadStream } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { Context } from 'hono';
import { checkReplaysDir } from '../core/paths.js';
import { NotFoundError, parseParam, RunIdParam } from './api.js';
import { resolveEvidenceFile } from './paths.js';

const INLINE_TYPES: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.webp': 'image/webp',
  '.gif': 'image/gif',
};

/**
 * `GET /api/runs/:id/evidence/<path>`: a screenshot (inline) or any other evidence file such as `trace.zip` (as a
 * download), confined to the run's evidence dir by real path. Nothing is ever served as HTML.
 */
export async function serveEvidence(c: Context, dataDir: string): Promise<Response> {
  const runId = parseParam(RunIdParam, c.req.param('id'), 'run id');
  const prefix = `/api/runs/${runId}/evidence/`;
  let relative: string;
  try {
    relative = c.req.path.startsWith(prefix)
      ? c.req.path.slice(prefix.length).split('/').map(decodeURIComponent).join('/')
      : '';
  } catch {
    relative = '';
  }
  const file = await resolveEvidenceFile(dataDir, runId, relative);
  return sendFile(c, file, `Run ${runId} has no evidence file "${relative}".`);
}

/** A failure screenshot's name as the replay writes it (`<featureId>-v<version>.png`): nothing else is served. */
const SCREENSHOT_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,200}\.png$/;

/** `GET /api/runs/:id/check-screenshots/<name>`: the screenshot a red replay of a recorded check left. */
export async function serveCheckScreenshot(c: Context, dataDir: string): Promise<Response> {
  const runId = parseParam(RunIdParam, c.req.param('id'), 'run id');
  const name = c.req.param('name') ?? '';
  const root = path.join(checkReplaysDir(dataDir, runId), 'screenshots');
  const file = SCREENSHOT_NAME.test(name) && !name.includes('..') ? await confined(root, name) : null;
  return sendFile(c, file, `Run ${runId} has no check screenshot "${name}".`);
}

async function confined(root: string, name: string): Promise<string | null> {
  try {
    const real = await realpath(root);
    const file = await realpath(path.join(real, name));
    return file.startsWith(real + path.sep) ? file : null;
  } catch {
    return null;
  }
}

async function sendFile(c: Context, file: string | null, missing: string): Promise<Response> {
  const info = file ? await stat(file).catch(() => null) : null;
  if (!file || !info?.isFile()) throw new NotFoundError(missing);
  const name = path.basename(file);
  const inline = INLINE_TYPES[path.extname(name).toLowerCase()];
  c.header(
    'Content-Type',
    inline ?? (name.endsWith('.zip') ? 'application/zip' : 'application/octet-stream'),
  );
  c.header('Content-Length', String(info.size));
  c.header('Cache-Control', 'private, max-age=300');
  if (!inline) c.header('Content-Disposition', `attachment; filename="${name.replace(/[^\w.-]/g, '_')}"`);
  return c.body(Readable.toWeb(createReadStream(file)) as ReadableStream<Uint8Array>);
}
