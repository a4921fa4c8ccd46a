import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { type ObservationEntry, ObservationLog } from '../../../agent/tools/browser-log.js';
import { exactRoleNames, quotedTexts, recordSegment } from '../../../checks/recorder.js';
import { CheckGate } from '../../../evaluation/check-gate.js';
import { BASE, entry } from './observations.js';

describe('recordSegment', () => {
  it('turns logged actions into check actions with the normalized locators, never refs', () => {
    const log = [
      entry(
        'browser_navigate',
        { url: '/list?x=1' },
        { navigation: { url: `${BASE}list?x=1`, status: 200 } },
      ),
      entry(
        'browser_type',
        { ref: 'e6', text: 'Buy milk', submit: true },
        {
          target: { ref: 'e6', locator: "getByRole('textbox', { name: 'New todo' })" },
        },
      ),
      entry(
        'browser_click',
        { ref: 'e9' },
        {
          target: { ref: 'e9', locator: 'getByRole("button", { name: "Delete Buy milk" })' },
          dialogs: [{ type: 'confirm', message: 'Sure?', answer: 'accepted' }],
        },
      ),
      entry('browser_click', { ref: 'e10' }, { ok: false, error: 'Timeout' }),
      entry('browser_snapshot', {}),
      entry('browser_press_key', { key: 'Escape' }),
    ];
    const segment = recordSegment(log, 0, BASE);
    expect(segment.unrecordable).toBeUndefined();
    expect(segment.typed).toEqual(['Buy milk']);
    expect(segment.actions).toEqual([
      { kind: 'goto', path: '/list?x=1' },
      { kind: 'fill', target: "getByRole('textbox', { name: 'New todo' })", text: 'Buy milk' },
      { kind: 'press', key: 'Enter', target: "getByRole('textbox', { name: 'New todo' })" },
      { kind: 'click', target: "getByRole('button', { name: 'Delete Buy milk' })", dialog: 'accept' },
      { kind: 'press', key: 'Escape' },
    ]);
  });

  it('starts a later segment with a goto to where it began, and says when a target has no stable locator', () => {
    const log = [
      entry('browser_navigate', { url: BASE }, { navigation: { url: BASE } }),
      entry(
        'browser_click',
        { ref: 'e3' },
        { target: { ref: 'e3', locator: "getByRole('button', { name: 'A' })" } },
      ),
      entry(
        'browser_click',
        { ref: 'e4' },
        { target: { ref: 'e4', role: 'img', locator: "locator('aria-ref=e4')" } },
      ),
    ];
    const segment = recordSegment(log, log[1]?.seq ?? 0, BASE);
    expect(segment.actions[0]).toEqual({ kind: 'goto', path: '/list' });
    expect(segment.unrecordable).toContain('the img of browser_click has no stable locator');
    expect(JSON.stringify(segment.actions)).not.toContain('aria-ref');
  });
});

describe('exact accessible names', () => {
  const click = (target: Record<string, string>) =>
    recordSegment([entry('browser_click', { ref: 'e3' }, { target: { ref: 'e3', ...target } })], 0, BASE)
      .actions[1];

  it('a role locator matches the whole name, so "Add" no longer also finds "Add tag"', () => {
    expect(click({ role: 'button', name: 'Add', locator: "getByRole('button', { name: 'Add' })" })).toEqual({
      kind: 'click',
      target: "getByRole('button', { name: 'Add', exact: true })",
    });
  });

  it('takes the full name from the snapshot when the code holds a prefix or another case', () => {
    const long = 'Archive every completed todo of this list';
    expect(
      click({
        role: 'button',
        name: long,
        locator: "getByRole('button', { name: 'archive every completed' })",
      }),
    ).toEqual({ kind: 'click', target: `getByRole('button', { name: '${long}', exact: true })` });
  });

  it('leaves the name alone when the snapshot does not confirm it (an exact prefix would never match)', () => {
    const code = "getByRole('listitem').getByRole('button', { name: 'Delete' })";
    expect(exactRoleNames([{ kind: 'role', role: 'button', name: 'Delete' }])).toEqual([
      { kind: 'role', role: 'button', name: 'Delete' },
    ]);
    expect(click({ role: 'link', name: 'Delete', locator: code })).toEqual({ kind: 'click', target: code });
    expect(click({ role: 'button', name: 'Remove', locator: code })).toEqual({ kind: 'click', target: code });
    // Only the target's own step (the last role call) takes the element's name.
    expect(
      exactRoleNames(
        [
          { kind: 'role', role: 'listitem', name: 'Buy' },
          { kind: 'role', role: 'button', name: 'Delete' },
        ],
        { role: 'button', name: 'Delete Buy milk' },
      ),
    ).toEqual([
      { kind: 'role', role: 'listitem', name: 'Buy' },
      { kind: 'role', role: 'button', name: 'Delete Buy milk', exact: true },
    ]);
  });
});

