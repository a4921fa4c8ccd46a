import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GridResponse, RunResponse } from '../../../dashboard/api-types.js';
import { featureState } from '../../../dashboard/feature-state.js';
import { evidenceDir } from '../../../dashboard/paths.js';
import { DashboardTokenRequiredError, STRICT_CSP } from '../../../dashboard/security.js';
import { createDashboardServer, type DashboardServer } from '../../../dashboard/server.js';
import { openStore, SteppingClock, seedRun, writeTranscript } from './seed.js';

const TOKEN = 'test-token-0123456789abcdef';

describe('dashboard HTTP API', () => {
  let env: Awaited<ReturnType<typeof openStore>>;
  let dataDir: string;
  let server: DashboardServer;
  let runId: string;

  beforeAll(async () => {
    const clock = new SteppingClock(Date.parse('2026-11-28T22:00:00Z'));
    env = await openStore(clock);
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'ns-dash-api-'));
    const run = await seedRun(env.store, {
      features: 12,
      sessions: 20,
      workspace: path.join(dataDir, 'ws'),
      clock,
    });
    runId = run.id;
    await writeTranscript(dataDir, runId, 2, 'hello');
    const evidence = path.join(evidenceDir(dataDir, runId), '3');
    await mkdir(evidence, { recursive: true });
    await writeFile(path.join(evidence, 'shot.png'), Buffer.from('89504e470d0a1a0a', 'hex'));
    await writeFile(path.join(dataDir, 'secret.txt'), 'top secret');
    await symlink(path.join(dataDir, 'secret.txt'), path.join(evidence, 'link.png'));
    server = await createDashboardServer({ store: env.store, dataDir, port: 0 });
  });

  afterAll(async () => {
    await server?.close();
    await env?.cleanup();
    await rm(dataDir, { recursive: true, force: true });
  });

  const get = (p: string, init?: RequestInit) => fetch(`${server.url}${p}`, init);

  it('lists runs and serves one run, its features and a page of sessions', async () => {
    const runs = await (await get('/api/runs')).json();
    expect(runs.runs).toHaveLength(1);
    expect(runs.runs[0]).toMatchObject({ id: runId, status: 'building', sessions: 21 });
    const one = await (await get(`/api/runs/${runId}`)).json();
    expect(one.run.features.total).toBe(12);
    const features = await (await get(`/api/runs/${runId}/features`)).json();
    expect(features.features.map((f: { id: string }) => f.id).slice(0, 2)).toEqual(['F-001', 'F-002']);
    const sessions = await (await get(`/api/runs/${runId}/sessions?offset=5&limit=10`)).json();
    expect(sessions).toMatchObject({ total: 21, offset: 5, limit: 10 });
    expect(sessions.sessions.map((s: { seq: number }) => s.seq)).toEqual([
      16, 15, 14, 13, 12, 11, 10, 9, 8, 7,
    ]);
  });

  it('serves the grid compactly, each feature in the state the UI shows', async () => {
    const features = await env.store.listFeatures(runId);
    const response = await get(`/api/runs/${runId}/grid`);
    const grid = (await response.json()) as GridResponse;
    expect(
      grid.features.map(([id, category, state, attempts]) => ({ id, category, state, attempts })),
    ).toEqual(
      features.map((f) => ({
        id: f.id,
        category: grid.categories.indexOf(f.category),
        state: featureState(f),
        attempts: f.attempts,
      })),
    );
    expect(new Set(grid.features.map(([, , state]) => state))).toEqual(new Set(['pass', 'untested']));
    const full = await (await get(`/api/runs/${runId}/features`)).text();
    expect(JSON.stringify(grid).length).toBeLessThan(full.length / 3);
    expect((await get('/api/runs/r-nope/grid')).status).toBe(404);
  });

  it('says what a run is doing now: nothing, the session queued, then the session in flight', async () => {
    const other = await env.store.createRun({
      spec: { path: '/specs/now.md', name: 'now' },
      workspace: { kind: 'local', path: path.join(dataDir, 'now') },
      config: {},
    });
    const activity = async () =>
      ((await (await get(`/api/runs/${other.id}`)).json()) as RunResponse).activity;
    expect(await activity()).toEqual({ running: null, queued: null });
    const seq = await env.store.nextSeq(other.id);
    const at = new Date().toISOString();
    const queued = { seq, role: 'initializer' as const, kind: 'initialize' as const, featureIds: [] };
    await env.store.appendEvent(other.id, {
      type: 'session.queued',
      runId: other.id,
      at,
      jobId: 'j',
      ...queued,
    });
    expect(await activity()).toEqual({ running: null, queued: { ...queued, at } });
    await env.store.recordSessionStarted(other.id, {
      seq,
      jobId: 'j',
      role: 'initializer',
      kind: 'initialize',
      featureIds: [],
      workerId: 'worker-7',
    });
    const now = await activity();
    expect(now.queued).toBeNull();
    expect(now.running).toMatchObject({ seq, role: 'initializer', kind: 'initialize', workerId: 'worker-7' });
    await env.store.setStatus(other.id, 'cancelled');
  });

  it('refuses a retry that would change nothing with 409 and says why; retries a blocked feature', async () => {
    const features = await env.store.listFeatures(runId);
    const passing = features.find((f) => f.passes)!;
    const untested = features.find((f) => featureState(f) === 'untested')!;
    const post = (featureId: string) =>
      get(`/api/runs/${runId}/features/${featureId}/retry`, {
        method: 'POST',
        headers: { origin: server.url },
      });
    const refused = await post(passing.id);
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({
      error: 'conflict',
      message: expect.stringMatching(/it passes/),
    });
    expect((await post(untested.id)).status).toBe(409);
    const detail = await (await get(`/api/runs/${runId}/features/${passing.id}`)).json();
    expect(detail.retry).toEqual({ allowed: false, reason: 'it passes' });

    await env.store.updateFeature(runId, untested.id, { blocked: true, blockedReason: 'app did not start' });
    expect((await (await get(`/api/runs/${runId}/features/${untested.id}`)).json()).retry.allowed).toBe(true);
    expect((await post(untested.id)).status).toBe(200);
    expect((await env.store.listFeatures(runId)).find((f) => f.id === untested.id)?.blocked).toBe(false);
    expect((await post('F-999')).status).toBe(404);
  });

  it('stamps run reads with the newest event id they reflect', async () => {
    const [latest] = await env.store.readEvents(runId, { latest: true, count: 1 });
    const response = await get(`/api/runs/${runId}/features`);
    expect(response.headers.get('x-nightshift-last-event')).toBe(latest!.id);
  });

  it('computes passing features over time from the session history', async () => {
    const { run } = await (await get(`/api/runs/${runId}`)).json();
    const progress = await (await get(`/api/runs/${runId}/progress`)).json();
    expect(progress.total).toBe(12);
    expect(progress.points.at(-1).passing).toBe(run.features.passing);
    expect(progress.points.length).toBe(10);
  });

  it('pages a transcript and 404s a missing one', async () => {
    const page = await (await get(`/api/runs/${runId}/sessions/2/transcript?offset=1&limit=2`)).json();
    expect(page).toMatchObject({ seq: 2, total: 5, offset: 1, limit: 2 });
    expect(page.lines[0].kind).toBe('message');
    const missing = await get(`/api/runs/${runId}/sessions/99/transcript`);
    expect(missing.status).toBe(404);
    expect((await missing.json()).message).toMatch(/no transcript/);
  });

  it('answers bad input with 400 and unknown runs with 404, as JSON', async () => {
    const bad = await get(`/api/runs/${runId}/sessions?limit=0`);
    expect(bad.status).toBe(400);
    expect((await bad.json()).message).toMatch(/limit/);
    expect((await get(`/api/runs/${runId}/sessions/abc/transcript`)).status).toBe(400);
    const unknown = await get('/api/runs/r-nope');
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).message).toMatch(/r-nope does not exist/);
    expect((await get(`/api/runs/${runId}/features/F-999`)).status).toBe(404);
  });

  it('serves evidence confined to the run evidence dir', async () => {
    const shot = await get(`/api/runs/${runId}/evidence/3/shot.png`);
    expect(shot.status).toBe(200);
    expect(shot.headers.get('content-type')).toBe('image/png');
    expect((await get(`/api/runs/${runId}/evidence/3/link.png`)).status).toBe(404);
    expect((await get(`/api/runs/${runId}/evidence/3/%2e%2e/%2e%2e/%2e%2e/%2e%2e/secret.txt`)).status).toBe(
      404,
    );
    expect((await get(`/api/runs/${runId}/evidence/..%2f..%2f..%2fsecret.txt`)).status).toBe(404);
  });

  it('sets a strict CSP without inline script on the UI', async () => {
    const page = await get('/');
    expect(page.headers.get('content-security-policy')).toBe(STRICT_CSP);
    const html = await page.text();
    expect(html).toMatch(/<script type="module" crossorigin src="\/assets\//);
    expect(html).not.toMatch(/<script>|<script [^>]*>[^<]+<\/script>/);
  });

  it('refuses cross-origin POSTs and pauses/resumes same-origin ones', async () => {
    const foreign = await get(`/api/runs/${runId}/pause`, {
      method: 'POST',
      headers: { origin: 'http://evil.example' },
    });
    expect(foreign.status).toBe(403);
    expect((await env.store.getRun(runId)).status).toBe('building');
    const paused = await get(`/api/runs/${runId}/pause`, { method: 'POST', headers: { origin: server.url } });
    expect(paused.status).toBe(200);
    expect((await paused.json()).run.status).toBe('paused');
    expect((await env.store.getRun(runId)).pausedReason).toBe('user');
    await get(`/api/runs/${runId}/resume`, { method: 'POST', headers: { origin: server.url } });
    expect((await env.store.getRun(runId)).status).toBe('building');
  });

  it('streams events: replay, then live ones, over SSE', async () => {
    const controller = new AbortController();
    const response = await get(`/api/runs/${runId}/events`, { signal: controller.signal });
    expect(response.headers.get('content-type')).toMatch(/text\/event-stream/);
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    const readUntil = async (needle: string) => {
      while (!text.includes(needle)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`stream ended before ${needle}`);
        text += value;
      }
    };
    await readUntil('"type":"verdict.applied"');
    await env.store.appendEvent(runId, {
      type: 'feature.retried',
      runId,
      at: new Date().toISOString(),
      featureId: 'F-007',
    });
    await readUntil('"featureId":"F-007"');
    expect(text).toMatch(/event: run\ndata: \{.*\}\nid: \d+-\d+\n/);
    controller.abort();
  });

  it('refuses a non-loopback host without a token, and a request with a foreign Host header without one', async () => {
    await expect(
      createDashboardServer({ store: env.store, dataDir, host: '0.0.0.0', port: 0 }),
    ).rejects.toBeInstanceOf(DashboardTokenRequiredError);
    // fetch() may not set Host; node:http can, like a DNS-rebinding page would make the browser do.
    const status = await new Promise<number>((resolve, reject) => {
      const request = http.get(
        `${server.url}/api/runs`,
        { headers: { host: 'evil.example' } },
        (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        },
      );
      request.on('error', reject);
    });
    expect(status).toBe(403);
  });

  it('requires the token on every request when bound to 0.0.0.0', async () => {
    const open = await createDashboardServer({
      store: env.store,
      dataDir,
      host: '0.0.0.0',
      port: 0,
      token: TOKEN,
    });
    try {
      const base = `http://127.0.0.1:${open.port}`;
      const paths = ['/', '/api/runs', `/api/runs/${runId}/events`, `/api/runs/${runId}/evidence/3/shot.png`];
      for (const p of [...paths, '/assets/x.js', `/runs/${runId}`, '/queues/']) {
        expect((await fetch(`${base}${p}`)).status, p).toBe(401);
      }
      expect(
        (await fetch(`${base}/api/runs`, { headers: { authorization: 'Bearer wrong-token-0123456789' } }))
          .status,
      ).toBe(401);
      expect(
        (await fetch(`${base}/api/runs`, { headers: { authorization: `Bearer ${TOKEN}` } })).status,
      ).toBe(200);
      const first = await fetch(`${base}/?token=${TOKEN}`, { redirect: 'manual' });
      expect(first.status).toBe(303);
      expect(first.headers.get('location')).toBe('/');
      const cookie = first.headers.get('set-cookie')!;
      expect(cookie).toMatch(/HttpOnly/);
      expect(cookie).toMatch(/SameSite=Strict/);
      const withCookie = await fetch(`${base}/api/runs`, { headers: { cookie: cookie.split(';')[0]! } });
      expect(withCookie.status).toBe(200);
    } finally {
      await open.close();
    }
  });
});
