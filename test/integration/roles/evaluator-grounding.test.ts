import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFeatureList } from '../../../handoff/feature-list.js';
import type { VerdictStep } from '../../../handoff/formats.js';
import { readVerdicts } from '../../../handoff/verdicts.js';
import { startModelServer } from '../../../testkit/server.js';
import type { ModelServer, Policy, ScriptedToolCall } from '../../../testkit/types.js';
import { type BrowserPool, createBrowserPool } from '../../../workers/browser-pool.js';
import {
  firstMessage,
  lastUserText,
  makeWorkspace,
  refOf,
  removeWorkspace,
  runSession,
  turnOf,
} from './role-helpers.js';

const FIXTURE = path.resolve('test/fixtures/todo-app/server.js');
const STEPS = ['Add "Alpha" and "Beta"', 'Complete "Alpha"', 'The page says "1 item left"'];
const FEATURES = [
  { id: 'F-001', category: 'functional', description: 'Remaining count', steps: STEPS, passes: false },
];

/** One browser move: the tool call to make, given the last tool output and the app URL. */
type Move = (seen: string, url: string) => ScriptedToolCall;

const navigate: Move = (_seen, url) => ({ name: 'browser_navigate', arguments: { url } });
const add =
  (text: string): Move =>
  (seen) => ({
    name: 'browser_type',
    arguments: { ref: refOf(seen, /textbox "What needs to be done\?"/), text, submit: true },
  });
const complete =
  (text: string): Move =>
  (seen) => ({ name: 'browser_click', arguments: { ref: refOf(seen, new RegExp(`checkbox "${text}"`)) } });

const HONEST_STEPS: VerdictStep[] = [
  { step: STEPS[0] as string, ok: true, evidence: 'The list shows "Alpha" and "Beta".' },
  { step: STEPS[1] as string, ok: true, evidence: 'checkbox "Alpha" [checked]' },
  { step: STEPS[2] as string, ok: true, evidence: 'The status says "1 item left".' },
];

/**
 * A scripted evaluator: makes its moves, then submits a pass with `steps`; when the harness sends the pass back,
 * it submits the same pass again (a model that insists), then stops.
 */
function evaluator(moves: Move[], steps: VerdictStep[]): Policy {
  return (conversation) => {
    const turn = turnOf(conversation);
    const url = /http:\/\/127\.0\.0\.1:\d+\//.exec(firstMessage(conversation))?.[0] ?? '';
    const move = moves[turn];
    if (move) return { toolCalls: [move(lastUserText(conversation), url)] };
    if (turn <= moves.length + 1) {
      const verdict = { feature_id: 'F-001', verdict: 'pass', steps, issues: [] };
      return { toolCalls: [{ name: 'submit_verdict', arguments: verdict }] };
    }
    return { text: 'Done.' };
  };
}

let server: ModelServer;
let browser: BrowserPool;
beforeAll(async () => {
  server = await startModelServer({ policy: () => ({ text: 'idle' }) });
  browser = createBrowserPool();
});
afterAll(async () => {
  await browser.close();
  await server.close();
});

async function evaluate(policy: Policy, bug = '') {
  const { workspace, dataDir } = await makeWorkspace({
    'app_spec.md': '# Todo\n',
    'feature_list.json': `${JSON.stringify(FEATURES, null, 2)}\n`,
    'init.sh': `#!/usr/bin/env bash\n${bug ? `export BUG=${bug}\n` : ''}exec node server.js # on $PORT\n`,
    'progress.md': '# Progress\n',
    'server.js': fs.readFileSync(FIXTURE, 'utf8'),
  });
  server.setPolicy(policy);
  const before = server.requests.length;
  try {
    const result = await runSession(server, {
      role: 'evaluator',
      workspace,
      dataDir,
      featureIds: ['F-001'],
      browser,
    });
    const passes = (await readFeatureList(workspace))[0]?.passes;
    const { records } = await readVerdicts(workspace);
    const bodies = server.requests.slice(before).map((request) => request.body);
    return { result, passes, record: records.at(-1), bodies };
  } finally {
    removeWorkspace(workspace);
  }
}

const HONEST_MOVES = [navigate, add('Alpha'), add('Beta'), complete('Alpha')];

describe('grounded verdicts in a real evaluator session', { timeout: 180_000 }, () => {
  it('applies an honest pass', async () => {
    const { result, passes, record } = await evaluate(evaluator(HONEST_MOVES, HONEST_STEPS));
    expect(result.verdicts.map((v) => v.verdict)).toEqual(['pass']);
    expect(passes).toBe(true);
    expect(record?.ungrounded).toBeUndefined();
  });

  const cheats: [string, Move[], VerdictStep[], RegExp, string?][] = [
    [
      'fewer steps than the feature',
      HONEST_MOVES,
      HONEST_STEPS.slice(0, 2),
      /^Step 3 "The page says "1 item left"" has no entry in your pass/,
    ],
    [
      'invented evidence',
      HONEST_MOVES,
      [
        ...HONEST_STEPS.slice(0, 2),
        { ...(HONEST_STEPS[2] as VerdictStep), evidence: 'It says "All caught up!"' },
      ],
      /quotes "All caught up!" but the browser never showed that text/,
    ],
    ['no browser action', [], HONEST_STEPS, /No browser action/],
    [
      // "1 item left" showed after adding Alpha, before Beta was added; Alpha was never completed.
      'evidence from before the action',
      [navigate, add('Alpha'), add('Beta')],
      [
        HONEST_STEPS[0] as VerdictStep,
        { ...(HONEST_STEPS[1] as VerdictStep), evidence: 'checkbox "Alpha"' },
        HONEST_STEPS[2] as VerdictStep,
      ],
      /quotes "1 item left", which the page showed only before/,
    ],
    [
      'a pass over a page error',
      HONEST_MOVES,
      HONEST_STEPS,
      /The page raised an error.*sync failed: badge is undefined/,
      'pageerror',
    ],
  ];
  for (const [name, moves, steps, problem, bug] of cheats) {
    it(`never applies a pass with ${name}: sent back once, then blocked`, async () => {
      const { result, passes, record, bodies } = await evaluate(evaluator(moves, steps), bug);
      expect(result.verdicts.map((v) => v.verdict)).toEqual(['blocked']);
      expect(passes).toBe(false);
      expect(record?.verdict).toBe('blocked');
      expect(record?.reason).toMatch(/^ungrounded pass: /);
      expect(record?.ungrounded?.map((failure) => failure.attempt)).toEqual([1, 2]);
      expect(record?.ungrounded?.[0]?.problems.join('\n')).toMatch(problem);
      const sentBack = bodies.filter((body) =>
        body.includes('is not grounded in what your browser session showed'),
      );
      expect(sentBack.length).toBeGreaterThan(0);
    });
  }
});
