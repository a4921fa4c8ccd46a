import { describe, expect, it } from 'vitest';
import { ToolError } from '../../../agent/tool.js';
import {
  checkNavigationTarget,
  normalizeOrigins,
  normalizeRef,
  toToolError,
} from '../../../agent/tools/browser-page.js';

const APP = ['http://127.0.0.1:4100'];

describe('normalizeRef', () => {
  it('accepts plain and copied refs, including iframe refs', () => {
    expect(normalizeRef('e5')).toBe('e5');
    expect(normalizeRef(' [ref=e12] ')).toBe('e12');
    expect(normalizeRef('ref=f1e3')).toBe('f1e3');
  });

  it('rejects anything else with a hint', () => {
    for (const bad of ['', 'button', 'e', '5', 'e5; alert(1)', '#id']) {
      expect(() => normalizeRef(bad), bad).toThrow(ToolError);
    }
    expect(() => normalizeRef('Add')).toThrow(/latest snapshot/);
  });
});

describe('checkNavigationTarget', () => {
  it('allows the app origin, absolute or relative', () => {
    expect(checkNavigationTarget('http://127.0.0.1:4100/x?y=1', APP, 'about:blank').href).toBe(
      'http://127.0.0.1:4100/x?y=1',
    );
    expect(checkNavigationTarget('/settings', APP, 'about:blank').href).toBe(
      'http://127.0.0.1:4100/settings',
    );
    expect(checkNavigationTarget('edit', APP, 'http://127.0.0.1:4100/todos/').href).toBe(
      'http://127.0.0.1:4100/todos/edit',
    );
  });

  it('refuses other origins, other schemes and protocol-relative escapes', () => {
    const refused = [
      'https://example.com/',
      'http://127.0.0.1:4101/',
      'https://127.0.0.1:4100/',
      'http://localhost:4100/',
      '//evil.example/',
      'file:///etc/passwd',
      'javascript:alert(1)',
      'data:text/html,hi',
      'chrome://settings',
    ];
    for (const url of refused) {
      expect(() => checkNavigationTarget(url, APP, 'about:blank'), url).toThrow(/Refused/);
    }
  });

  it('refuses everything when no origin is configured', () => {
    expect(() => checkNavigationTarget('http://127.0.0.1:4100/', [], 'about:blank')).toThrow(/disabled/);
  });
});

describe('normalizeOrigins', () => {
  it('reduces URLs to origins and drops junk', () => {
    expect(normalizeOrigins(['http://127.0.0.1:4100/some/path', 'not a url', 'https://a.test'])).toEqual([
      'http://127.0.0.1:4100',
      'https://a.test',
    ]);
  });
});

describe('toToolError', () => {
  it('strips colours, keeps the tail of the call log and hints on timeouts', () => {
    const raw = new Error(
      'locator.click: Timeout 5000ms exceeded.\nCall log:\n\u001b[2m  - waiting for getByRef(e3)\u001b[22m\n  - a\n  - b\n  - c\n  - d\n',
    );
    const error = toToolError(raw, 'Clicking e3');
    expect(error).toBeInstanceOf(ToolError);
    expect(error.message).toMatch(/^Clicking e3 failed: locator.click: Timeout 5000ms exceeded\./);
    expect(error.message).not.toContain('\u001b');
    expect(error.message).not.toContain('waiting for getByRef'); // only the last 4 log lines
    expect(error.message).toContain('- d');
    expect(error.message).toMatch(/take a new snapshot/);
  });

  it('passes ToolErrors through and flags a closed browser as blocking', () => {
    const own = new ToolError('mine');
    expect(toToolError(own, 'x')).toBe(own);
    expect(
      toToolError(new Error('page.goto: Target page, context or browser has been closed'), 'Navigating')
        .message,
    ).toMatch(/blocked/);
  });
});
