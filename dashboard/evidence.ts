import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { Context } from 'hono';
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
  const info = file ? await stat(file).catch(() => null) : null;
  if (!file || !info?.isFile()) throw new NotFoundError(`Run ${runId} has no evidence file "${relative}".`);
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
