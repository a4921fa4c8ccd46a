import type { ObservationEntry } from '../../../agent/tools/browser-log.js';

/** A successful `browser_navigate` to `url` as the observation log records it (the page ended up at `url`). */
export function navigationEntry(seq: number, url: string): ObservationEntry {
  return {
    seq,
    at: '2026-01-01T00:00:00.000Z',
    tool: 'browser_navigate',
    kind: 'action',
    args: { url },
    ok: true,
    afterAction: seq,
    url,
    navigation: { url },
    console: [],
    pageErrors: [],
    dialogs: [],
    pageChanged: true,
  };
}
