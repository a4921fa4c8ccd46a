// Real Chromium for the dashboard tests (never downloaded: /usr/bin/chromium or $NIGHTSHIFT_CHROMIUM).
import { type Browser, chromium } from 'playwright-core';

/** Launch flags for a quiet, offline, container-friendly Chromium. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Launches headless Chromium. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.NIGHTSHIFT_CHROMIUM ?? '/usr/bin/chromium',
    args: CHROMIUM_ARGS,
    headless: true,
  });
}
