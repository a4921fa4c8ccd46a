import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFileTools, editTool, readTool, writeTool } from '../../../agent/tools/index.js';
import { READ_LIMITS } from '../../../agent/tools/read.js';
import { contextFor, makeWorkspace, textOf } from './helpers.js';

const PROTECTED = ['feature_list.json', '.git', '.nightshift'];
let ws: ReturnType<typeof makeWorkspace>;

beforeEach(() => {
  ws = makeWorkspace();
  fs.writeFileSync(path.join(ws.outside, 'secret.txt'), 'outside secret\n');
  fs.writeFileSync(path.join(ws.workspace, 'feature_list.json'), '[]\n');
  fs.mkdirSync(path.join(ws.workspace, '.git'));
  fs.writeFileSync(path.join(ws.workspace, '.git', 'config'), '[core]\n');
  fs.mkdirSync(path.join(ws.workspace, 'src'));
});
afterEach(() => ws.cleanup());

const ctx = () => contextFor(ws.workspace, PROTECTED);
const read = (args: Record<string, unknown>) => readTool.execute(args as never, ctx()).then(textOf);
const write = (args: Record<string, unknown>) => writeTool.execute(args as never, ctx()).then(textOf);
const edit = (args: Record<string, unknown>) => editTool.execute(args as never, ctx()).then(textOf);

describe('createFileTools', () => {
  it('returns read, write, edit, or only read when read-only', () => {
    expect(createFileTools().map((t) => t.name)).toEqual(['read', 'write', 'edit']);
    expect(createFileTools({ readOnly: true }).map((t) => t.name)).toEqual(['read']);
  });
});

describe('read', () => {
  it('numbers lines like cat -n and honours offset and limit', async () => {
    fs.writeFileSync(path.join(ws.workspace, 'a.txt'), 'one\ntwo\nthree\nfour\n');
    expect(await read({ path: 'a.txt' })).toBe('     1\tone\n     2\ttwo\n     3\tthree\n     4\tfour');
    const part = await read({ path: 'a.txt', offset: 2, limit: 2 });
    expect(part).toContain('     2\ttwo\n     3\tthree');
    expect(part).not.toContain('four');
    expect(part).toContain('continue with offset=4');
    await expect(read({ path: 'a.txt', offset: 9 })).rejects.toThrow(/past the end.*4 lines/);
  });

  it('cuts long lines, refuses binary files, lists directories', async () => {
    fs.writeFileSync(path.join(ws.workspace, 'long.txt'), `${'x'.repeat(READ_LIMITS.maxLineChars + 500)}\n`);
    expect(await read({ path: 'long.txt' })).toMatch(/\[\.\.\. line cut: 2,500 characters\]$/);
    fs.writeFileSync(path.join(ws.workspace, 'img.bin'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]));
    await expect(read({ path: 'img.bin' })).rejects.toThrow(/binary file/);
    fs.writeFileSync(path.join(ws.workspace, 'src', 'x.ts'), '');
    const listing = await read({ path: '.' });
    expect(listing).toContain('src/');
    expect(listing).toContain('feature_list.json');
    await expect(read({ path: 'missing.txt' })).rejects.toThrow(/does not exist/);
  });

  it('reads protected files (reads are allowed)', async () => {
    expect(await read({ path: '.git/config' })).toContain('[core]');
  });
});

describe('write', () => {
  it('creates parent directories and reports bytes written', async () => {
    const out = await write({ path: 'src/deep/new.ts', content: 'héllo\n' });
    expect(out).toBe('Wrote 7 bytes to src/deep/new.ts (new file)');
    expect(fs.readFileSync(path.join(ws.workspace, 'src/deep/new.ts'), 'utf8')).toBe('héllo\n');
    expect(await write({ path: 'src/deep/new.ts', content: 'x' })).toContain('replaced 7 bytes');
  });
});

describe('edit', () => {
  beforeEach(() =>
    fs.writeFileSync(path.join(ws.workspace, 'e.ts'), 'const a = 1;\nconst b = 1;\nconst c = 2;\n'),
  );

  it('replaces a unique exact match and shows the changed lines', async () => {
    const out = await edit({ path: 'e.ts', old_string: 'const c = 2;', new_string: 'const c = 3;' });
    expect(out).toContain('replaced 1 occurrence at line 3');
    expect(out).toContain('     3\tconst c = 3;');
    expect(fs.readFileSync(path.join(ws.workspace, 'e.ts'), 'utf8')).toBe(
      'const a = 1;\nconst b = 1;\nconst c = 3;\n',
    );
  });

  it('refuses an ambiguous match unless replace_all, and says how many and where', async () => {
    await expect(edit({ path: 'e.ts', old_string: '= 1;', new_string: '= 9;' })).rejects.toThrow(
      /matches 2 places in e\.ts \(lines 1, 2\).*replace_all: true/,
    );
    expect(fs.readFileSync(path.join(ws.workspace, 'e.ts'), 'utf8')).toContain('const a = 1;');
    const out = await edit({ path: 'e.ts', old_string: '= 1;', new_string: '= $&9;', replace_all: true });
    expect(out).toContain('replaced 2 occurrences at lines 1, 2');
    expect(fs.readFileSync(path.join(ws.workspace, 'e.ts'), 'utf8')).toBe(
      'const a = $&9;\nconst b = $&9;\nconst c = 2;\n',
    );
  });

  it('explains a missing match, including a whitespace-only difference', async () => {
    await expect(edit({ path: 'e.ts', old_string: 'const  c = 2;', new_string: 'x' })).rejects.toThrow(
      /not found in e\.ts.*whitespace is ignored/,
    );
    await expect(edit({ path: 'e.ts', old_string: 'nothing', new_string: 'x' })).rejects.toThrow(/not found/);
    await expect(edit({ path: 'nope.ts', old_string: 'a', new_string: 'b' })).rejects.toThrow(
      /does not exist/,
    );
  });
});

