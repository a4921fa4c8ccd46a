import { describe, expect, it } from 'vitest';
import {
  CHROMIUM_CANDIDATES,
  chromiumExecutable,
  defaultChromiumPath,
} from '../../../workers/chromium-path.js';

describe('the Chromium a worker launches', () => {
  it('is the headless shell’s binary when installed, before its wrapper script and the full Chromium', () => {
    expect(defaultChromiumPath(() => true)).toBe('/usr/lib/chromium/chromium-headless-shell');
    expect(defaultChromiumPath((file) => file !== '/usr/lib/chromium/chromium-headless-shell')).toBe(
      '/usr/bin/chromium-headless-shell',
    );
    expect(defaultChromiumPath((file) => file === '/usr/bin/chromium')).toBe('/usr/bin/chromium');
  });

  it('names the full Chromium when none is installed, so the error says where it looked last', () => {
    expect(defaultChromiumPath(() => false)).toBe('/usr/bin/chromium');
    expect(CHROMIUM_CANDIDATES.at(-1)).toBe('/usr/bin/chromium');
  });

  it('is NIGHTSHIFT_CHROMIUM when set, and the default when it is empty', () => {
    expect(chromiumExecutable({ NIGHTSHIFT_CHROMIUM: '/opt/chrome/chrome' })).toBe('/opt/chrome/chrome');
    expect(chromiumExecutable({ NIGHTSHIFT_CHROMIUM: '' })).toBe(defaultChromiumPath());
  });
});