describe('a pass with nothing replayable', () => {
  it('is accepted without a check and the gate says why (the verdict record carries it)', async () => {
    const observations = new ObservationLog(() => 0);
    const gate = new CheckGate({
      runId: 'r-test',
      session: 2,
      dataDir: '/nonexistent',
      workspace: '/nonexistent',
      features: [],
      reason: 'evaluate',
      page: () => ({}) as Page, // evidence quoting nothing never reaches the page
      appUrl: BASE,
      observations,
      replay: () => {
        throw new Error('nothing to replay: the test fails if a replay is asked for');
      },
      clock: () => 0,
    });
    const verdict = {
      feature_id: 'F-001',
      verdict: 'pass' as const,
      steps: [{ step: 'Open the app', ok: true, evidence: 'the page opened' }],
      issues: [],
    };
    expect(await gate.review(verdict)).toEqual({ accept: verdict });
    expect(gate.unrecorded.get('F-001')).toBe('no quoted evidence was confirmed on the page');
    expect(await gate.write()).toEqual([]);
  });
});

describe('recordSegment and the newer browser tools', () => {
  const button = (name: string) => ({ locator: `getByRole('button', { name: '${name}' })` });

  it('records prompt answers, popups, key-by-key typing, drags, resizes and tab switches', () => {
    const log = [
      entry('browser_navigate', { url: BASE }, { navigation: { url: BASE } }),
      entry(
        'browser_click',
        { ref: 'e2' },
        {
          target: button('Rename'),
          dialogs: [{ type: 'prompt', message: 'Name?', answer: 'accepted', promptText: 'Home' }],
        },
      ),
      entry('browser_click', { ref: 'e3' }, { target: button('Help'), newTabs: [`${BASE}help`] }),
      entry('browser_tabs', { action: 'select', index: 0 }),
      entry('browser_type', { ref: 'e4', text: 'ab', slowly: true }, { target: button('Search') }),
      entry(
        'browser_drag',
        { start_ref: 'e5', end_ref: 'e6' },
        { target: button('A'), dropTarget: button('B') },
      ),
      entry('browser_resize', { width: 400, height: 700 }),
      entry('browser_handle_dialog', { accept: false }, { kind: 'observation' }),
      entry('browser_tabs', { action: 'list' }, { kind: 'observation' }),
    ];
    const segment = recordSegment(log, 0, BASE);
    expect(segment.unrecordable).toBeUndefined();
    expect(segment.actions.slice(1)).toEqual([
      {
        kind: 'click',
        target: "getByRole('button', { name: 'Rename' })",
        dialog: 'accept',
        promptText: 'Home',
      },
      { kind: 'click', target: "getByRole('button', { name: 'Help' })", popup: true },
      { kind: 'tab', index: 0 },
      { kind: 'type', target: "getByRole('button', { name: 'Search' })", text: 'ab' },
      {
        kind: 'drag',
        target: "getByRole('button', { name: 'A' })",
        to: "getByRole('button', { name: 'B' })",
      },
      { kind: 'resize', width: 400, height: 700 },
    ]);
  });

  it('says why a closed tab, an upload or a drop on an element without a stable locator cannot be replayed', () => {
    const why = (tool: string, args: Record<string, unknown>, extra: Partial<ObservationEntry> = {}) =>
      recordSegment([entry(tool, args, { target: button('X'), ...extra })], 0, BASE).unrecordable;
    expect(why('browser_tabs', { action: 'close', index: 1 })).toBe(
      'browser_tabs close is not an action a check can replay',
    );
    expect(why('browser_file_upload', { ref: 'e1', paths: ['a.txt'] })).toBe(
      'browser_file_upload is not an action a check can replay',
    );
    expect(why('browser_drag', { start_ref: 'e1', end_ref: 'e2' }, { dropTarget: { ref: 'e2' } })).toBe(
      'the element browser_drag dropped on has no stable locator',
    );
    expect(why('browser_press_key', { key: 'Enter' }, { newTabs: [`${BASE}help`] })).toBe(
      'browser_press_key opened a tab; a check follows a new tab only after a click',
    );
  });
});

describe('quotedTexts', () => {
  it('collects distinct straight and curly quoted texts', () => {
    expect(
      quotedTexts(['The list shows "Buy milk" and “Call mum”.', 'Still "Buy milk"', 'empty ""']),
    ).toEqual(['Buy milk', 'Call mum']);
  });

  it('reads every quote style and copied snapshot lines as grounding does', () => {
    const evidence = [
      "The list shows 'Buy milk.' and `Call mum`; it didn't show ‘Pay rent’",
      '`- status [ref=e6]: 2 items left`',
    ];
    expect(quotedTexts(evidence)).toEqual(['Buy milk', 'Call mum', 'Pay rent', '2 items left']);
  });
});
