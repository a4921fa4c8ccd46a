/**
 * A recorded check pins the page it ends on (checks/recorder-place.ts), on a real Chromium: the evaluator passed
 * "log in and land on My recipes" on /recipes, and a change that sends the user to the home page instead, whose
 * menu also says "My recipes", turns the check red. With the quoted text alone it stayed green (the false pass of
 * the meal-planner overnight bench).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RecordedCheck } from '../../../checks/format.js';
import { confirmedExpectations } from '../../../checks/recorder.js';
import { replayCheck } from '../../../checks/replay.js';
import { CHROMIUM } from './playwright-suite.js';

const MENU = '<nav><a href="/">Home</a> <a href="/recipes">My recipes</a></nav>';
const PAGES: Record<string, string> = {
  '/': `${MENU}<h1>Welcome back</h1>`,
  '/recipes': `${MENU}<h1>My recipes</h1><p>No recipes yet.</p>`,
};

let browser: Browser;
let server: http.Server;
let base: string;
beforeAll(async () => {
  browser = await chromium.launch({ executablePath: CHROMIUM });
  server = http.createServer((request, response) => {
    const body = PAGES[new URL(request.url ?? '/', 'http://x').pathname];
    response.writeHead(body ? 200 : 404, { 'content-type': 'text/html' });
    response.end(`<!doctype html><title>Meals</title>${body ?? 'not found'}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
});

/** A check that ends on `path` (where the app sent the user) with the given expectations. */
function endingOn(path: string, expectations: RecordedCheck['expectations']): RecordedCheck {
  return RecordedCheck.parse({
    featureId: 'F-006',
    version: 1,
    recordedAt: '2026-12-03T00:00:00.000Z',
    origin: { runId: 'r-test', session: 2, reason: 'evaluate' },
    actions: [{ kind: 'goto', path }],
    expectations,
  });
}

describe('the page a recorded check ends on', () => {
  it('is pinned by the heading and the path the evidence names, so landing on the wrong page is red', async () => {
    const page = await browser.newPage();
    await page.goto(new URL('/recipes', base).href);
    const evidence = ['The address is now /recipes. The page has the heading "My recipes".'];
    const expectations = await confirmedExpectations(page, evidence, [], base);
    await page.close();
    expect(expectations).toEqual([
      { kind: 'text', text: 'My recipes', visible: true },
      { kind: 'count', target: "getByRole('heading', { name: 'My recipes', exact: true })", count: 1 },
      { kind: 'url', path: '/recipes' },
    ]);

    expect((await replayCheck(browser, endingOn('/recipes', expectations), { baseUrl: base })).ok).toBe(true);
    const wrongPage = await replayCheck(browser, endingOn('/', expectations), { baseUrl: base });
    expect(wrongPage.ok).toBe(false);
    expect(wrongPage.failure?.description).toMatch(/heading|URL|url/);
    // The quoted text alone cannot tell the pages apart: the menu says "My recipes" on both.
    const textOnly = expectations.filter((expectation) => expectation.kind === 'text');
    expect((await replayCheck(browser, endingOn('/', textOnly), { baseUrl: base })).ok).toBe(true);
  });

  it('is not pinned by a heading whose text has digits or was typed by the check', async () => {
    const page = await browser.newPage();
    await page.setContent('<h1>3 recipes</h1><h2>Lentil soup</h2>');
    const expectations = await confirmedExpectations(
      page,
      ['"3 recipes" and "Lentil soup"'],
      ['Lentil soup'],
    );
    await page.close();
    expect(expectations.map((expectation) => expectation.kind)).toEqual(['text', 'text']);
  });
});
