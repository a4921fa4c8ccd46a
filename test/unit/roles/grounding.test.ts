import { describe, expect, it } from 'vitest';
import type { ObservationEntry } from '../../../agent/tools/browser-log.js';
import { ObservationLog } from '../../../agent/tools/browser-log.js';
import type { SubmittedVerdict } from '../../../handoff/formats.js';
import { groundPass, quotesIn, sameStep } from '../../../roles/grounding.js';
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

function problems(verdict: SubmittedVerdict, entries = session()): string[] {
  const result = groundPass(feature, verdict, entries);
  return result.grounded ? [] : result.problems;
}

describe('grounding a pass', () => {
  it('accepts an honest pass whose quotes were on screen after acting, in step order', () => {
    expect(groundPass(feature, honest, session())).toEqual({ grounded: true });
  });

  it('refuses fewer steps than the feature has', () => {
    expect(problems({ ...honest, steps: honest.steps.slice(0, 2) })).toEqual([
      expect.stringContaining('lists 2 step(s) but the feature has 4'),
    ]);
  });

  it('refuses steps that are not the feature steps', () => {
    const steps = honest.steps.map((s, i) => (i === 2 ? { ...s, step: 'Admire the colours' } : s));
    expect(problems({ ...honest, steps })).toEqual([
      expect.stringContaining('Step 3 is "Admire the colours"'),
    ]);
  });

  it('refuses invented evidence and evidence without quotes', () => {
    const steps = [...honest.steps];
    steps[1] = { step: 'Add a todo "Buy milk"', ok: true, evidence: 'The list shows "Buy bread"' };
    steps[2] = { step: 'Delete it', ok: true, evidence: 'It worked' };
    expect(problems({ ...honest, steps })).toEqual([
      expect.stringContaining('"Buy bread" was never shown'),
      expect.stringContaining("Step 3's evidence quotes nothing"),
    ]);
  });

  it('refuses a pass when the session never acted in the browser', () => {
    const looked = session().filter((entry) => entry.kind === 'observation');
    expect(problems(honest, looked)).toEqual([expect.stringContaining('No browser action')]);
  });

  it('refuses evidence that was only on screen before the step was performed', () => {
    // Never deleted: "No todos yet" was on screen only before the todo was added.
    expect(problems(honest, session({ skipDelete: true }))).toEqual([
      expect.stringContaining('"No todos yet" was only on screen before'),
    ]);
  });

  it('refuses a pass over a page error unless a step explains it', () => {
    const entries = session({ pageError: 'TypeError: x is undefined' });
    expect(problems(honest, entries)).toEqual([expect.stringContaining('The page raised an error')]);
    const steps = [...honest.steps];
    steps[2] = {
      ...honest.steps[2]!,
      evidence: `${honest.steps[2]!.evidence}; the console's "TypeError: x is undefined" comes from a browser extension probe and does not affect the list`,
    };
    expect(problems({ ...honest, steps }, entries)).toEqual([]);
  });

  it('does not match quotes against snapshot refs', () => {
    const steps = [...honest.steps];
    steps[3] = { ...honest.steps[3]!, evidence: 'the element "ref=e1"' };
    expect(problems({ ...honest, steps })).toEqual([expect.stringContaining('"ref=e1" was never shown')]);
  });

  it('reads quotes and compares steps leniently', () => {
    expect(quotesIn('saw "a b" and “c” and `d`')).toEqual(['a b', 'c', 'd']);
    expect(sameStep('Click the Add button', '2. Click the "Add" button')).toBe(true);
    expect(sameStep('Click the Add button', "Click the 'Add' button once")).toBe(true);
    expect(sameStep('Click the Add button', 'Open settings')).toBe(false);
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
    expect(() => collector.submit(honest)).toThrow(/not grounded.*\n- Step 4's evidence "No todos yet"/s);
    expect(collector.missing()).toEqual(['F-001']);
    expect(collector.blockedReason('F-001')).toMatch(/^ungrounded pass: /);
    expect(collector.submit(honest)).toContain('Recorded blocked (ungrounded pass) for F-001');
    expect(collector.blockedReason('F-001')).toMatch(/^ungrounded pass: Step 4/);
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
