/**
 * The backup mirror is refreshed while the session's first model request is in flight, and the session's tools wait
 * for it: no tool changes the workspace before a mirror holds the start commit, and a backup that fails ends the
 * session with nothing run. Real git, the scripted model through the real Anthropic SDK.
 */
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoBackupDir } from '../../../core/paths.js';
import { withRepoLock } from '../../../handoff/mutex.js';
import { startModelServer } from '../../../testkit/server.js';
import type { ModelServer } from '../../../testkit/types.js';
import { makeWorkspace, removeWorkspace, runSession, turnOf } from './role-helpers.js';

let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer({ policy: () => ({ text: 'idle' }) });
});
afterAll(() => server.close());

/** The model writes `canary.txt` on its first turn, then stops. */
function writeCanaryFirst(): void {
  server.setPolicy((conversation) =>
    turnOf(conversation) === 0
      ? { toolCalls: [{ name: 'write', arguments: { path: 'canary.txt', content: 'written\n' } }] }
      : { text: 'Done.' },
  );
}

/**
 * Holds the backup mirror's lock from another async context (another session's refresh of it, in effect) until the
 * returned function is called: the session's backup waits for it.
 */
async function holdMirrorLock(dataDir: string): Promise<() => void> {
  let release!: () => void;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  await new Promise<void>((acquired) => {
    void withRepoLock(repoBackupDir(dataDir, 'r-test'), async () => {
      acquired();
      await held;
    });
  });
  return release;
}

describe('the backup mirror beside the first model request', () => {
  it('a tool runs only once the mirror holds the start commit, however quickly the model answers', async () => {
    const { workspace, dataDir } = await makeWorkspace({ 'app_spec.md': '# Spec\n' });
    const release = await holdMirrorLock(dataDir);
    writeCanaryFirst();
    const session = runSession(server, { role: 'initializer', workspace, dataDir, featureIds: [] });
    // The model answered with the write while the backup waited; without the wait in the tools it would run now.
    while (server.requests.length === 0) await sleep(10);
    await sleep(300);
    expect(fs.existsSync(path.join(workspace, 'canary.txt'))).toBe(false);
    const releasedAt = Date.now();
    release();
    await session;
    expect(fs.existsSync(path.join(repoBackupDir(dataDir, 'r-test'), 'HEAD'))).toBe(true);
    expect(fs.statSync(path.join(workspace, 'canary.txt')).mtimeMs).toBeGreaterThanOrEqual(releasedAt);
    removeWorkspace(workspace);
  });

  it('a backup that fails ends the session with the error, before any tool ran', async () => {
    const { workspace, dataDir } = await makeWorkspace({ 'app_spec.md': '# Spec\n' });
    // Where the mirror goes, a file: its clone fails.
    const mirror = repoBackupDir(dataDir, 'r-test');
    fs.mkdirSync(path.dirname(mirror), { recursive: true });
    fs.writeFileSync(mirror, 'not a repository\n');
    writeCanaryFirst();
    await expect(
      runSession(server, { role: 'initializer', workspace, dataDir, featureIds: [] }),
    ).rejects.toThrow(/clone/);
    expect(fs.existsSync(path.join(workspace, 'canary.txt'))).toBe(false);
    removeWorkspace(workspace);
  });

  it('a backup that never ends holds no tool and no session past a stop', async () => {
    const { workspace, dataDir } = await makeWorkspace({ 'app_spec.md': '# Spec\n' });
    const release = await holdMirrorLock(dataDir);
    writeCanaryFirst();
    const stop = new AbortController();
    const before = server.requests.length;
    const session = runSession(server, {
      role: 'initializer',
      workspace,
      dataDir,
      featureIds: [],
      signal: stop.signal,
    });
    while (server.requests.length === before) await sleep(10);
    await sleep(200);
    stop.abort(new Error('the worker is shutting down'));
    // Ends (as a failure) while the backup is still stuck, with nothing written.
    await expect(session).rejects.toThrow(/shutting down/);
    expect(fs.existsSync(path.join(workspace, 'canary.txt'))).toBe(false);
    release();
    removeWorkspace(workspace);
  });

  it('a session stopped after its backup ended closes its work the usual way, not as a failure', async () => {
    const { workspace, dataDir } = await makeWorkspace({ 'app_spec.md': '# Spec\n' });
    const stop = new AbortController();
    server.setPolicy((conversation) => {
      if (turnOf(conversation) === 0) {
        return { toolCalls: [{ name: 'write', arguments: { path: 'canary.txt', content: 'written\n' } }] };
      }
      stop.abort(new Error('the worker is shutting down'));
      return { text: 'Done.' };
    });
    const result = await runSession(server, {
      role: 'initializer',
      workspace,
      dataDir,
      featureIds: [],
      signal: stop.signal,
    });
    expect(result.outcome).not.toBe('completed');
    expect(fs.existsSync(path.join(workspace, 'canary.txt'))).toBe(true);
    removeWorkspace(workspace);
  });
});
