/**
 * Every file the harness reads or writes in a workspace goes through handoff/safe-fs.ts: no link followed
 * anywhere in the path, regular files only (a FIFO never blocks), one link only, a size cap. Real files, real
 * links, real FIFOs; each refusal names the path and the problem and never the content.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readFeatureList } from '../../../handoff/feature-list.js';
import { readFeedback, writeFeedback } from '../../../handoff/feedback.js';
import type { VerdictRecord } from '../../../handoff/formats.js';
import { checkInitScript } from '../../../handoff/init-script.js';
import { appendProgress, progressTail } from '../../../handoff/progress.js';
import {
  appendWorkspaceFile,
  readWorkspaceFile,
  readWorkspaceTail,
  removeWorkspaceFile,
  type UnsafeFileError,
  writeWorkspaceFile,
} from '../../../handoff/safe-fs.js';
import { appendVerdict } from '../../../handoff/verdicts.js';
import { unsafeFileRefusal, workspaceBesideOutside } from './helpers.js';

const SECRET = 'outside-secret-7f3a9c';
const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** A workspace and, beside it, a directory with a secret file the workspace may point at. */
function setup() {
  const layout = workspaceBesideOutside('ns-safe-read-', `${SECRET}\n`, 'secret.txt');
  cleanups.push(layout.cleanup);
  return { workspace: layout.workspace, outside: layout.outside, secretFile: layout.outsideFile };
}

async function refusal(promise: Promise<unknown>): Promise<UnsafeFileError> {
  const refused = await unsafeFileRefusal(promise);
  expect(refused.message).not.toContain(SECRET);
  expect(refused.describe()).toMatch(/regular files inside the workspace/);
  return refused;
}

const RECORD: VerdictRecord = {
  featureId: 'F-001',
  verdict: 'fail',
  steps: [{ step: 'Open /', ok: false, evidence: 'blank page' }],
  issues: ['blank'],
  mode: 'evaluate',
  runId: 'r1',
  session: 2,
  at: '2025-01-01T00:00:00.000Z',
  evidence: [],
};

describe('safe workspace reads', () => {
  it('reads a regular file and returns null for a missing one (or a missing parent)', async () => {
    const { workspace } = setup();
    fs.writeFileSync(path.join(workspace, 'a.txt'), 'hello');
    expect((await readWorkspaceFile(workspace, 'a.txt'))?.toString()).toBe('hello');
    expect(await readWorkspaceFile(workspace, 'missing.txt')).toBeNull();
    expect(await readWorkspaceFile(workspace, 'no/such/dir/file.txt')).toBeNull();
  });

  it('refuses a symlinked file, a symlinked directory in the middle of the path, and a dangling link', async () => {
    const { workspace, outside, secretFile } = setup();
    fs.symlinkSync(secretFile, path.join(workspace, 'feature_list.json'));
    expect((await refusal(readWorkspaceFile(workspace, 'feature_list.json'))).problem).toBe('symlink');
    fs.symlinkSync(outside, path.join(workspace, '.nightshift'));
    const middle = await refusal(readWorkspaceFile(workspace, '.nightshift/secret.txt'));
    expect(middle.problem).toBe('symlink');
    expect(middle.message).toMatch(/^\.nightshift\/secret\.txt: \.nightshift is a symbolic link/);
    fs.symlinkSync(path.join(outside, 'nothing-here'), path.join(workspace, 'dangling.md'));
    expect((await refusal(readWorkspaceFile(workspace, 'dangling.md'))).problem).toBe('symlink');
    // A relative link inside the workspace is refused as well: links are never followed.
    fs.writeFileSync(path.join(workspace, 'real.md'), 'x');
    fs.symlinkSync('real.md', path.join(workspace, 'alias.md'));
    expect((await refusal(readWorkspaceFile(workspace, 'alias.md'))).problem).toBe('symlink');
  });

  it('refuses a FIFO at once (no writer: a blocking open would hang the harness)', async () => {
    const { workspace } = setup();
    execFileSync('mkfifo', [path.join(workspace, 'feature_list.json')]);
    const error = await refusal(readWorkspaceFile(workspace, 'feature_list.json'));
    expect(error.problem).toBe('not_regular');
    expect(error.message).toBe('feature_list.json: is a FIFO; only regular files are read');
    await refusal(appendWorkspaceFile(workspace, 'feature_list.json', 'x'));
  });

  it('refuses a hard link (a file also linked from outside the workspace) and a directory', async () => {
    const { workspace, secretFile } = setup();
    fs.linkSync(secretFile, path.join(workspace, 'progress.md'));
    const error = await refusal(readWorkspaceFile(workspace, 'progress.md'));
    expect(error.problem).toBe('hard_link');
    expect(error.message).toMatch(/has 2 hard links/);
    await refusal(appendProgress(workspace, { role: 'generator', session: 1, text: 'note' }));
    expect(fs.readFileSync(secretFile, 'utf8')).toBe(`${SECRET}\n`);
    fs.mkdirSync(path.join(workspace, 'dir.json'));
    expect((await refusal(readWorkspaceFile(workspace, 'dir.json'))).problem).toBe('not_regular');
  });

  it('caps the size with a clear error, and reads only the tail of a 1 GB sparse file', async () => {
    const { workspace } = setup();
    fs.writeFileSync(path.join(workspace, 'big.json'), 'x'.repeat(2048));
    const error = await refusal(readWorkspaceFile(workspace, 'big.json', { maxBytes: 1024 }));
    expect(error.message).toBe('big.json: is 2048 bytes; the harness reads at most 1024 bytes of it');
    const sparse = path.join(workspace, 'progress.md');
    fs.writeFileSync(sparse, '# Progress\n');
    fs.truncateSync(sparse, 1024 ** 3);
    fs.appendFileSync(sparse, '\n## Session 9\n\nthe last note\n');
    const before = process.memoryUsage().rss;
    const tail = await readWorkspaceTail(workspace, 'progress.md', 3000);
    expect(tail?.size).toBe(1024 ** 3 + 29);
    expect(tail?.bytes.length).toBe(3000);
    const shown = await progressTail(workspace, 3000);
    expect(shown).toMatch(/^\[… earlier progress\.md entries omitted …\]\n/);
    expect(shown).toContain('the last note');
    // Reading it whole would need a gigabyte (and fail: no string is that long).
    expect(process.memoryUsage().rss - before).toBeLessThan(200 * 1024 ** 2);
  });

  it('refuses paths that leave the workspace', async () => {
    const { workspace } = setup();
    expect((await refusal(readWorkspaceFile(workspace, '../outside/secret.txt'))).problem).toBe(
      'path_outside',
    );
    expect((await refusal(readWorkspaceFile(workspace, '/etc/passwd'))).problem).toBe('path_outside');
  });
});

