import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { askGit, checkpoint, ensureRepo } from '../../../handoff/git.js';
import { DEFAULT_IGNORES, IGNORE_HEADER, mergeIgnores } from '../../../handoff/gitignore.js';

describe('mergeIgnores', () => {
  it('appends only the defaults the workspace neither has nor re-includes, once', () => {
    const own = '# mine\n/node_modules\n!dist/\nsecrets.txt';
    const merged = mergeIgnores(own);
    expect(merged.startsWith(`${own}\n\n${IGNORE_HEADER}\n`)).toBe(true);
    const added = merged
      .slice(own.length)
      .split('\n')
      .filter((line) => line && !line.startsWith('#'));
    expect(added).toEqual(DEFAULT_IGNORES.filter((p) => p !== 'node_modules/' && p !== 'dist/'));
    expect(mergeIgnores(merged)).toBe(merged);
    expect(mergeIgnores('')).toBe(`${IGNORE_HEADER}\n${DEFAULT_IGNORES.join('\n')}\n`);
  });
});

describe('harness commits', () => {
  let root = '';
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('never add dependencies, build output or app data, and keep the workspace’s own ignores', async () => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ns-gitignore-')));
    const files: Record<string, string> = {
      '.gitignore': 'notes.private\n',
      'server.js': 'console.log(1)\n',
      'node_modules/left-pad/index.js': 'module.exports = 1\n',
      'dist/app.js': 'built\n',
      'data/app.db': 'sqlite',
      '.venv/bin/python': '#!/bin/sh\n',
      'notes.private': 'x\n',
    };
    for (const [name, content] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
      fs.writeFileSync(path.join(root, name), content);
    }
    const repo = await ensureRepo(root);
    const sha = await checkpoint(repo, { role: 'harness', runId: 'r', session: 0, summary: 'first' });
    expect(sha).not.toBeNull();
    const tracked = (await askGit(repo, ['ls-files'])).trim().split('\n').sort();
    expect(tracked).toEqual(['.gitignore', 'server.js']);
    const ignore = fs.readFileSync(path.join(root, '.gitignore'), 'utf8');
    expect(ignore.startsWith('notes.private\n')).toBe(true);
    expect(ignore).toContain('node_modules/');
    // Nothing new: no commit, .gitignore untouched.
    expect(await checkpoint(repo, { role: 'harness', runId: 'r', session: 1, summary: 'again' })).toBeNull();
  });
});
