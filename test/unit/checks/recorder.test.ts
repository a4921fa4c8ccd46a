import { describe, expect, it } from 'vitest';
import type { ObservationEntry } from '../../../agent/tools/browser-log.js';
import { quotedTexts, recordSegment } from '../../../checks/recorder.js';

const BASE = 'http://127.0.0.1:4100/';
let seq = 0;
function entry(
  tool: string,
  args: Record<string, unknown>,
  extra: Partial<ObservationEntry> = {},
): ObservationEntry {
  seq += 1;
  return {
    seq,
    at: '2026-01-01T00:00:00.000Z',
    tool,
    kind: tool === 'browser_snapshot' ? 'observation' : 'action',
    args,
    ok: true,
    afterAction: seq,
    url: `${BASE}list`,
    console: [],
    pageErrors: [],
    dialogs: [],
    pageChanged: true,
    ...extra,
  };
}

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
});
