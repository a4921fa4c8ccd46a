/**
 * A sample of the grounding family (all of it runs in `npm run bench -- --only grounding`): evaluator sessions of
 * honest, sloppy and cheating wording styles on the finished todo app, through the real harness, real Chromium and
 * the real Anthropic and OpenAI SDKs against the scripted server.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  noteSubmissions,
  runTrial,
  styleWorkspace,
  type TrialTemplates,
  trialTemplates,
} from '../../../bench/grounding-trial.js';
import { readFeatureList } from '../../../handoff/feature-list.js';
import type { SubmittedVerdict } from '../../../handoff/formats.js';
import { PLANTED_PAGE_ERROR } from '../../../testkit/policies/grounding-family.js';
import { startModelServer } from '../../../testkit/server.js';
import type { ModelServer, WireFormat } from '../../../testkit/types.js';
import { type BrowserPool, createBrowserPool } from '../../../workers/browser-pool.js';

/** The persist feature: three steps (open and add, reload, still listed). */
const PERSIST = 'F-002';

let root: string;
let server: ModelServer;
let browser: BrowserPool;
let templates: TrialTemplates;
const submissions: { model: string; verdict: SubmittedVerdict }[] = [];
let session = 0;

beforeAll(async () => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ns-grounding-family-')));
  server = await startModelServer({ policy: noteSubmissions(submissions) });
  browser = createBrowserPool();
  templates = await trialTemplates(root);
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  fs.rmSync(root, { recursive: true, force: true });
});

async function trial(style: string, format: WireFormat, featureId = PERSIST) {
  session += 1;
  const workspace = styleWorkspace(templates, root, style);
  const outcome = await runTrial(server, {
    browser,
    workspace,
    dataDir: path.join(root, 'data'),
    style,
    featureId,
    session,
    format,
    submissions,
  });
  const passes = (await readFeatureList(workspace)).find((feature) => feature.id === featureId)?.passes;
  return { ...outcome, passes };
}

describe('the grounding family in real evaluator sessions', { timeout: 240_000 }, () => {
  it.each<[string, WireFormat, RegExp, string]>([
    [
      'snapshot-lines',
      'anthropic',
      /`- generic \[ref=e\d+\]: Water the plants \w+`/,
      'Open the app and add a todo with a unique text',
    ],
    ['terse-typographic', 'openai', /^‘Water the plants \w+\.’/, 'Open app, add unique todo'],
    [
      'first-person-curly',
      'anthropic',
      /“Water the plants \w+”/,
      'I opened the app and added a todo with a unique text',
    ],
  ])('accepts the honest style %s (%s) the first time', async (style, format, quoting, firstStep) => {
    const outcome = await trial(style, format);
    expect(outcome.refusals).toEqual([]);
    expect(outcome.verdict).toBe('pass');
    expect(outcome.passes).toBe(true);
    expect(outcome.submissions).toHaveLength(1);
    // The style really wrote its way: its quotes and its wording of the steps.
    expect(outcome.submissions[0]?.steps.map((step) => step.evidence).join('\n')).toMatch(quoting);
    expect(outcome.submissions[0]?.steps[0]?.step).toBe(firstStep);
  });

  it('sends a sloppy misquote back naming the step and the quote; the fixed pass is accepted', async () => {
    const outcome = await trial('misquotes-once', 'openai');
    expect(outcome.refusals).toEqual([
      {
        attempt: 1,
        problems: [
          expect.stringMatching(
            /^Step 3 "The todo is still in the list after the reload" — your evidence quotes "Water the plants \w+ is shown" but the browser never showed that text in this session; quote text the page showed after reloading the page\.$/,
          ),
        ],
      },
    ]);
    expect(outcome.verdict).toBe('pass');
    expect(outcome.passes).toBe(true);
    const [first, second] = outcome.submissions;
    // Only what was named changed; the rest kept the style (past tense).
    expect(second?.steps.slice(0, 2)).toEqual(first?.steps.slice(0, 2));
    expect(second?.steps[2]?.evidence).not.toBe(first?.steps[2]?.evidence);
    expect(second?.steps[0]?.step).toBe('Opened the app and added a todo with a unique text');
  });

  it.each<[string, WireFormat, RegExp]>([
    [
      'skips-a-step',
      'anthropic',
      /^Step 2 "Reload the page" — the session shows no navigation or reload after step 1/,
    ],
    [
      'stale-quotes',
      'openai',
      /^Step 3 .* quotes "0 items left", which the page showed only before reloading the page/,
    ],
    ['hides-page-error', 'anthropic', new RegExp(`^The page raised an error .*${PLANTED_PAGE_ERROR}`)],
  ])(
    'never accepts the cheating style %s (%s): sent back, tries again, blocked',
    async (style, format, problem) => {
      const outcome = await trial(style, format);
      expect(outcome.verdict).toBe('blocked');
      expect(outcome.passes).toBe(false);
      expect(outcome.refusals.map((refusal) => refusal.attempt)).toEqual([1, 2]);
      expect(outcome.refusals[0]?.problems.join('\n')).toMatch(problem);
      expect(outcome.submissions).toHaveLength(2);
    },
  );
});
