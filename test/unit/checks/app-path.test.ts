import { describe, expect, it } from 'vitest';
import { appPathOf, isAppPath } from '../../../checks/app-path.js';
import { generateSpec } from '../../../checks/codegen.js';
import { RecordedCheck } from '../../../checks/format.js';
import { recordSegment } from '../../../checks/recorder.js';
import { navigationEntry } from './observations.js';

const BASE = 'http://127.0.0.1:4100/';
const ORIGIN = new URL(BASE).origin;

/** Resolves a stored path the way a replay (`new URL`) and Playwright's `baseURL` (`new URL`) both do. */
const resolvedOrigin = (stored: string, base = BASE) => new URL(stored, base).origin;

// Each: what the evaluator's navigation (or a committed check file) says, and what may be stored (null: refused).
const HOSTILE: Array<[string, string | null]> = [
  ['//other-host/path', null],
  ['/\\other', null],
  ['\\\\other', null],
  ['\\/other', null],
  ['/\t/other', null],
  [' //other', null],
  ['\n//other', null],
  ['http:\\\\other', null],
  ['http://other/', null],
  ['https://127.0.0.1:4100/', null],
  ['http://127.0.0.1:4101/', null],
  ['http://127.0.0.1:4100@other/', null],
  ['http://other#@127.0.0.1:4100/', null],
  ['http://user:pw@127.0.0.1:4100/', null],
  ['javascript:alert(1)', null],
  ['data:text/html,<h1>x</h1>', null],
  ['about:blank', null],
  ['file:///etc/passwd', null],
  // On the app, but a path of two slashes: stored so that it cannot read as a host.
  [`${BASE}/other-host/path`, '/.//other-host/path'],
  [`${BASE}\\other`, '/.//other'],
  ['/.//other', '/.//other'],
  ['/..//other', '/.//other'],
  ['/./\\other', '/.//other'],
  // Encoded forms stay encoded (the server decides what they mean), on the app.
  ['/%2F/other', '/%2F/other'],
  ['/%2F%2Fother', '/%2F%2Fother'],
  ['/%5C%5Cother', '/%5C%5Cother'],
  ['%2F%2Fother', '/%2F%2Fother'],
  // Ordinary paths.
  ['/', '/'],
  ['/list?x=1#top', '/list?x=1#top'],
  [`${BASE}list?x=1`, '/list?x=1'],
  ['//127.0.0.1:4100/ok', '/ok'],
  ['HTTP://127.0.0.1:4100/x', '/x'],
  ['http:other', '/other'],
  ['x/y', '/x/y'],
];

describe('appPathOf: recorded navigation stays on the app', () => {
  it.each(HOSTILE)('%j → %j', (url, expected) => {
    expect(appPathOf(url, BASE)).toBe(expected);
  });

  it('every stored path resolves on the app, against this origin and any other', () => {
    for (const [url] of HOSTILE) {
      const stored = appPathOf(url, BASE);
      if (stored === null) continue;
      expect(stored.startsWith('/') && !stored.startsWith('//') && !stored.startsWith('/\\')).toBe(true);
      expect(resolvedOrigin(stored)).toBe(ORIGIN);
      expect(resolvedOrigin(stored, 'http://10.0.0.9:3000/')).toBe('http://10.0.0.9:3000');
      // Canonical: storing it again changes nothing.
      expect(isAppPath(stored)).toBe(true);
      expect(appPathOf(stored, BASE)).toBe(stored);
    }
  });
});

function check(path: string) {
  return {
    featureId: 'F-001',
    version: 1,
    recordedAt: '2026-01-01T00:00:00.000Z',
    origin: { runId: 'r', session: 1, reason: 'evaluate' },
    actions: [{ kind: 'goto', path }],
    expectations: [{ kind: 'text', text: 'x' }],
  };
}

describe('a check file naming a goto off the app', () => {
  it.each(HOSTILE.filter(([, expected]) => expected === null).map(([url]) => url))(
    'is refused: %j',
    (url) => {
      const parsed = RecordedCheck.safeParse(check(url));
      expect(parsed.success).toBe(false);
      expect(parsed.error?.issues[0]?.message).toContain('is not a path on the app');
    },
  );

  it('is read in its canonical form when it stays on the app, and exported as such', () => {
    const parsed = RecordedCheck.parse(check('/..//other-host/x?q#h'));
    expect(parsed.actions[0]).toEqual({ kind: 'goto', path: '/.//other-host/x?q#h' });
    const spec = generateSpec(parsed, 'A feature');
    expect(spec).toContain("await page.goto('/.//other-host/x?q#h');");
    expect(spec).not.toMatch(/page\.goto\('\/\//);
  });

  it('is never exported, even when it reaches codegen without the schema', () => {
    const forged = { ...RecordedCheck.parse(check('/')), actions: [{ kind: 'goto', path: '//evil/x' }] };
    expect(() => generateSpec(forged as RecordedCheck, 'forged')).toThrow(/not a path on the app/);
  });
});

let seq = 0;
const navigation = (url: string) => navigationEntry(++seq, url);

describe('the recorder', () => {
  it('stores a navigation to a two-slash path on the app as /.//…', () => {
    const segment = recordSegment([navigation(`${BASE}/other-host/path`)], 0, BASE);
    expect(segment.unrecordable).toBeUndefined();
    expect(segment.actions).toEqual([{ kind: 'goto', path: '/.//other-host/path' }]);
  });

  it('refuses to record a navigation that left the app', () => {
    const segment = recordSegment([navigation('http://other-host/path')], 0, BASE);
    expect(segment.unrecordable).toContain("off the app's origin");
  });

  it('starts at the app root when the page before was off the app', () => {
    const before = navigation('http://other-host/x');
    const click = {
      ...navigation(BASE),
      tool: 'browser_press_key',
      args: { key: 'Enter' },
      seq: before.seq + 1,
    };
    const segment = recordSegment([before, click], before.seq, BASE);
    expect(segment.actions[0]).toEqual({ kind: 'goto', path: '/' });
  });
});
