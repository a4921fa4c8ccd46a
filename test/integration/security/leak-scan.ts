/**
 * Where a secret could end up after a run, read for the leak tests (secrets.test.ts, credentials.test.ts): every file
 * under a directory, every value under a Redis prefix, the dashboard's API answers and its event stream.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { expect } from 'vitest';
import { CLI_ENTRY } from '../cli/helpers.js';

/** Every regular file under `dir` (recursively; none when it does not exist). */
export function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => path.join(dir, name))
    .filter((file) => fs.lstatSync(file).isFile());
}

/** Where each needle occurs in `text` (labelled `where`), as short descriptions. */
export function leaksIn(needles: readonly string[], where: string, text: string): string[] {
  return needles
    .filter((needle) => text.includes(needle))
    .map((needle) => `${needle.slice(0, 12)}… in ${where}`);
}

/** The leaks in every file under `dir` (bytes read as latin1) and how many files were read. */
export function scanFiles(needles: readonly string[], dir: string): { leaks: string[]; files: number } {
  const found: string[] = [];
  const files = filesUnder(dir);
  for (const file of files) found.push(...leaksIn(needles, file, fs.readFileSync(file).toString('latin1')));
  return { leaks: found, files: files.length };
}

/** Every key under the prefix with its value (any type), one line each, and the number of keys. */
export async function redisDump(redis: Redis, prefix: string): Promise<{ text: string; keys: number }> {
  const parts: string[] = [];
  let cursor = '0';
  let keys = 0;
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
    cursor = next;
    for (const key of batch) {
      keys++;
      const type = await redis.type(key);
      const value =
        type === 'string'
          ? await redis.get(key)
          : type === 'hash'
            ? await redis.hgetall(key)
            : type === 'list'
              ? await redis.lrange(key, 0, -1)
              : type === 'set'
                ? await redis.smembers(key)
                : type === 'zset'
                  ? await redis.zrange(key, 0, -1, 'WITHSCORES')
                  : type === 'stream'
                    ? await redis.xrange(key, '-', '+')
                    : `(${type})`;
      parts.push(`${key} ${JSON.stringify(value)}`);
    }
  } while (cursor !== '0');
  return { text: parts.join('\n'), keys };
}

/** Starts `nightshift dashboard --port 0` as a child; resolves its URL. The caller kills `child`. */
export function startDashboard(
  env: NodeJS.ProcessEnv,
  cwd: string,
): { child: ChildProcess; url: Promise<string> } {
  const child = spawn(process.execPath, [CLI_ENTRY, 'dashboard', '--port', '0', '--json'], {
    cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const url = new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (chunk) => {
      out += chunk;
      const line = out.split('\n').find((candidate) => candidate.startsWith('{'));
      if (line) resolve((JSON.parse(line) as { url: string }).url);
    });
    child.once('exit', (code) => reject(new Error(`dashboard exited ${code}: ${out}`)));
  });
  return { child, url };
}

/** The dashboard's answers about a run (runs, run, features, sessions, every transcript) and a moment of its SSE. */
export async function dashboardText(
  url: string,
  runId: string,
): Promise<{ text: string; responses: number }> {
  const paths = [
    `/api/runs`,
    `/api/runs/${runId}`,
    `/api/runs/${runId}/features`,
    `/api/runs/${runId}/sessions`,
  ];
  const sessions = (await (await fetch(`${url}/api/runs/${runId}/sessions`)).json()) as unknown;
  const seqs = [...JSON.stringify(sessions).matchAll(/"seq":(\d+)/g)].map((match) => match[1]);
  for (const seq of new Set(seqs)) paths.push(`/api/runs/${runId}/sessions/${seq}/transcript`);
  const texts: string[] = [];
  for (const route of paths) {
    const response = await fetch(`${url}${route}`);
    const body = await response.text();
    // A regression session whose recorded checks all replayed green asked no model: it has no transcript.
    const noTranscript = response.status === 404 && /has no transcript/.test(body);
    if (!noTranscript) expect(response.status, route).toBe(200);
    texts.push(body);
  }
  // The SSE stream replays the run's events first: read it for a moment.
  const controller = new AbortController();
  const sse = await fetch(`${url}/api/runs/${runId}/events`, { signal: controller.signal });
  const reader = sse.body?.getReader();
  const stopAt = Date.now() + 1_500;
  while (reader && Date.now() < stopAt) {
    const chunk = await Promise.race([
      reader.read(),
      new Promise<undefined>((resolve) => setTimeout(resolve, 300)),
    ]);
    if (chunk?.value) texts.push(Buffer.from(chunk.value).toString('utf8'));
    if (chunk?.done) break;
  }
  controller.abort();
  return { text: texts.join('\n'), responses: paths.length + 1 };
}
