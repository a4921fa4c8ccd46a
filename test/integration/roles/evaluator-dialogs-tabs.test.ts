/**
 * Issue 14's role-level test: a todo app whose Delete asks `confirm()` and whose Help link opens a new tab is
 * evaluated correctly by a scripted evaluator that acts through the real browser tools and decides from what
 * the tools showed it. A broken Delete (confirm shown, item kept) makes the same evaluator fail the feature,
 * so a dismissed dialog or an evaluator that does not read the page turns this test red.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCheckFile, readReplays } from '../../../checks/store.js';
import { readFeatureList } from '../../../handoff/feature-list.js';
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

/** The app: todos live in the page; BUG=delete keeps the todo after the confirm was accepted. */
const SERVER = `import { createServer } from 'node:http';
const broken = process.env.BUG === 'delete';
const page = \`<!doctype html><title>Todos</title><h1>Todos</h1>
<a href="/help" target="_blank">Help</a>
<form><input aria-label="New todo"></form><ul></ul><p id="empty">No todos yet</p>
<script>
const todos = [];
const list = document.querySelector('ul');
function render() {
  list.replaceChildren(...todos.map((title, index) => {
    const item = document.createElement('li');
    const button = document.createElement('button');
    button.textContent = 'Delete';
    button.setAttribute('aria-label', 'Delete ' + title);
    button.onclick = () => {
      if (!confirm('Delete ' + title + '?')) return;
      if (!\${broken}) todos.splice(index, 1);
      render();
    };
    item.append(title + ' ', button);
    return item;
  }));
  document.getElementById('empty').hidden = todos.length > 0;
}
document.querySelector('form').onsubmit = (event) => {
  event.preventDefault();
  const input = document.querySelector('input');
  if (input.value.trim()) todos.push(input.value.trim());
  input.value = '';
  render();
};
</script>\`;
const help = '<!doctype html><title>Todo help</title><h1>Todo help</h1><p>Type a title and press Enter to add a todo.</p>';
createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(req.url === '/help' ? help : page);
}).listen(Number(process.env.PORT), '127.0.0.1');
`;

const DELETE_STEPS = [
  'Add a todo "Buy milk"',
  'Click Delete next to "Buy milk"',
  'Confirm the dialog',
  '"Buy milk" is no longer listed',
];
const HELP_STEPS = ['Click the "Help" link', 'The help page shows in a new tab'];
const FEATURES = [
  {
    id: 'F-001',
    category: 'functional',
    description: 'Delete a todo after confirming',
    steps: DELETE_STEPS,
    passes: false,
  },
  {
    id: 'F-002',
    category: 'functional',
    description: 'Help opens in a new tab',
    steps: HELP_STEPS,
    passes: false,
  },
];

const call = (name: string, args: Record<string, unknown>): { toolCalls: ScriptedToolCall[] } => ({
  toolCalls: [{ name, arguments: args }],
});

/** The delete verdict, decided from the snapshot after the Delete click. */
function deleteVerdict(seen: string) {
  const asked = /A confirm dialog appeared: "Delete Buy milk\?" \(accepted\)/.test(seen);
  const gone = !/button "Delete Buy milk"/.test(seen) && seen.includes('No todos yet');
  const ok = asked && gone;
  return {
    feature_id: 'F-001',
    verdict: ok ? 'pass' : 'fail',
    steps: [
      { step: DELETE_STEPS[0], ok: true, evidence: 'the list showed "Buy milk"' },
      {
        step: DELETE_STEPS[1],
        ok: asked,
        evidence: asked ? 'a confirm dialog asked "Delete Buy milk?"' : 'no confirm dialog was reported',
      },
      { step: DELETE_STEPS[2], ok: asked, evidence: 'accepted the confirm "Delete Buy milk?"' },
      {
        step: DELETE_STEPS[3],
        ok: gone,
        evidence: gone ? 'the list is empty: "No todos yet"' : 'button "Delete Buy milk" is still listed',
      },
    ],
    issues: ok ? [] : ['after accepting the confirm, "Buy milk" is still listed'],
  };
}

/** The help verdict, decided from the tab list and snapshot browser_tabs returned. */
function helpVerdict(seen: string) {
  const tabs = /^1: \S+\/help "Todo help" \(current\)$/m.test(seen);
  const shown = /heading "Todo help"/.test(seen);
  const ok = tabs && shown;
  return {
    feature_id: 'F-002',
    verdict: ok ? 'pass' : 'fail',
    steps: [
      { step: HELP_STEPS[0], ok: tabs, evidence: 'a new tab opened at "/help"' },
      { step: HELP_STEPS[1], ok: shown, evidence: 'the new tab shows the heading "Todo help"' },
    ],
    issues: ok ? [] : ['the help page did not open in a new tab'],
  };
}

/**
 * The scripted evaluator: adds "Buy milk", deletes it, submits the delete verdict from what it saw; with
 * `help`, then clicks Help, lists the tabs and submits the help verdict. `seen` keeps every tool result.
 */
