import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ToolContext } from '../../../agent/tool.js';
import { readTool } from '../../../agent/tools/read.js';
import { EVALUATOR_UNREADABLE_PATHS } from '../../../roles/evaluator.js';

describe('unreadable paths', () => {
  let root = '';
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it("keep the generator's notes from the evaluator, through links too, and leave other files readable", async () => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ns-unreadable-')));
    fs.writeFileSync(path.join(root, 'progress.md'), 'F-001 done, it works!\n');
    fs.writeFileSync(path.join(root, 'app_spec.md'), '# Todo\n');
    fs.symlinkSync('progress.md', path.join(root, 'notes.md'));
    const ctx: ToolContext = {
      workspace: root,
      protectedPaths: ['.'],
      unreadablePaths: EVALUATOR_UNREADABLE_PATHS,
      signal: new AbortController().signal,
    };
    await expect(readTool.execute({ path: 'progress.md' }, ctx)).rejects.toThrow(
      /progress\.md may not be read in this session: it holds the generator's own claims/,
    );
    await expect(readTool.execute({ path: 'notes.md' }, ctx)).rejects.toThrow(/may not be read/);
    expect(String(await readTool.execute({ path: 'app_spec.md' }, ctx))).toContain('# Todo');
  });
});
