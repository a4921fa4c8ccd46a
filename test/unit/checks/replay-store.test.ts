import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ReplayResult } from '../../../checks/replay.js';
import { readReplays, saveReplay } from '../../../checks/store.js';
import { checkReplaysDir } from '../../../core/paths.js';

function result(featureId: string): ReplayResult {
  return { featureId, version: 1, ok: true, durationMs: 12 };
}

describe('saveReplays', () => {
  let home: string;
  beforeEach(async () => {
    home = await mkdtemp(path.join(os.tmpdir(), 'ns-replay-store-'));
  });
  afterEach(async () => {
    await rm(home, { recursive: true, force: true });
  });

  it('keeps every record when a worker saves many replays at once', async () => {
    const ids = Array.from({ length: 24 }, (_, index) => `F-${String(index + 1).padStart(3, '0')}`);
    const at = new Date(0).toISOString();
    const saved = await Promise.allSettled(
      ids.map((id) => saveReplay(home, 'r1', result(id), { by: 'gate', at })),
    );
    expect(saved.filter((outcome) => outcome.status === 'rejected')).toEqual([]);
    const index = await readReplays(home, 'r1');
    expect(Object.keys(index).sort()).toEqual(ids);
    // No temporary file is left beside the index.
    expect(await readdir(checkReplaysDir(home, 'r1'))).toEqual(['last-replays.json']);
  });
});
