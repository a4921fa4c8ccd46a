import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDashboardServer, type DashboardServer } from '../../../dashboard/server.js';
import { DECIDE_YOURSELF } from '../../../handoff/questions.js';
import { askQuestion, expireQuestions, type QuestionsDeps } from '../../../orchestrator/questions.js';
import type { RunRecord } from '../../../orchestrator/run/index.js';
import { launchChromium } from './browser.js';
import { openStore, SteppingClock, seedRun } from './seed.js';

// Questions on a real Redis run: the cap, the timeout, the HTTP API (token-protected) and the dashboard's answer box
// in Chromium. The whole-run flow (a generator asks, the CLI answers) is test/integration/runs/questions-run.test.ts.
const TOKEN = 'test-token-questions-0123456789';
const XSS = '<img src=x onerror="window.__pwned = 1">Which <b>currency</b>?';

describe('questions: cap, timeout, HTTP API and the dashboard card', () => {
  const clock = new SteppingClock(Date.parse('2026-11-28T22:00:00Z'));
  let env: Awaited<ReturnType<typeof openStore>>;
  let deps: QuestionsDeps;
  let dataDir: string;
  let run: RunRecord;
  let browser: Browser | undefined;
  const servers: DashboardServer[] = [];

  beforeAll(async () => {
    env = await openStore(clock);
    deps = { redis: env.redis, store: env.store, now: clock.now };
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'ns-questions-'));
    run = await seedRun(env.store, { features: 4, sessions: 2, workspace: path.join(dataDir, 'ws'), clock });
  });
  afterAll(async () => {
    await browser?.close();
    for (const server of servers) await server.close();
    await env?.cleanup();
    await rm(dataDir, { recursive: true, force: true });
  });

  const ask = (featureId: string, question: string, options: string[] = []) =>
    askQuestion(deps, run.id, { featureId, role: 'generator', seq: 3, question, options });

  it('records questions up to questions.maxOpen; past it the session is told to decide itself', async () => {
    expect(await ask('F-002', 'Which word: todos or tasks?', ['todos', 'tasks'])).toMatchObject({
      kind: 'asked',
      question: { id: 'Q-1', featureId: 'F-002', answer: null },
    });
    expect((await ask('F-003', XSS)).kind).toBe('asked');
    expect((await ask('F-004', 'Dark mode?')).kind).toBe('asked');
    expect(await ask('F-004', 'A fourth one?')).toEqual({
      kind: 'decide',
      reason: `No person can be asked now (3 of at most 3 questions are open). ${DECIDE_YOURSELF}`,
    });
    expect((await env.store.getRun(run.id)).questions.map((q) => q.id)).toEqual(['Q-1', 'Q-2', 'Q-3']);
  });

  it('answers a question past answerTimeoutMinutes with "decide yourself", once, by `timeout`', async () => {
    clock.advance(119 * 60_000);
    expect(
      (await expireQuestions(deps, await env.store.getRun(run.id))).questions.every((q) => !q.answer),
    ).toBe(true);
    clock.advance(60_000);
    const after = await expireQuestions(deps, await env.store.getRun(run.id));
    expect(after.questions.find((q) => q.id === 'Q-3')).toMatchObject({
      answer: DECIDE_YOURSELF,
      answeredBy: 'timeout',
      answeredAt: clock.now().toISOString(),
    });
    const events = (await env.store.readEvents(run.id, { count: 1000 })).map((stored) => stored.event);
    expect(events.filter((event) => event.type === 'question.answered')).toHaveLength(3);
    // Put the clock back: the next tests answer themselves.
    clock.advance(-120 * 60_000);
  });

  it('serves GET /questions and POST /answer only with the token; bad answers change nothing', async () => {
    // The timeout answered all three above; a fresh question for the API.
    clock.advance(1000);
    expect((await ask('F-002', 'API question?')).kind).toBe('asked');
    const server = await createDashboardServer({
      store: env.store,
      dataDir,
      host: '0.0.0.0',
      port: 0,
      token: TOKEN,
    });
    servers.push(server);
    const base = `http://127.0.0.1:${server.port}/api/runs/${run.id}/questions`;
    const auth = { authorization: `Bearer ${TOKEN}` };
    const post = (qid: string, body: unknown, headers: Record<string, string> = auth) =>
      fetch(`${base}/${qid}/answer`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await fetch(base)).status).toBe(401);
    expect((await post('Q-4', { answer: 'x' }, {})).status).toBe(401);
    const listed = (await (await fetch(base, { headers: auth })).json()) as {
      questions: Array<{ id: string }>;
    };
    expect(listed.questions.map((q) => q.id)).toEqual(['Q-1', 'Q-2', 'Q-3', 'Q-4']);
    expect((await post('Q-4', { answer: '   ' })).status).toBe(400);
    expect((await post('Q-9', { answer: 'x' })).status).toBe(404);
    const answered = await post('Q-4', { answer: 'Yes, the API' });
    expect(answered.status).toBe(200);
    expect(await answered.json()).toMatchObject({
      question: { id: 'Q-4', answer: 'Yes, the API', answeredBy: 'api' },
    });
    const again = await post('Q-4', { answer: 'No' });
    expect(again.status).toBe(409);
    expect((await env.store.getRun(run.id)).questions[3]?.answer).toBe('Yes, the API');
  });

  it('answers an open question from the card in Chromium (an option fills the box); model text stays text', async () => {
    clock.advance(1000);
    expect((await ask('F-003', XSS, ['euro', 'dollar'])).kind).toBe('asked');
    const server = await createDashboardServer({ store: env.store, dataDir, port: 0 });
    servers.push(server);
    browser = await launchChromium();
    const page = await browser.newPage();
    await page.goto(`${server.url}/runs/${run.id}`);
    const card = page.locator('#questions');
    await card.locator('h2', { hasText: 'Questions · 1 waiting for an answer' }).waitFor();
    const open = card.locator('li.question.open[data-question="Q-5"]');
    expect(await open.locator('.question-text').textContent()).toBe(XSS);
    await open.locator('button.answer-option', { hasText: 'dollar' }).click();
    expect(await open.locator('textarea').inputValue()).toBe('dollar');
    await open.locator('textarea').fill('dollar, with cents');
    await open.locator('button.answer-button').click();
    const answered = card.locator('li.question.answered[data-question="Q-5"] .question-answer');
    await answered.waitFor();
    expect(await answered.textContent()).toBe('Answer (from the dashboard): dollar, with cents');
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect((await env.store.getRun(run.id)).questions[4]).toMatchObject({
      answer: 'dollar, with cents',
      answeredBy: 'dashboard',
    });
  });
});
