import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CHROMIUM_BASE_ARGS,
  NIGHTSHIFT_DISABLED_FEATURES,
  PLAYWRIGHT_DISABLED_FEATURES,
} from '../../../workers/chromium-flags.js';

/** The `disabledFeatures` array of the installed playwright-core, read from its bundle. */
function installedPlaywrightDisabledFeatures(): string[] {
  const require = createRequire(import.meta.url);
  const lib = path.join(path.dirname(require.resolve('playwright-core/package.json')), 'lib');
  const bundle = fs.readFileSync(path.join(lib, 'coreBundle.js'), 'utf8');
  const list = /disabledFeatures = \[([\s\S]*?)\]\.filter\(Boolean\)/.exec(bundle)?.[1];
  if (!list) throw new Error('playwright-core no longer declares disabledFeatures where this test looks');
  return [...list.matchAll(/^\s*"([^"]+)"/gm)].map((match) => match[1] as string);
}

describe('Chromium launch flags', () => {
  it('carry playwright-core’s own disabled features, as installed', () => {
    expect(PLAYWRIGHT_DISABLED_FEATURES).toEqual(installedPlaywrightDisabledFeatures());
  });

  it('have exactly one --disable-features, with Playwright’s list and ours (Chromium keeps only the last)', () => {
    const flags = CHROMIUM_BASE_ARGS.filter((flag) => flag.startsWith('--disable-features='));
    expect(flags).toHaveLength(1);
    const features = (flags[0] as string).slice('--disable-features='.length).split(',');
    expect(features).toEqual([...PLAYWRIGHT_DISABLED_FEATURES, ...NIGHTSHIFT_DISABLED_FEATURES]);
    expect(features).toContain('AutofillServerCommunication');
    // Off for a replay's CPU (docs/benchmarks.md, recorded checks); a sweep moves the pointer out instead.
    expect(features).toContain('RenderDocument');
  });

  it('pin WebRTC to the proxy under both names: the full Chromium’s and the headless shell’s', () => {
    // Each binary knows only its own switch and ignores the other (browser-hostile.test.ts sends the datagrams).
    expect(CHROMIUM_BASE_ARGS).toContain('--webrtc-ip-handling-policy=disable_non_proxied_udp');
    expect(CHROMIUM_BASE_ARGS).toContain('--force-webrtc-ip-handling-policy=disable_non_proxied_udp');
  });
});