function evaluator(help: boolean, seen: string[]): Policy {
  return (conversation) => {
    const turn = turnOf(conversation);
    const last = lastUserText(conversation);
    if (turn > 0) seen.push(last);
    switch (turn) {
      case 0:
        return call('browser_navigate', {
          url: /http:\/\/127\.0\.0\.1:\d+\//.exec(firstMessage(conversation))?.[0],
        });
      case 1:
        return call('browser_type', {
          ref: refOf(last, /textbox "New todo"/),
          text: 'Buy milk',
          submit: true,
        });
      case 2:
        return call('browser_click', { ref: refOf(last, /button "Delete Buy milk"/) });
      case 3:
        return call('submit_verdict', deleteVerdict(last));
    }
    if (!help) return { text: 'Verdict submitted.' };
    switch (turn) {
      case 4:
        return call('browser_click', { ref: refOf(seen[2] ?? '', /link "Help"/) });
      case 5:
        return call('browser_tabs', { action: 'list' });
      case 6:
        return call('submit_verdict', helpVerdict(last));
      default:
        return { text: 'Verdicts submitted.' };
    }
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

async function evaluate(featureIds: string[], bug = '') {
  const { workspace, dataDir } = await makeWorkspace({
    'app_spec.md': '# Todo\n',
    'feature_list.json': `${JSON.stringify(FEATURES, null, 2)}\n`,
    'init.sh': `#!/usr/bin/env bash\n${bug ? `export BUG=${bug}\n` : ''}exec node server.mjs # on $PORT\n`,
    'progress.md': '# Progress\n',
    'server.mjs': SERVER,
  });
  const seen: string[] = [];
  server.setPolicy(evaluator(featureIds.includes('F-002'), seen));
  const result = await runSession(server, { role: 'evaluator', workspace, dataDir, featureIds, browser });
  return { workspace, dataDir, result, seen };
}

describe('evaluating a todo app with a confirm() delete and a new-tab help link', {
  timeout: 120_000,
}, () => {
  it('passes both features, reports the dialog and the tab, and replays both recorded checks green', async () => {
    const { workspace, dataDir, result, seen } = await evaluate(['F-001', 'F-002']);
    try {
      expect(result.verdicts.map((verdict) => [verdict.featureId, verdict.verdict])).toEqual([
        ['F-001', 'pass'],
        ['F-002', 'pass'],
      ]);
      const { records } = await readVerdicts(workspace);
      expect(records.map((record) => [record.featureId, record.verdict, record.ungrounded])).toEqual([
        ['F-001', 'pass', undefined],
        ['F-002', 'pass', undefined],
      ]);
      expect((await readFeatureList(workspace)).map((feature) => feature.passes)).toEqual([true, true]);

      // What the model was told: the dialog in the Delete click's result, the tab in the Help click's, and
      // browser_tabs listing both tabs with the help page current.
      expect(seen[2]).toContain('A confirm dialog appeared: "Delete Buy milk?" (accepted).');
      expect(seen[4]).toMatch(/A new tab opened: http:\/\/127\.0\.0\.1:\d+\/help/);
      expect(seen[5]).toMatch(/^0: http:\/\/127\.0\.0\.1:\d+\/ "Todos"$/m);
      expect(seen[5]).toMatch(/^1: http:\/\/127\.0\.0\.1:\d+\/help "Todo help" \(current\)$/m);

      // The pass gate recorded both checks (with the dialog answer and the popup) and replayed them green.
      const deleteCheck = (await readCheckFile(workspace, 'F-001'))?.current;
      expect(deleteCheck?.actions).toContainEqual(
        expect.objectContaining({ kind: 'click', dialog: 'accept' }),
      );
      expect(deleteCheck?.expectations).toEqual(
        expect.arrayContaining([
          { kind: 'text', text: 'Buy milk', visible: false },
          { kind: 'text', text: 'No todos yet', visible: true },
        ]),
      );
      const helpCheck = (await readCheckFile(workspace, 'F-002'))?.current;
      expect(helpCheck?.actions.at(-1)).toMatchObject({ kind: 'click', popup: true });
      expect(helpCheck?.expectations).toContainEqual({ kind: 'text', text: 'Todo help', visible: true });
      for (const id of ['F-001', 'F-002']) {
        expect(fs.existsSync(path.join(workspace, `e2e/${id}.spec.ts`))).toBe(true);
      }
      const replays = await readReplays(dataDir, 'r-test');
      expect([
        replays['F-001']?.ok,
        replays['F-001']?.by,
        replays['F-002']?.ok,
        replays['F-002']?.by,
      ]).toEqual([true, 'gate', true, 'gate']);
      expect(browser.launches).toBe(1);
    } finally {
      removeWorkspace(workspace);
    }
  });

  it('fails the delete when the confirm is shown but the todo stays', async () => {
    const { workspace, result, seen } = await evaluate(['F-001'], 'delete');
    try {
      expect(seen[2]).toContain('A confirm dialog appeared: "Delete Buy milk?" (accepted).');
      expect(seen[2]).toMatch(/button "Delete Buy milk"/);
      expect(result.verdicts.map((verdict) => verdict.verdict)).toEqual(['fail']);
      const { records } = await readVerdicts(workspace);
      expect(records.map((record) => record.verdict)).toEqual(['fail']);
      expect((await readFeatureList(workspace))[0]?.passes).toBe(false);
      expect(await readCheckFile(workspace, 'F-001')).toBeNull();
    } finally {
      removeWorkspace(workspace);
    }
  });
});
