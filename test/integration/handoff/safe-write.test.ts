/**
 * Issue 24, "no harness write follows a link": the writes the harness makes into a workspace, a clone or the backup
 * mirror besides the handoff files (safe-read.test.ts has those). Real files, links and git; each hostile layout is
 * one a session (or a committed remote) can leave, and after each the directory it points at is unchanged.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { recoverStaleLocks } from '../../../handoff/git-lock.js';
import {
  assertWritableTarget,
  makeWorkspaceDir,
  makeWorkspaceLink,
  removeWorkspacePath,
  writeWorkspaceFile,
} from '../../../handoff/safe-fs.js';
import { writePlanRecord } from '../../../handoff/spec-origin.js';
import { unsafeFileRefusal, workspaceBesideOutside } from './helpers.js';

const CANARY = 'outside, the operator’s\n';
const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** A workspace and, beside it, a directory with a file the workspace may point at; `untouched` checks it. */
function setup() {
  const layout = workspaceBesideOutside('ns-safe-write-', CANARY);
  cleanups.push(layout.cleanup);
  const { workspace, outside, outsideFile: hostFile } = layout;
  const untouched = () => {
    expect(fs.readdirSync(outside)).toEqual([path.basename(hostFile)]);
    expect(fs.readFileSync(hostFile, 'utf8')).toBe(CANARY);
  };
  return { workspace, outside, hostFile, untouched };
}

const refusal = unsafeFileRefusal;

describe("writes with links: 'refuse'", () => {
  it('refuse a link (to a host file, or dangling), a hard link and a directory at the target, and write nothing', async () => {
    const { workspace, outside, hostFile, untouched } = setup();
    fs.symlinkSync(hostFile, path.join(workspace, 'linked.ts'));
    fs.symlinkSync(path.join(outside, 'created.ts'), path.join(workspace, 'dangling.ts'));
    fs.linkSync(hostFile, path.join(workspace, 'hard.ts'));
    fs.mkdirSync(path.join(workspace, 'dir.ts'));
    const write = (name: string) => writeWorkspaceFile(workspace, name, 'new', { links: 'refuse' });
    expect((await refusal(write('linked.ts'))).message).toBe(
      `linked.ts: is a symbolic link (to ${JSON.stringify(hostFile)}); the harness does not write through links or replace them here`,
    );
    expect((await refusal(write('dangling.ts'))).problem).toBe('symlink');
    expect((await refusal(write('hard.ts'))).message).toContain('has 2 hard links');
    expect((await refusal(write('dir.ts'))).problem).toBe('not_regular');
    expect(fs.lstatSync(path.join(workspace, 'linked.ts')).isSymbolicLink()).toBe(true);
    untouched();
    // A missing file (and missing parents) is fine; a regular file is rewritten.
    await assertWritableTarget(workspace, 'new/dir/file.ts');
    await write('fresh.ts');
    await write('fresh.ts');
    expect(fs.readFileSync(path.join(workspace, 'fresh.ts'), 'utf8')).toBe('new');
  });
});

describe('directories, links and removals below a workspace root', () => {
  it('are refused through a linked directory, and a removal never follows a link inside the tree', async () => {
    const { workspace, outside, hostFile, untouched } = setup();
    fs.symlinkSync(outside, path.join(workspace, 'linked'));
    expect((await refusal(makeWorkspaceDir(workspace, 'linked/sub'))).message).toContain(
      'linked is a symbolic link',
    );
    expect((await refusal(makeWorkspaceLink(workspace, 'linked/ln', '/etc/passwd'))).problem).toBe('symlink');
    expect((await refusal(removeWorkspacePath(workspace, 'linked/host.txt'))).problem).toBe('symlink');
    // A tree holding a link to the outside file: removed, link and all, the file it named kept.
    await makeWorkspaceDir(workspace, 'tree/deep', 0o700);
    expect(fs.statSync(path.join(workspace, 'tree/deep')).mode & 0o777).toBe(0o700);
    fs.symlinkSync(hostFile, path.join(workspace, 'tree/deep/to-host'));
    fs.symlinkSync(outside, path.join(workspace, 'tree/to-outside'));
    expect(await removeWorkspacePath(workspace, 'tree')).toBe(true);
    expect(fs.existsSync(path.join(workspace, 'tree'))).toBe(false);
    expect(await removeWorkspacePath(workspace, 'tree')).toBe(false);
    // Removing the link itself removes the link.
    expect(await removeWorkspacePath(workspace, 'linked')).toBe(true);
    untouched();
  });
});

describe('the harness writers that used raw fs', () => {
  it('the plan record (also written into a clone of a remote) never goes through a committed .nightshift link', async () => {
    const { workspace, outside, untouched } = setup();
    fs.symlinkSync(outside, path.join(workspace, '.nightshift'));
    const origin = {
      prompt: 'a todo app',
      planId: 'p-1',
      model: 'anthropic:scripted',
      exchanges: [],
      edited: false,
      costUsd: 0,
      plannedAt: '2026-01-01T00:00:00.000Z',
    };
    expect((await refusal(writePlanRecord(workspace, origin, 'app_spec.md'))).message).toContain(
      '.nightshift is a symbolic link',
    );
    untouched();
  });

  it('stale git locks are removed only below a real .git: a linked refs/heads does not aim the removal outside', async () => {
    const { workspace, outside, untouched } = setup();
    fs.mkdirSync(path.join(workspace, '.git', 'refs'), { recursive: true });
    fs.symlinkSync(outside, path.join(workspace, '.git', 'refs', 'heads'));
    fs.writeFileSync(path.join(outside, 'main.lock'), 'an outside file named like a lock');
    expect((await refusal(recoverStaleLocks(workspace, 60_000))).message).toContain(
      '.git/refs/heads is a symbolic link',
    );
    expect(fs.existsSync(path.join(outside, 'main.lock'))).toBe(true);
    fs.rmSync(path.join(outside, 'main.lock'));
    untouched();
    // A real stale lock is still removed.
    fs.unlinkSync(path.join(workspace, '.git', 'refs', 'heads'));
    fs.mkdirSync(path.join(workspace, '.git', 'refs', 'heads'));
    fs.writeFileSync(path.join(workspace, '.git', 'index.lock'), '');
    expect(await recoverStaleLocks(workspace, 60_000)).toEqual([path.join(workspace, '.git', 'index.lock')]);
  });
});
