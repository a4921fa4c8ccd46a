// The Docker image's steps, performed without a Docker engine (there is none here): the Dockerfile's stages in a
// clean temp directory (build context filtered by .dockerignore, `npm ci` with dev dependencies and the UI build in
// the build stage, `npm ci --omit=dev` in the runtime stage, the built UI copied over), then the dashboard started
// from there the way the image starts it, answering with its page and its API.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureUiBundle, UiBuildError } from '../../../dashboard/ui-bundle.js';
import { type ImageSteps, performImageSteps } from './dockerfile-steps.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');

describe('the Docker image steps, without Docker', () => {
  let root: string;
  let image: ImageSteps;
  let dashboard: ChildProcess | undefined;
  const prefix = `nstest-image-${process.pid}-${Date.now().toString(36)}:`;

  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'ns-image-'));
    // npm's cache makes the two installs quick; the packages come from the registry when it is cold.
    image = await performImageSteps({
      context: ROOT,
      root,
      runEnv: { npm_config_prefer_offline: 'true', npm_config_loglevel: 'error' },
    });
  }, 600_000);

  afterAll(async () => {
    dashboard?.kill('SIGTERM');
    const redis = new Redis('redis://127.0.0.1:6379');
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
    await rm(root, { recursive: true, force: true });
  });

  it('ships production dependencies and the built UI, and nothing .dockerignore keeps out', () => {
    expect(existsSync(path.join(image.workdir, 'dashboard/ui/dist/index.html'))).toBe(true);
    expect(existsSync(path.join(image.workdir, 'node_modules/hono'))).toBe(true);
    expect(existsSync(path.join(image.workdir, 'node_modules/vite')), 'vite is a dev dependency').toBe(false);
    for (const absent of ['test', 'bench', '.git', 'docs/screenshots'])
      expect(existsSync(path.join(image.workdir, absent)), absent).toBe(false);
    expect(image.env.NODE_ENV).toBe('production');
    expect(image.entrypoint).toEqual(['node', 'bin/nightshift.js']);
    expect(image.skipped.join('\n')).toMatch(/apt-get/);
  });

  it('starts the dashboard from there, which answers with its page and its API', async () => {
    const [command, ...entry] = image.entrypoint;
    const child = spawn(command!, [...entry, 'dashboard', '--port', '0', '--json'], {
      cwd: image.workdir,
      env: {
        PATH: process.env.PATH,
        ...image.env,
        NIGHTSHIFT_HOME: path.join(root, 'data'),
        REDIS_URL: 'redis://127.0.0.1:6379',
        NIGHTSHIFT_KEY_PREFIX: prefix,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    dashboard = child;
    let stderr = '';
    child.stderr!.on('data', (chunk) => {
      stderr += chunk;
    });
    const url = await new Promise<string>((resolve, reject) => {
      let stdout = '';
      child.stdout!.on('data', (chunk) => {
        stdout += chunk;
        const line = stdout.split('\n').find((l) => l.startsWith('{'));
        if (line) resolve((JSON.parse(line) as { url: string }).url);
      });
      child.on('exit', (code) => reject(new Error(`the dashboard exited ${code}:\n${stderr}`)));
    });
    const page = await fetch(`${url}/`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toMatch(/<script type="module" crossorigin src="\/assets\//);
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)![1]!;
    expect((await fetch(`${url}${script}`)).status).toBe(200);
    const runs = await fetch(`${url}/api/runs`);
    expect(runs.status).toBe(200);
    expect(await runs.json()).toEqual({ runs: [] });
    expect((await fetch(`${url}/queues/`)).status).toBe(200);
    expect(stderr).not.toMatch(/built the dashboard UI/);
  }, 120_000);
});

describe('the UI bundle outside development', () => {
  let uiDir: string;

  beforeAll(async () => {
    uiDir = await mkdtemp(path.join(os.tmpdir(), 'ns-ui-bundle-'));
    await mkdir(path.join(uiDir, 'src'), { recursive: true });
    await writeFile(path.join(uiDir, 'src', 'main.ts'), 'export {};\n');
  });

  afterAll(() => rm(uiDir, { recursive: true, force: true }));

  it('refuses to start without a bundle in production, saying how to build one', async () => {
    const failure = await ensureUiBundle(uiDir, { env: { NODE_ENV: 'production' } }).catch((e) => e);
    expect(failure).toBeInstanceOf(UiBuildError);
    expect(failure.describe()).toMatch(/npm run build:ui/);
  });

  it('serves a prebuilt bundle as it is in production, even with newer sources', async () => {
    await mkdir(path.join(uiDir, 'dist'), { recursive: true });
    await writeFile(path.join(uiDir, 'dist', 'index.html'), '<!doctype html>');
    const past = new Date(Date.now() - 60_000);
    await utimes(path.join(uiDir, 'dist', 'index.html'), past, past);
    // No vite.config.ts in this dir: a build attempt would fail, so resolving proves none was tried.
    await expect(ensureUiBundle(uiDir, { env: { NODE_ENV: 'production' } })).resolves.toBeUndefined();
  });
});
