/**
 * A real npm registry (verdaccio) on the loopback for the example apps' dependencies. Tests and benchmarks run it
 * offline, serving only the package cache that set-up fills (`scripts/fill-app-registry.ts`): exactly the packages
 * of the apps' lockfiles, pinned, so an app installs inside the box under the `registries` policy without touching
 * the internet. Filling runs it once as a caching proxy of the npm registry.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Where set-up keeps the package cache (gitignored, ignored by biome). */
export const APP_REGISTRY_STORAGE = path.join(ROOT, 'test/app-registry-storage');

const VERDACCIO_BIN = path.join(ROOT, 'node_modules/verdaccio/bin/verdaccio');
const READY_TIMEOUT_MS = 60_000;

/** How to run the registry. */
export const AppRegistryOptions = z.object({
  /** The storage folder (default {@link APP_REGISTRY_STORAGE}). */
  storage: z.string().default(APP_REGISTRY_STORAGE),
  /** An upstream registry to fetch and cache from; without one the registry is offline. */
  uplink: z.url().optional(),
});
export type AppRegistryOptions = z.input<typeof AppRegistryOptions>;

/** A running registry. */
export interface AppRegistry {
  /** `http://127.0.0.1:<port>/` on the host. */
  url: string;
  port: number;
  /** What verdaccio printed lately (the last 256 kB; a request prints three lines). */
  log(): string;
  /** How many requests verdaccio received for `urlPath` (`/sql.js/-/sql.js-1.17.0.tgz`), counted from its start. */
  requests(urlPath: string): number;
  stop(): Promise<void>;
}

/** The registry did not start; the message has its output. */
export class AppRegistryStartError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AppRegistryStartError';
  }
}

/** One package of a lockfile. */
export interface LockedPackage {
  name: string;
  version: string;
  integrity: string;
}

const Lockfile = z.object({
  packages: z.record(
    z.string(),
    z.object({
      version: z.string().optional(),
      integrity: z.string().optional(),
      link: z.boolean().optional(),
    }),
  ),
});

/** Every registry package of an npm lockfile (v2/v3): name, version, integrity. */
export function lockedPackages(lockfilePath: string): LockedPackage[] {
  const lock = Lockfile.parse(JSON.parse(readFileSync(lockfilePath, 'utf8')));
  return Object.entries(lock.packages)
    .filter(([key, entry]) => key !== '' && !entry.link && entry.version && entry.integrity)
    .map(([key, entry]) => ({
      name: key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length),
      version: entry.version as string,
      integrity: entry.integrity as string,
    }));
}

/** Where verdaccio keeps a package's tarball in its storage. */
export function tarballPath(storage: string, pkg: Pick<LockedPackage, 'name' | 'version'>): string {
  const base = pkg.name.includes('/') ? pkg.name.split('/')[1] : pkg.name;
  return path.join(storage, pkg.name, `${base}-${pkg.version}.tgz`);
}

/** The packages whose tarball is missing from the storage or does not match the lockfile's integrity. */
export function missingPackages(storage: string, packages: readonly LockedPackage[]): LockedPackage[] {
  return packages.filter((pkg) => {
    const file = tarballPath(storage, pkg);
    if (!existsSync(file)) return true;
    const [algorithm, expected] = pkg.integrity.split('-', 2) as [string, string];
    return createHash(algorithm).update(readFileSync(file)).digest('base64') !== expected;
  });
}

function configYaml(storage: string, workDir: string, uplink: string | undefined): string {
  const proxy = uplink ? ', proxy: upstream' : '';
  return [
    `storage: ${JSON.stringify(storage)}`,
    `plugins: ${JSON.stringify(path.join(workDir, 'plugins'))}`,
    'web: { enable: false }',
    `auth: { htpasswd: { file: ${JSON.stringify(path.join(workDir, 'htpasswd'))}, max_users: -1 } }`,
    uplink ? `uplinks: { upstream: { url: ${JSON.stringify(uplink)}, cache: true } }` : 'uplinks: {}',
    'packages:',
    `  '@*/*': { access: $all, publish: $authenticated${proxy} }`,
    `  '**': { access: $all, publish: $authenticated${proxy} }`,
    'log: { type: stdout, format: pretty, level: http }',
    '',
  ].join('\n');
}

async function freeLoopbackPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function answers(url: string): Promise<boolean> {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(1_000) })).ok;
  } catch {
    return false;
  }
}

/**
 * The host's proxy and certificate settings, for an uplink behind a proxy or a TLS-inspecting gateway (nothing else
 * of the environment reaches verdaccio).
 */
function networkSettings(): Record<string, string> {
  const names = [
    'HTTP_PROXY',
    'HTTPS_PROXY',
    'NO_PROXY',
    'http_proxy',
    'https_proxy',
    'no_proxy',
    'NODE_EXTRA_CA_CERTS',
    'SSL_CERT_FILE',
  ];
  return Object.fromEntries(
    names.flatMap((name) => (process.env[name] ? [[name, process.env[name] as string]] : [])),
  );
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** One line of verdaccio's JSON log that announces a request (it then logs two more lines for its response). */
const RequestLine = z.object({ req: z.object({ url: z.string() }) });

/** Counts the requests in verdaccio's JSON log as it arrives, by URL path (query dropped). */
export function countRequests(): { add(chunk: Buffer | string): void; count(urlPath: string): number } {
  const counts = new Map<string, number>();
  let partial = '';
  const add = (chunk: Buffer | string) => {
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      if (!line.includes('"sub":"in","req":')) continue;
      const parsed = RequestLine.safeParse(safeJson(line));
      if (!parsed.success) continue;
      const urlPath = parsed.data.req.url.split('?')[0] ?? '';
      counts.set(urlPath, (counts.get(urlPath) ?? 0) + 1);
    }
  };
  return { add, count: (urlPath) => counts.get(urlPath) ?? 0 };
}

function safeJson(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

/** Starts verdaccio on a free loopback port and waits until it answers; `stop()` ends it and removes its config. */
export async function startAppRegistry(input: AppRegistryOptions = {}): Promise<AppRegistry> {
  const options = AppRegistryOptions.parse(input);
  if (!existsSync(VERDACCIO_BIN)) {
    throw new AppRegistryStartError(`verdaccio is not installed (${VERDACCIO_BIN}); run npm ci`);
  }
  const workDir = await mkdtemp(path.join(os.tmpdir(), 'ns-app-registry-'));
  const config = path.join(workDir, 'config.yaml');
  await writeFile(config, configYaml(options.storage, workDir, options.uplink));
  const port = await freeLoopbackPort();
  const url = `http://127.0.0.1:${port}/`;
  let output = '';
  const requestCounter = countRequests();
  const child = spawn(
    process.execPath,
    [VERDACCIO_BIN, '--config', config, '--listen', `127.0.0.1:${port}`],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...networkSettings(), PATH: process.env.PATH ?? '', HOME: workDir, NODE_ENV: 'production' },
    },
  );
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-256 * 1024);
  };
  child.stdout?.on('data', requestCounter.add);
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const stop = async () => {
    await stopChild(child);
    await rm(workDir, { recursive: true, force: true });
  };
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!(await answers(`${url}-/ping`))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      const why =
        child.exitCode !== null ? `exited with code ${child.exitCode}` : 'did not answer within 60 s';
      throw new AppRegistryStartError(`verdaccio ${why} on ${url}; its output:\n${output.slice(-4_000)}`);
    }
    await sleep(100);
  }
  return { url, port, log: () => output, requests: requestCounter.count, stop };
}