describe('confinement', () => {
  const secret = () => path.join(ws.outside, 'secret.txt');
  const unchanged = () => expect(fs.readFileSync(secret(), 'utf8')).toBe('outside secret\n');

  it('refuses ../ escapes and absolute paths outside, touching nothing', async () => {
    await expect(read({ path: '../outside/secret.txt' })).rejects.toThrow(/resolves outside the workspace/);
    await expect(write({ path: '../outside/secret.txt', content: 'pwned' })).rejects.toThrow(
      /outside the workspace/,
    );
    await expect(write({ path: 'src/../../outside/new.txt', content: 'x' })).rejects.toThrow(
      /outside the workspace/,
    );
    await expect(read({ path: secret() })).rejects.toThrow(/outside the workspace/);
    await expect(edit({ path: secret(), old_string: 'outside', new_string: 'pwned' })).rejects.toThrow(
      /outside/,
    );
    await expect(read({ path: '/etc/passwd' })).rejects.toThrow(/outside the workspace/);
    unchanged();
    expect(fs.existsSync(path.join(ws.outside, 'new.txt'))).toBe(false);
  });

  it('accepts an absolute path inside the workspace', async () => {
    await write({ path: path.join(ws.workspace, 'abs.txt'), content: 'ok' });
    expect(await read({ path: path.join(ws.workspace, 'abs.txt') })).toBe('     1\tok');
  });

  it('refuses symlinks pointing out: a file link and a directory in the middle of the path', async () => {
    fs.symlinkSync(secret(), path.join(ws.workspace, 'link.txt'));
    fs.symlinkSync(ws.outside, path.join(ws.workspace, 'src', 'out'));
    await expect(read({ path: 'link.txt' })).rejects.toThrow(/resolves outside the workspace/);
    await expect(write({ path: 'link.txt', content: 'pwned' })).rejects.toThrow(/outside the workspace/);
    await expect(read({ path: 'src/out/secret.txt' })).rejects.toThrow(/outside the workspace/);
    await expect(write({ path: 'src/out/secret.txt', content: 'pwned' })).rejects.toThrow(/outside/);
    await expect(write({ path: 'src/out/fresh/new.txt', content: 'x' })).rejects.toThrow(/outside/);
    await expect(edit({ path: 'link.txt', old_string: 'outside', new_string: 'pwned' })).rejects.toThrow(
      /outside/,
    );
    unchanged();
    expect(fs.existsSync(path.join(ws.outside, 'fresh'))).toBe(false);
  });

  it('follows symlinks the way the kernel does (link/.. is the parent of the target)', async () => {
    fs.symlinkSync(path.join(ws.outside), path.join(ws.workspace, 'up'));
    await expect(read({ path: 'up/../outside/secret.txt' })).rejects.toThrow(/outside the workspace/);
  });

  it('allows symlinks that stay inside the workspace', async () => {
    fs.writeFileSync(path.join(ws.workspace, 'src', 'real.txt'), 'inside\n');
    fs.symlinkSync('src/real.txt', path.join(ws.workspace, 'alias.txt'));
    expect(await read({ path: 'alias.txt' })).toBe('     1\tinside');
    await write({ path: 'alias.txt', content: 'changed\n' });
    expect(fs.readFileSync(path.join(ws.workspace, 'src', 'real.txt'), 'utf8')).toBe('changed\n');
  });

  it('refuses writes and edits to protected paths, however they are reached', async () => {
    const attempts: Array<[string, () => Promise<string>]> = [
      ['feature_list.json', () => write({ path: 'feature_list.json', content: '[{"passes":true}]' })],
      ['edit feature_list', () => edit({ path: 'feature_list.json', old_string: '[]', new_string: '[1]' })],
      ['.git/config', () => write({ path: '.git/config', content: 'x' })],
      ['.git/new', () => write({ path: '.git/hooks/pre-commit', content: 'x' })],
      ['.nightshift/x', () => write({ path: '.nightshift/x', content: 'x' })],
      ['via ..', () => write({ path: './src/../.git/../.git/config', content: 'x' })],
      ['case', () => write({ path: '.GIT/config', content: 'x' })],
      ['absolute', () => write({ path: path.join(ws.workspace, '.git', 'config'), content: 'x' })],
    ];
    fs.symlinkSync('.git', path.join(ws.workspace, 'g'));
    attempts.push(['symlink', () => write({ path: 'g/config', content: 'x' })]);
    attempts.push(['symlink edit', () => edit({ path: 'g/config', old_string: '[core]', new_string: 'x' })]);
    for (const [name, attempt] of attempts) {
      await expect(attempt(), name).rejects.toThrow(/is protected: only the harness may change it/);
    }
    expect(fs.readFileSync(path.join(ws.workspace, 'feature_list.json'), 'utf8')).toBe('[]\n');
    expect(fs.readFileSync(path.join(ws.workspace, '.git', 'config'), 'utf8')).toBe('[core]\n');
    expect(fs.existsSync(path.join(ws.workspace, '.nightshift'))).toBe(false);
    expect(fs.existsSync(path.join(ws.workspace, '.git', 'hooks'))).toBe(false);
  });

  it('refuses to write through a hard link (it could alias a protected file)', async () => {
    fs.linkSync(path.join(ws.workspace, '.git', 'config'), path.join(ws.workspace, 'innocent.txt'));
    await expect(write({ path: 'innocent.txt', content: 'x' })).rejects.toThrow(/hard links/);
    expect(fs.readFileSync(path.join(ws.workspace, '.git', 'config'), 'utf8')).toBe('[core]\n');
  });
});
