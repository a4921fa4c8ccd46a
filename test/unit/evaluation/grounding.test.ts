import { describe, expect, it } from 'vitest';
import type { ObservationEntry } from '../../../agent/tools/browser-log.js';
import { ObservationLog } from '../../../agent/tools/browser-log.js';
import { groundPass } from '../../../evaluation/grounding.js';
import type { SubmittedVerdict } from '../../../handoff/formats.js';
import { VerdictCollector } from '../../../roles/submit-verdict.js';

const feature = {
  id: 'F-001',
  steps: ['Open the app', 'Add a todo "Buy milk"', 'Delete it', 'The list says "No todos yet"'],
};

/** A session as the log records it: look, navigate, add, delete. */
function session(options: { pageError?: string; skipDelete?: boolean } = {}): readonly ObservationEntry[] {
  const log = new ObservationLog(() => 0);
  const view = (body: string) => `Page URL: http://127.0.0.1:4000/\nPage title: Todos\nSnapshot:\n${body}`;
  log.record({
    tool: 'browser_snapshot',
    kind: 'observation',
    args: {},
    ok: true,
    url: 'about:blank',
    snapshot: view(''),
  });
  log.record({
    tool: 'browser_navigate',
    kind: 'action',
    args: { url: '/' },
    ok: true,
    url: 'http://127.0.0.1:4000/',
    snapshot: view(
      '- heading "Todos" [level=1] [ref=e1]\n- text: No todos yet\n- textbox "New todo" [ref=e2]',
    ),
    navigation: { url: 'http://127.0.0.1:4000/', status: 200 },
  });
  log.record({
    tool: 'browser_type',
    kind: 'action',
    args: { ref: 'e2', text: 'Buy milk', submit: true },
    ok: true,
    url: 'http://127.0.0.1:4000/',
    snapshot: view(
      '- heading "Todos" [level=1] [ref=e1]\n- checkbox "Buy milk" [ref=e3]\n- button "Delete Buy milk" [ref=e4]\n- text: 1 item left',
    ),
  });
  if (options.pageError) log.noteConsole(`[pageerror] ${options.pageError}`);
  if (!options.skipDelete) {
    log.record({
      tool: 'browser_click',
      kind: 'action',
      args: { ref: 'e4' },
      ok: true,
      url: 'http://127.0.0.1:4000/',
      snapshot: view('- heading "Todos" [level=1] [ref=e1]\n- text: No todos yet'),
      target: { ref: 'e4', role: 'button', name: 'Delete Buy milk' },
    });
  }
  return log.entries();
}

const honest: SubmittedVerdict = {
  feature_id: 'F-001',
  verdict: 'pass',
  issues: [],
  steps: [
    { step: 'Open the app', ok: true, evidence: 'The heading "Todos" is shown' },
    { step: 'Add a todo "Buy milk"', ok: true, evidence: 'The list shows "Buy milk" and "1 item left"' },
    { step: 'Delete it', ok: true, evidence: 'After clicking "Delete Buy milk" the item is gone' },
    { step: 'The list says "No todos yet"', ok: true, evidence: 'It says "No todos yet"' },
  ],
};

describe('grounding a pass', () => {
  it('accepts an honest pass, naming the element it deleted although it is gone afterwards', () => {
    expect(groundPass(feature, honest, session())).toEqual({ grounded: true });
  });
});

describe('the verdict collector', () => {
  it('sends an ungrounded pass back once, then records it as blocked, never as pass', () => {
    const told: [string, number, boolean][] = [];
    const entries = session({ skipDelete: true });
    const collector = new VerdictCollector(['F-001'], {
      features: [feature],
      observations: () => entries,
      onUngrounded: (id, failure, final) => told.push([id, failure.attempt, final]),
    });
    expect(() => collector.submit(honest)).toThrow(
      [
        'This pass for F-001 is not grounded in what your browser session showed. Change only what is named below; the rest of your pass is grounded:',
        '- Step 3 "Delete it" — it needs 1 browser action(s) after step 2 and the session shows 0; perform the step as written, then quote what the page showed.',
        '- Step 4 "The list says "No todos yet"" — your evidence quotes "No todos yet", which the page showed only before deleting it (observation 2); quote what it showed after.',
        'Then submit again — or submit fail or blocked. Another ungrounded pass is recorded as blocked.',
      ].join('\n'),
    );
    expect(collector.missing()).toEqual(['F-001']);
    expect(collector.blockedReason('F-001')).toMatch(/^ungrounded pass: /);
    expect(collector.submit(honest)).toContain('Recorded blocked (ungrounded pass) for F-001');
    expect(collector.blockedReason('F-001')).toMatch(
      /^ungrounded pass: Step 3 "Delete it" — it needs 1 browser action/,
    );
    expect(collector.groundingFailures('F-001')).toHaveLength(2);
    expect(told).toEqual([
      ['F-001', 1, false],
      ['F-001', 2, true],
    ]);
  });

  it('keeps a grounded pass after a send-back, and a fail after a send-back', () => {
    let entries = session({ skipDelete: true });
    const collector = new VerdictCollector(['F-001', 'F-002'], {
      features: [feature, { ...feature, id: 'F-002' }],
      observations: () => entries,
    });
    expect(() => collector.submit(honest)).toThrow(/not grounded/);
    entries = session();
    collector.submit(honest);
    expect(collector.blockedReason('F-001')).toBeUndefined();
    entries = session({ skipDelete: true });
    expect(() => collector.submit({ ...honest, feature_id: 'F-002' })).toThrow(/not grounded/);
    collector.submit({ ...honest, feature_id: 'F-002', verdict: 'fail', issues: ['Delete does nothing'] });
    expect(collector.blockedReason('F-002')).toBeUndefined();
  });
});
