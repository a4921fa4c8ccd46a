import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ReplayResult } from '../../../checks/replay.js';
import { readReplays, STALE_TEMPORARY_MS, saveReplay } from '../../../checks/store.js';
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
    // Both start saving when a file appears, after both have loaded: their saves overlap whatever their start-up.
    const go = path.join(home, 'go');
    const save = (first: number) => {
      const program = [
        `const { existsSync } = await import('node:fs');`,
        `const { saveReplay } = await import(${JSON.stringify(path.join(ROOT, 'checks/store.ts'))});`,
        `console.log('ready');`,
        `while (!existsSync(${JSON.stringify(go)})) await new Promise((resolve) => setTimeout(resolve, 2));`,
        `for (let i = ${first}; i < ${first + 40}; i++) await saveReplay(${JSON.stringify(home)}, 'r2', { featureId: 'F-' + i, version: 1, ok: true, durationMs: 1 }, { by: 'sweep', at: new Date(0).toISOString() });`,
      ].join('\n');
      const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', program], {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const ready = new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      return { ready, exited };
    };
    const savers = [save(1000), save(2000)];
    await Promise.all(savers.map((saver) => saver.ready));
    await writeFile(go, '');
    expect(await Promise.all(savers.map((saver) => saver.exited))).toEqual([0, 0]);
    // A read-modify-write of one index per run lost records here (the other process's rename won).
    expect(Object.keys(await readReplays(home, 'r2'))).toHaveLength(80);
    expect(
      (await readdir(path.join(checkReplaysDir(home, 'r2'), 'last'))).filter((name) => name.endsWith('.tmp')),
    ).toEqual([]);
  }, 60_000);

  it('removes the temporary file a save that died before its rename left, not one a save is writing now', async () => {
    const last = path.join(checkReplaysDir(home, 'r3'), 'last');
    await mkdir(last, { recursive: true });
    const dead = path.join(last, 'F-001.json.999-dead.tmp');
    const live = path.join(last, 'F-002.json.998-live.tmp');
    await writeFile(dead, '{"featureId":');
    await writeFile(live, '{"featureId":');
    const hoursAgo = new Date(Date.now() - STALE_TEMPORARY_MS - 60_000);
    await utimes(dead, hoursAgo, hoursAgo);
    await saveReplay(home, 'r3', result('F-003'), { by: 'gate', at: new Date(0).toISOString() });
    expect((await readdir(last)).sort()).toEqual(['F-002.json.998-live.tmp', 'F-003.json']);
  });

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
      JSON.stringify({
        'F-001': old,
        'F-002': { ...old, featureId: 'F-002' },
        'F-003': { ...old, featureId: 'F-003', ok: true, needsCleanApp: true },
      }),
    );
    await saveReplay(home, 'r3', result('F-001'), { by: 'gate', at: new Date(1).toISOString() });
    // A red replay of F-003 keeps the old record's "needs a clean app" flag (same version).
    await saveReplay(
      home,
      'r3',
      { ...result('F-003'), ok: false },
      { by: 'sweep', at: new Date(1).toISOString() },
    );
    // Neither a temporary file nor a record under another feature's name counts.
    await writeFile(
      path.join(dir, 'last', 'F-004.json.123-abc.tmp'),
      JSON.stringify({ ...old, featureId: 'F-004' }),
    );
    await writeFile(
      path.join(dir, 'last', 'F-005.json'),
      JSON.stringify({ ...old, featureId: 'F-002', ok: true }),
    );
    const index = await readReplays(home, 'r3');
    expect(index['F-001']).toMatchObject({ ok: true, by: 'gate' });
    expect(index['F-002']).toMatchObject({ ok: false, by: 'sweep' });
    expect(index['F-003']).toMatchObject({ ok: false, needsCleanApp: true });
    expect(Object.keys(index).sort()).toEqual(['F-001', 'F-002', 'F-003']);
  });
});