describe('safe workspace writes', () => {
  it('replaces a link at the target instead of writing through it', async () => {
    const { workspace, secretFile } = setup();
    fs.symlinkSync(secretFile, path.join(workspace, 'feature_list.json'));
    await writeWorkspaceFile(workspace, 'feature_list.json', '[]\n');
    expect(fs.lstatSync(path.join(workspace, 'feature_list.json')).isFile()).toBe(true);
    expect(fs.readFileSync(path.join(workspace, 'feature_list.json'), 'utf8')).toBe('[]\n');
    expect(fs.readFileSync(secretFile, 'utf8')).toBe(`${SECRET}\n`);
  });

  it('never writes through a symlinked directory (feedback, verdicts) and never appends through a link', async () => {
    const { workspace, outside, secretFile } = setup();
    fs.symlinkSync(outside, path.join(workspace, '.nightshift'));
    await refusal(writeFeedback(workspace, RECORD));
    await refusal(appendVerdict(workspace, RECORD));
    expect(fs.readdirSync(outside)).toEqual(['secret.txt']);
    fs.rmSync(path.join(workspace, '.nightshift'));
    fs.mkdirSync(path.join(workspace, '.nightshift'));
    fs.symlinkSync(secretFile, path.join(workspace, '.nightshift', 'verdicts.jsonl'));
    await refusal(appendVerdict(workspace, RECORD));
    expect(fs.readFileSync(secretFile, 'utf8')).toBe(`${SECRET}\n`);
  });
});

describe('the harness readers use it', () => {
  it('feature list, feedback and init.sh: a link is refused or reported, its target never read or changed', async () => {
    const { workspace, secretFile } = setup();
    fs.symlinkSync(secretFile, path.join(workspace, 'feature_list.json'));
    await refusal(readFeatureList(workspace));
    fs.mkdirSync(path.join(workspace, '.nightshift/feedback'), { recursive: true });
    fs.symlinkSync(secretFile, path.join(workspace, '.nightshift/feedback/F-001.md'));
    await refusal(readFeedback(workspace, 'F-001'));
    // init.sh linked to a file outside: reported as a problem; the target's mode is not touched (no chmod through it).
    fs.chmodSync(secretFile, 0o600);
    fs.symlinkSync(secretFile, path.join(workspace, 'init.sh'));
    const check = await checkInitScript(workspace);
    expect(check.problems.join('\n')).toMatch(/init\.sh: is a symbolic link/);
    expect(check.problems.join('\n')).not.toContain(SECRET);
    expect(fs.statSync(secretFile).mode & 0o777).toBe(0o600);
  });

  it('progress tail: a linked or FIFO progress.md gives a note, not its content, and never hangs', async () => {
    const { workspace, secretFile } = setup();
    fs.symlinkSync(secretFile, path.join(workspace, 'progress.md'));
    const linked = await progressTail(workspace, 3000);
    expect(linked).toBe('[progress.md not shown: progress.md: is a symbolic link; links are not followed]');
    fs.rmSync(path.join(workspace, 'progress.md'));
    execFileSync('mkfifo', [path.join(workspace, 'progress.md')]);
    expect(await progressTail(workspace, 3000)).toMatch(/is a FIFO/);
  });
});

describe('removeWorkspaceFile', () => {
  it('removes a harness file, but never through a linked directory, and removes a link without following it', async () => {
    const { workspace, outside, secretFile } = setup();
    await writeWorkspaceFile(workspace, '.nightshift/feedback/F-001.md', 'old feedback\n');
    expect(await removeWorkspaceFile(workspace, '.nightshift/feedback/F-001.md')).toBe(true);
    expect(fs.existsSync(path.join(workspace, '.nightshift/feedback/F-001.md'))).toBe(false);
    expect(await removeWorkspaceFile(workspace, '.nightshift/feedback/F-001.md')).toBe(false);

    // A `.nightshift/feedback` linked to a directory outside: the file there is not removed.
    fs.rmSync(path.join(workspace, '.nightshift/feedback'), { recursive: true });
    fs.symlinkSync(outside, path.join(workspace, '.nightshift/feedback'));
    const linked = await refusal(removeWorkspaceFile(workspace, '.nightshift/feedback/secret.txt'));
    expect(linked.problem).toBe('symlink');
    expect(fs.existsSync(secretFile)).toBe(true);

    // A link at the name itself is removed; what it points at stays.
    fs.symlinkSync(secretFile, path.join(workspace, 'note.md'));
    expect(await removeWorkspaceFile(workspace, 'note.md')).toBe(true);
    expect(fs.existsSync(secretFile)).toBe(true);
  });
});
