import { readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { NightshiftError } from '../core/errors.js';
import { moduleLogger } from '../core/log.js';

const log = moduleLogger('dashboard/ui-bundle');

/** The UI sources (`index.html`, `src/`, `vite.config.ts`). */
export const UI_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'ui');
/** Where `vite build` writes the bundle. */
export const UI_DIST = path.join(UI_DIR, 'dist');

/** The bundle is missing or stale and could not be built (vite not installed, or a build error). */
export class UiBuildError extends NightshiftError {
  constructor(detail: string, cause?: unknown) {
    super('DASHBOARD_UI_BUILD', `The dashboard UI could not be built: ${detail}`, {
      hint: 'Build it with `npm run build:ui` (vite, a dev dependency: `npm ci` first), or use the Docker image, which ships it built.',
      cause,
    });
  }
}

/** One file of the bundle, held in memory. */
export interface UiAsset {
  body: Uint8Array;
  contentType: string;
}

async function newestMtime(target: string): Promise<number> {
  const info = await stat(target);
  if (!info.isDirectory()) return info.mtimeMs;
  let newest = info.mtimeMs;
  for (const entry of await readdir(target))
    newest = Math.max(newest, await newestMtime(path.join(target, entry)));
  return newest;
}

/** True when `dist/index.html` is missing or older than any UI source (or the API types it imports). */
export async function uiBundleStale(uiDir: string = UI_DIR): Promise<boolean> {
  const built = await stat(path.join(uiDir, 'dist', 'index.html')).catch(() => null);
  if (!built) return true;
  const sources = [
    path.join(uiDir, 'src'),
    path.join(uiDir, 'index.html'),
    path.join(uiDir, 'vite.config.ts'),
    path.join(uiDir, '..', 'api-types.ts'),
  ];
  const mtimes = await Promise.all(sources.map((source) => newestMtime(source).catch(() => 0)));
  return Math.max(...mtimes) > built.mtimeMs;
}

let building: Promise<void> | undefined;

/** How ensureUiBundle may act: `production` (NODE_ENV) serves the prebuilt bundle and never builds. */
export interface EnsureUiBundleOptions {
  env?: NodeJS.ProcessEnv;
}

/**
 * Makes sure there is a bundle to serve. A prebuilt bundle (the Docker image, a release, `npm run build`) is served
 * as it is in production (`NODE_ENV=production`) and wherever vite is not installed (`npm ci --omit=dev`); only
 * in development, with vite at hand, a missing or stale bundle is (re)built with vite's JS API, into a temporary
 * dir swapped in at the end (a concurrent reader never sees a half-written bundle). Concurrent calls in one
 * process share one build.
 */
export async function ensureUiBundle(
  uiDir: string = UI_DIR,
  options: EnsureUiBundleOptions = {},
): Promise<void> {
  const env = options.env ?? process.env;
  const built = await stat(path.join(uiDir, 'dist', 'index.html')).catch(() => null);
  if (built && env.NODE_ENV === 'production') return;
  if (!(await uiBundleStale(uiDir))) return;
  if (env.NODE_ENV === 'production')
    throw new UiBuildError(`${path.join(uiDir, 'dist')} is missing and production never builds it`);
  const vite = await import('vite').catch(() => null);
  if (!vite) {
    if (built) {
      log.warn(
        { uiDir },
        'the UI sources are newer than the bundle, but vite is not installed: serving the bundle',
      );
      return;
    }
    throw new UiBuildError('vite is not installed (a production install) and dashboard/ui/dist is missing');
  }
  building ??= buildUi(vite, uiDir).finally(() => {
    building = undefined;
  });
  return building;
}

async function buildUi(vite: typeof import('vite'), uiDir: string): Promise<void> {
  const dist = path.join(uiDir, 'dist');
  const temp = path.join(uiDir, `.dist-${process.pid}-${Date.now()}`);
  const started = Date.now();
  try {
    await vite.build({
      configFile: path.join(uiDir, 'vite.config.ts'),
      build: { outDir: temp, emptyOutDir: true },
    });
    const old = `${dist}.old-${process.pid}-${Date.now()}`;
    await rename(dist, old).catch(() => undefined);
    try {
      await rename(temp, dist);
    } catch (error) {
      // Another process swapped in its fresh build between our two renames: use that one.
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw error;
      await rm(temp, { recursive: true, force: true });
    }
    await rm(old, { recursive: true, force: true });
  } catch (error) {
    await rm(temp, { recursive: true, force: true });
    throw new UiBuildError((error as Error).message, error);
  }
  log.info({ ms: Date.now() - started }, 'built the dashboard UI');
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
};

/** Reads every file of the built bundle into memory, keyed by URL path (`/index.html`, `/assets/…`). */
export async function loadUiBundle(dist: string = UI_DIST): Promise<Map<string, UiAsset>> {
  const assets = new Map<string, UiAsset>();
  const walk = async (dir: string, prefix: string) => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) await walk(full, `${prefix}${entry.name}/`);
      else {
        const contentType = TYPES[path.extname(entry.name)] ?? 'application/octet-stream';
        assets.set(`${prefix}${entry.name}`, { body: await readFile(full), contentType });
      }
    }
  };
  await walk(dist, '/');
  if (!assets.has('/index.html')) throw new UiBuildError(`${dist} has no index.html`);
  return assets;
}
