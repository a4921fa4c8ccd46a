import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ReplayResult } from '../../../checks/replay.js';
import { readReplays, saveReplay } from '../../../checks/store.js';
import { checkReplaysDir } from '../../../core/paths.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');

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
    // One record per feature, and no temporary file left.
    const files = await readdir(path.join(checkReplaysDir(home, 'r1'), 'last'));
    expect(files.sort()).toEqual(ids.map((id) => `${id}.json`));
  });

  it('keeps every record when two worker processes save replays of the same run at once', async () => {
    const save = (prefix: string) => {
      const program = [
        `const { saveReplay } = await import(${JSON.stringify(path.join(ROOT, 'checks/store.ts'))});`,
        `for (let i = 0; i < 30; i++) await saveReplay(${JSON.stringify(home)}, 'r2', { featureId: '${prefix}-' + i, version: 1, ok: true, durationMs: 1 }, { by: 'sweep', at: new Date(0).toISOString() });`,
      ].join('\n');
      const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', program], {
        cwd: ROOT,
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      return new Promise<number | null>((resolve) => child.once('exit', resolve));
    };
    expect(await Promise.all([save('A'), save('B')])).toEqual([0, 0]);
    // A read-modify-write of one index per run lost records here (the other process's rename won).
    expect(Object.keys(await readReplays(home, 'r2'))).toHaveLength(60);
  }, 60_000);

  it('reads the records of runs from before one file per feature, the newer file winning', async () => {
    const dir = checkReplaysDir(home, 'r3');
    await mkdir(dir, { recursive: true });
    const old = {
      featureId: 'F-001',
      version: 1,
      ok: false,
      at: new Date(0).toISOString(),
      durationMs: 3,
      by: 'sweep',
    };
    await writeFile(
      path.join(dir, 'last-replays.json'),
      JSON.stringify({ 'F-001': old, 'F-002': { ...old, featureId: 'F-002' } }),
    );
    await saveReplay(home, 'r3', result('F-001'), { by: 'gate', at: new Date(1).toISOString() });
    const index = await readReplays(home, 'r3');
    expect(index['F-001']).toMatchObject({ ok: true, by: 'gate' });
    expect(index['F-002']).toMatchObject({ ok: false, by: 'sweep' });
  });
});
