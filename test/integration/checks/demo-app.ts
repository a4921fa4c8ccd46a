import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type AssembleOptions, assembleTodoApp } from '../../../testkit/policies/todo-assemble.js';
import { featureListJson } from '../../../testkit/policies/todo-features.js';
import { freePort } from '../browser/todo-app.js';
import { makeWorkspace } from '../roles/role-helpers.js';

/** The demo app (examples/todo, assembled from the scripted sources) running on a free port. */
export interface DemoApp {
  dir: string;
  url: string;
  stop(): Promise<void>;
}

/** Assembles the demo app into a new temp dir (or `dir`). */
export async function assembleDemoApp(options: AssembleOptions = {}, dir?: string): Promise<string> {
  const target = dir ?? (await mkdtemp(path.join(tmpdir(), 'ns-checks-app-')));
  await assembleTodoApp(target, options);
  return target;
}

/** Starts `bash init.sh` in the app dir with a free port and waits until it answers. */
export async function startDemoApp(dir: string): Promise<DemoApp> {
  const port = await freePort();
  const child = spawn('bash', ['init.sh'], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', PORT: String(port) },
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}/`;
  for (let attempt = 0; attempt < 200; attempt += 1) {
    if (child.exitCode !== null) throw new Error(`the demo app exited with ${child.exitCode}`);
    if (
      await fetch(url).then(
        (res) => res.ok,
        () => false,
      )
    )
      return { dir, url, stop: () => stop(child) };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await stop(child);
  throw new Error('the demo app did not answer within 10 s');
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** The demo app, fully built, as a committed workspace with feature ids. */
export async function demoWorkspace(): Promise<{ workspace: string; dataDir: string }> {
  const built = await assembleDemoApp();
  const files: Record<string, string> = {};
  for (const entry of await readdir(built, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = path.join(entry.parentPath, entry.name);
    files[path.relative(built, full)] = await readFile(full, 'utf8');
  }
  const features = JSON.parse(featureListJson()) as Array<Record<string, unknown>>;
  files['feature_list.json'] = `${JSON.stringify(
    features.map((feature, index) => ({ id: `F-${String(index + 1).padStart(3, '0')}`, ...feature })),
    null,
    2,
  )}\n`;
  files['.gitignore'] = 'data/\n';
  return makeWorkspace(files);
}
