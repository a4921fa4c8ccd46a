// The run page in real Chromium: addresses for features and sessions, the "Now" card, counts and names, retry,
// verdict evidence and the chart, against runs seeded through the real RunStore.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RecordedCheck } from '../../../checks/format.js';
import { saveReplay, writeCheck } from '../../../checks/store.js';
import { checkReplaysDir } from '../../../core/paths.js';
import { evidenceDir } from '../../../dashboard/paths.js';
import { createDashboardServer, type DashboardServer } from '../../../dashboard/server.js';
import { appendVerdict } from '../../../handoff/verdicts.js';
import type { RunRecord } from '../../../orchestrator/run/index.js';
import { launchChromium, pngOf, watchedPages } from './browser.js';
import { makeFeatures, openStore, SteppingClock, seededResult, seedRun, writeTranscript } from './seed.js';

const ISSUE = 'Clicking <b>Save</b> left the list empty <img src=x onerror="window.__pwned = 1">';

describe('run page in Chromium', () => {
  let env: Awaited<ReturnType<typeof openStore>>;
  let dataDir: string;
  let server: DashboardServer;
  let browser: Browser;
  let page: Page;
  const pages = watchedPages(() => browser);
  let building: RunRecord;
  let finished: RunRecord;
  let inFlight: number;

  beforeAll(async () => {
    const clock = new SteppingClock(Date.now() - 6 * 3_600_000);
    env = await openStore(clock);
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'ns-dash-run-'));
    building = await seedRun(env.store, {
      features: 30,
      sessions: 30,
      workspace: path.join(dataDir, 'ws1'),
      clock,
      verdictFor: (i, attempt) => (i === 1 || (i % 4 === 3 && attempt === 0) ? 'fail' : 'pass'),
      recordVerdicts: true,
    });
    // The evaluator is checking F-009 right now.
    inFlight = await env.store.nextSeq(building.id);
    await env.store.recordSessionStarted(building.id, {
      seq: inFlight,
      jobId: `${building.id}-${inFlight}`,
      role: 'evaluator',
      kind: 'regress',
      featureIds: ['F-009'],
      workerId: 'worker-a',
    });
    finished = await seedRun(env.store, {
      features: 8,
      sessions: 16,
      workspace: path.join(dataDir, 'ws2'),
      clock,
      verdictFor: () => 'pass',
    });
    await env.store.setStatus(finished.id, 'done');
    await writeTranscript(dataDir, building.id, 4, 'Implemented F-002.');
    // A failed verdict whose issue repeats the failing step's observation, with a 1000×640 screenshot.
    browser = await launchChromium();
    const png = await pngOf(browser, '<body style="background:#fff"><h1>Todos</h1></body>', {
      width: 1000,
      height: 640,
    });
    const shots = path.join(evidenceDir(dataDir, building.id), '77');
    await mkdir(shots, { recursive: true });
    await writeFile(path.join(shots, '01-after-save.png'), png);
    await appendVerdict(path.join(dataDir, 'ws1'), {
      featureId: 'F-005',
      verdict: 'fail',
      steps: [
        { step: 'Open the app', ok: true, evidence: 'The list shows 3 items.' },
        { step: 'Save a task', ok: false, evidence: ISSUE },
      ],
      issues: [ISSUE],
      mode: 'evaluate',
      runId: building.id,
      session: 77,
      at: new Date().toISOString(),
      evidence: [`runs/${building.id}/evidence/77/01-after-save.png`],
    });
    await seedCheck(path.join(dataDir, 'ws1'), building.id, png);
    server = await createDashboardServer({ store: env.store, dataDir, port: 0 });
  });

  /** F-005 has a recorded check (v2, v1 in its history) whose last replay, by a sweep, was red with a screenshot. */
  async function seedCheck(workspace: string, runId: string, png: Buffer) {
    await writeFile(path.join(workspace, 'feature_list.json'), JSON.stringify(makeFeatures(30)));
    for (const version of [1, 2]) {
      const check = RecordedCheck.parse({
        featureId: 'F-005',
        version,
        recordedAt: new Date().toISOString(),
        origin: { runId, session: 70 + version, reason: version === 1 ? 'evaluate' : 'rerecord' },
        actions: [{ kind: 'goto', path: '/' }],
        expectations: [{ kind: 'text', text: 'Todos' }],
      });
      await writeCheck(workspace, check, { title: 'Save a task', flaky: null });
    }
    const shot = path.join(checkReplaysDir(dataDir, runId), 'screenshots', 'F-005-v2.png');
    await mkdir(path.dirname(shot), { recursive: true });
    await writeFile(shot, png);
    const failure = {
      stage: 'expectation' as const,
      index: 0,
      description: 'text "Todos" is visible',
      message: ISSUE,
    };
    await saveReplay(
      dataDir,
      runId,
      { featureId: 'F-005', version: 2, ok: false, durationMs: 812, failure, screenshot: shot },
      { by: 'sweep', at: new Date().toISOString() },
    );
  }

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await env?.cleanup();
    await rm(dataDir, { recursive: true, force: true });
  });

  const open = async (url: string) => {
    page = await pages.open(url, { width: 1360, height: 1000 });
    return page;
  };

  afterEach(async () => {
    await pages.closeLast();
    expect(pages.csp, 'CSP violations').toEqual([]);
  });

  it('gives a feature and a session an address that survives a reload, and Back closes them', async () => {
    await open(`${server.url}/runs/${building.id}`);
    await page.click('[data-feature="F-003"]');
    await page.waitForSelector('#feature-detail h2 >> text=F-003');
    expect(new URL(page.url()).hash).toBe('#feature=F-003');
    await page.reload();
    await page.waitForSelector('#feature-detail h2 >> text=F-003');
    expect(await page.getAttribute('[data-feature="F-003"]', 'class')).toContain('selected');

    await page.click('[data-transcript="4"]');
    await page.waitForSelector('#transcript .block-text >> text=Implemented F-002.');
    expect(new URL(page.url()).hash).toBe('#feature=F-003&session=4');
    await page.reload();
    await page.waitForSelector('#transcript .block-text >> text=Implemented F-002.');
    await page.keyboard.press('Escape');
    await page.waitForSelector('#transcript', { state: 'detached' });
    expect(new URL(page.url()).hash).toBe('#feature=F-003');
    await page.click('#feature-close');
    await page.waitForSelector('#feature-detail', { state: 'hidden' });
    expect(new URL(page.url()).hash).toBe('');
    await page.goBack();
    await page.waitForSelector('#feature-detail h2 >> text=F-003');
  });

  it('shows what the run is doing now and follows it live', async () => {
    await open(`${server.url}/runs/${building.id}`);
    const card = page.locator('#now');
    await page.waitForSelector('#now[data-state="running"]');
    expect(await card.locator('[data-role]').textContent()).toBe('evaluator');
    expect(await card.locator('.kind-regression').textContent()).toBe('regression');
    expect(await card.locator('[data-field="features"]').textContent()).toBe('F-009');
    expect(await card.textContent()).toContain(`session ${inFlight}`);
    expect(await card.textContent()).toContain('worker worker-a');
    await page.waitForSelector('#live.connected');

    const started = (await env.store.getSession(building.id, inFlight))!.startedAt;
    await env.store.recordSessionResult(
      building.id,
      inFlight,
      seededResult('evaluator', ['F-009'], started, 60_000, [], inFlight),
    );
    await page.waitForSelector(`#now[data-state="idle"] >> text=Session ${inFlight} ended (completed)`);
    await env.store.appendEvent(building.id, {
      type: 'app.start_failed',
      runId: building.id,
      at: new Date().toISOString(),
      seq: inFlight,
      role: 'evaluator',
      featureIds: ['F-009'],
      exitCode: 1,
      logFile: `runs/${building.id}/sessions/${inFlight}-app.log`,
      logTail: ['> node server.js', "Error: Cannot find module 'express'"],
      reason: 'init.sh exited with code 1 before the app answered',
    });
    const appStart = card.locator('[data-field="app-start"]');
    await appStart.waitFor();
    expect(await appStart.textContent()).toBe(
      `The app did not start in session ${inFlight} (evaluator, F-009): init.sh exited with code 1. Last log line: Error: Cannot find module 'express' Log: runs/${building.id}/sessions/${inFlight}-app.log (data dir).`,
    );
    const next = await env.store.nextSeq(building.id);
    await env.store.appendEvent(building.id, {
      type: 'session.queued',
      runId: building.id,
      at: new Date().toISOString(),
      seq: next,
      jobId: `${building.id}-${next}`,
      role: 'generator',
      kind: 'generate',
      featureIds: ['F-011'],
    });
    await page.waitForSelector('#now[data-state="queued"] >> text=Waiting for a worker');
    await env.store.recordSessionStarted(building.id, {
      seq: next,
      jobId: `${building.id}-${next}`,
      role: 'generator',
      kind: 'generate',
      featureIds: ['F-011'],
      workerId: 'worker-b',
    });
    await page.waitForSelector('#now[data-state="running"] >> text=worker worker-b');
    expect(await card.locator('[data-role]').textContent()).toBe('generator');
    expect(await card.locator('[data-field="features"]').textContent()).toBe('F-011');
    // Still shown while the generator that got the log works on it.
    expect(await appStart.count()).toBe(1);
    inFlight = next;
  });

  it('counts failing and untested features apart, shows failed evaluations as fail, with one set of role names', async () => {
    await open(`${server.url}/runs/${building.id}`);
    await page.waitForSelector('#feature-grid[data-complete]');
    const legend = async (state: string) =>
      Number((await page.textContent(`[data-count="${state}"]`))?.split(' ')[1]);
    const stat = async (name: string) => Number(await page.textContent(`[data-stat="${name}"] .stat-value`));
    await page.waitForFunction(
      () => document.querySelector('[data-stat="untested"] .stat-value')?.textContent !== '…',
    );
    expect(await stat('untested')).toBe(await legend('untested'));
    expect(await stat('failing')).toBe(await legend('fail'));
    expect(await legend('untested')).toBeGreaterThan(0);
    expect((await stat('failing')) + (await stat('untested'))).toBe(
      building.features.total - building.features.passing - building.features.blocked,
    );

    const sessions = (await env.store.listSessions(building.id, { limit: 50, order: 'desc' })).sessions;
    const failedEvaluation = sessions.find((s) => s.verdicts.some((v) => v.verdict === 'fail'))!;
    expect(failedEvaluation.outcome).toBe('completed');
    const row = page.locator(`#timeline tr[data-seq="${failedEvaluation.seq}"]`);
    expect(await row.locator('[data-result]').getAttribute('data-result')).toBe('fail');
    expect(await row.locator('.result').getAttribute('class')).toContain('result-bad');
    const roles = await page.locator('#timeline [data-role]').allTextContents();
    expect(new Set(roles)).toEqual(new Set(['initializer', 'generator', 'evaluator']));
    expect(await page.locator('#timeline .kind-regression').count()).toBe(1);
  });

  it('disables Retry on a passing feature of a finished run and says why; the API refuses it too', async () => {
    await open(`${server.url}/runs/${finished.id}#feature=F-002`);
    await page.waitForSelector('#retry-feature');
    expect(await page.isDisabled('#retry-feature')).toBe(true);
    expect(await page.textContent('#retry-reason')).toBe(
      'Nothing to retry: the run is done and starts no more sessions.',
    );
    const refused = await fetch(`${server.url}/api/runs/${finished.id}/features/F-002/retry`, {
      method: 'POST',
    });
    expect(refused.status).toBe(409);
    expect((await refused.json()).message).toMatch(/F-002 .* cannot be retried: the run is done/);

    // A blocked feature of a building run can be retried, from the panel.
    await page.goto(`${server.url}/runs/${building.id}#feature=F-002`);
    await page.waitForSelector('#feature-detail [data-field="state"] >> text=blocked');
    await page.click('#retry-feature:not([disabled])');
    await page.waitForSelector('#retry-reason >> text=Retried');
    expect((await env.store.listFeatures(building.id)).find((f) => f.id === 'F-002')?.blocked).toBe(false);
  });

  it("prints a failed verdict's issue once, as text", async () => {
    await open(`${server.url}/runs/${building.id}#feature=F-005`);
    const verdict = page.locator('#feature-detail .verdict[data-session="77"]');
    await verdict.waitFor();
    const text = (await verdict.textContent()) ?? '';
    expect(text.split(ISSUE).length - 1).toBe(1);
    expect(await verdict.locator('b, img:not(.shot)').count()).toBe(0);
    // The feedback file repeats the verdict for the generator: it stays folded.
    expect(await page.locator('#feature-detail details.feedback-file').getAttribute('open')).toBeNull();
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
  });

  it("shows the feature's recorded check and its last replay, red, with the failure as text and its screenshot", async () => {
    await open(`${server.url}/runs/${building.id}#feature=F-005`);
    const status = page.locator('#feature-detail .check-status[data-check="red"]');
    await status.waitFor();
    expect(await status.locator('[data-field="check-version"]').textContent()).toBe('v2');
    expect(await status.locator('[data-field="check-file"]').textContent()).toBe(
      '.nightshift/checks/F-005.json',
    );
    const text = (await status.textContent()) ?? '';
    expect(text).toContain('earlier: v1');
    expect(await status.locator('[data-field="last-replay"]').textContent()).toMatch(
      /^red last replay v2 by a regression sweep, .+, 812 ms$/,
    );
    expect(text).toContain(`Failed at expectation 1: text "Todos" is visible (${ISSUE})`);
    expect(await status.locator('b, img').count()).toBe(0);
    const href = await status.locator('[data-field="replay-screenshot"]').getAttribute('href');
    const shot = await page.request.get(`${server.url}${href}`);
    expect(shot.status()).toBe(200);
    expect(shot.headers()['content-type']).toBe('image/png');
    expect(
      (
        await page.request.get(`${server.url}/api/runs/${building.id}/check-screenshots/..%2Fsecrets.png`)
      ).status(),
    ).toBe(404);
    // A feature without a check says so.
    await page.goto(`${server.url}/runs/${building.id}#feature=F-006`);
    await page.locator('#feature-detail .check-status[data-check="none"]').waitFor();
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
  });

  it('enlarges a screenshot from the keyboard and returns focus to it on Escape', async () => {
    await open(`${server.url}/runs/${building.id}#feature=F-005`);
    const thumb = page.locator('#feature-detail .verdict[data-session="77"] .shot-button');
    await thumb.waitFor();
    expect((await thumb.boundingBox())!.width).toBeLessThan(200);
    await thumb.focus();
    await page.keyboard.press('Enter');
    const image = page.locator('#lightbox img.lightbox-image');
    await image.waitFor();
    await page.waitForFunction(() => (document.querySelector('#lightbox img') as HTMLImageElement)?.complete);
    expect(await image.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(1000);
    expect((await image.boundingBox())!.width).toBeGreaterThan(900);
    expect(await page.textContent('#lightbox figcaption')).toContain('01-after-save.png');
    await page.keyboard.press('Escape');
    await page.waitForSelector('#lightbox', { state: 'detached' });
    expect(await thumb.evaluate((button) => button === document.activeElement)).toBe(true);
  });

  it("draws the header and the grid first: the chart and the timeline wait for the grid's first cells", async () => {
    const held = await browser.newPage({ viewport: { width: 1360, height: 1000 } });
    try {
      let release = () => {};
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      await held.route('**/api/runs/*/grid', async (route) => {
        await gate;
        await route.continue();
      });
      const served = new Set<string>();
      held.on('requestfinished', (request) =>
        served.add(new URL(request.url()).pathname.split('/').at(-1) ?? ''),
      );
      await held.goto(`${server.url}/runs/${building.id}`);
      await held.waitForSelector('#run-header h1');
      await expect.poll(() => served.has('progress') && served.has('sessions')).toBe(true);
      // Their data is in; two frames later they would have been drawn if they did not wait for the grid.
      await held.evaluate(
        () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))),
      );
      expect(await held.locator('#progress-chart').count()).toBe(0);
      expect(await held.locator('#timeline tbody tr').count()).toBe(0);
      release();
      await held.waitForSelector('#feature-grid [data-feature="F-001"]');
      await held.waitForSelector('#progress-chart');
      await held.waitForSelector('#timeline tbody tr');
    } finally {
      await held.close();
    }
  });

  it('keeps the chart\'s "8 / 8" label inside the drawing', async () => {
    await open(`${server.url}/runs/${finished.id}`);
    const label = page.locator('#progress-chart .chart-value');
    await label.waitFor();
    expect(await label.textContent()).toBe('8 / 8');
    const box = await label.evaluate((text: SVGTextElement) => {
      const b = text.getBBox();
      const view = (text.ownerSVGElement as SVGSVGElement).viewBox.baseVal;
      return {
        top: b.y,
        bottom: b.y + b.height,
        left: b.x,
        right: b.x + b.width,
        width: view.width,
        height: view.height,
      };
    });
    expect(box.top).toBeGreaterThanOrEqual(0);
    expect(box.left).toBeGreaterThanOrEqual(0);
    expect(box.right).toBeLessThanOrEqual(box.width);
    expect(box.bottom).toBeLessThanOrEqual(box.height);
  });
});
