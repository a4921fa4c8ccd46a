import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileMemo } from '../../../core/file-memo.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ns-file-memo-'));
  dirs.push(dir);
  return dir;
}

/** A memo of each file's text, counting the reads. */
function textMemo() {
  const memo = new FileMemo<string>();
  const reads: string[] = [];
  const get = (file: string) =>
    memo.get(file, async () => {
      reads.push(path.basename(file));
      return fs.readFileSync(file, 'utf8');
    });
  return { get, reads };
}

describe('FileMemo', () => {
  it('reads a file again only once it changed (content, or replaced by a checkout)', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'a.js');
    fs.writeFileSync(file, "import './b.js';\n");
    const { get, reads } = textMemo();
    expect(await get(file)).toBe("import './b.js';\n");
    expect(await get(file)).toBe("import './b.js';\n");
    expect(reads).toEqual(['a.js']);
    // Same size, new content: the modification time moved.
    fs.writeFileSync(file, "import './c.js';\n");
    expect(await get(file)).toBe("import './c.js';\n");
    // Replaced by a new file (a checkout writes a new inode), even with the old time put back.
    const before = fs.statSync(file);
    fs.rmSync(file);
    fs.writeFileSync(file, "import './d.js';\n");
    fs.utimesSync(file, before.atime, before.mtime);
    expect(await get(file)).toBe("import './d.js';\n");
    expect(reads).toEqual(['a.js', 'a.js', 'a.js']);
  });

  it('keeps nothing for a link or a missing file: computed every time', async () => {
    const dir = tempDir();
    const target = path.join(dir, 'target.js');
    fs.writeFileSync(target, 'one\n');
    const link = path.join(dir, 'link.js');
    fs.symlinkSync(target, link);
    const { get, reads } = textMemo();
    expect(await get(link)).toBe('one\n');
    fs.writeFileSync(target, 'two\n');
    expect(await get(link)).toBe('two\n');
    const memo = new FileMemo<string>();
    let computed = 0;
    const missing = () => memo.get(path.join(dir, 'gone.js'), async () => `computed ${++computed}`);
    expect([await missing(), await missing()]).toEqual(['computed 1', 'computed 2']);
    expect(reads).toEqual(['link.js', 'link.js']);
  });
});
