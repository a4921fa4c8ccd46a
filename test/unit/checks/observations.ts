import type { ObservationEntry } from '../../../agent/tools/browser-log.js';

/** The app the logged entries were on. */
export const BASE = 'http://127.0.0.1:4100/';
let seq = 0;

/**
 * One entry of an evaluator's observation log, numbered in call order: an action unless the tool is
 * `browser_snapshot` (a look then comes after the action before it).
 */
export function entry(
  tool: string,
  args: Record<string, unknown>,
  extra: Partial<ObservationEntry> = {},
): ObservationEntry {
  seq += 1;
  const action = tool !== 'browser_snapshot';
  return {
    seq,
    at: '2026-01-01T00:00:00.000Z',
    tool,
    kind: action ? 'action' : 'observation',
    args,
    ok: true,
    afterAction: action ? seq : seq - 1,
    url: `${BASE}list`,
    console: [],
    pageErrors: [],
    dialogs: [],
    pageChanged: true,
    ...extra,
  };
}

/** A successful `browser_navigate` to `url` as the observation log records it (the page ended up at `url`). */
export function navigationEntry(at: number, url: string): ObservationEntry {
  return { ...entry('browser_navigate', { url }, { url, navigation: { url } }), seq: at, afterAction: at };
}
