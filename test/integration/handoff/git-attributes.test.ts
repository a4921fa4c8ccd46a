/**
 * A committed `.gitattributes` cannot make harness git transform content (issue 24, "a workspace cannot wedge a
 * run"): real git, real repositories. Each test first shows the attack works on this machine's git without the
 * override, then that every harness operation keeps the blob's bytes.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { freshAppCopy } from '../../../handoff/app-copy.js';
import { ATTRIBUTES_FILE, HARNESS_ATTRIBUTES_LINE } from '../../../handoff/attributes-override.js';
import { readFeatureList, writeFeatureList } from '../../../handoff/feature-list.js';
import type { IntegrityViolation } from '../../../handoff/formats.js';
import { checkpoint, ensureRepo, head, isClean, rollback, runGit, showFile } from '../../../handoff/git.js';
import { harnessGitEnv } from '../../../handoff/git-env.js';
import { enforceGitDir } from '../../../handoff/git-guard.js';
import { agentGit, isolatedGitFile, tempDir } from './helpers.js';

const cleanups = isolatedGitFile();

/** Every attribute that transforms content without configuration, and a filter the config names. */
const HOSTILE_ATTRIBUTES = [
  'feature_list.json working-tree-encoding=UTF-16',
  '* ident',
  '*.sh text eol=crlf',
  '* filter=evil',
  '* -merge',
  '',
].join('\n');

const FEATURES = [
  { id: 'F-001', category: 'functional', description: 'Größe — ✓ shown', steps: ['open /'], passes: false },
];

async function hostileWorkspace() {
  const temp = tempDir('ns-attrs-');
  cleanups.push(temp.cleanup);
  const dir = path.join(temp.dir, 'ws');
  const violations: IntegrityViolation[] = [];
  const guard = {
    recordFile: path.join(temp.dir, 'record.json'),
    onViolation: (v: IntegrityViolation) => violations.push(v),
  };
  const repo = await ensureRepo(dir, { guard });
  await writeFeatureList(dir, FEATURES);
  fs.writeFileSync(path.join(dir, 'init.sh'), '#!/bin/sh\necho $Id$\n');
  await checkpoint(repo, { role: 'initializer', runId: 'r1', session: 1, summary: 'init' });
  // The session writes the attributes; the harness commits them with the session's work.
  fs.writeFileSync(path.join(dir, '.gitattributes'), HOSTILE_ATTRIBUTES);
  fs.appendFileSync(path.join(dir, 'init.sh'), 'echo more\n');
  const sha = await checkpoint(repo, { role: 'generator', runId: 'r1', session: 2, summary: 'work' });
  return { temp: temp.dir, dir, repo, guard, violations, sha: sha! };
}

const blob = (dir: string, spec: string) =>
  execFileSync('git', ['cat-file', 'blob', spec], { cwd: dir, env: harnessGitEnv() });

describe('committed attributes and harness git', () => {
  it('the attack is real on this git: a plain clone re-encodes the feature list and converts line ends', async () => {
    const { temp, dir } = await hostileWorkspace();
    const plain = path.join(temp, 'plain');
    execFileSync('git', ['clone', '-q', dir, plain], { env: harnessGitEnv() });
    const onDisk = fs.readFileSync(path.join(plain, 'feature_list.json'));
    expect(onDisk.equals(blob(dir, 'HEAD:feature_list.json'))).toBe(false);
    expect(onDisk.includes(0)).toBe(true); // UTF-16: NUL bytes
    expect(fs.readFileSync(path.join(plain, 'init.sh'), 'utf8')).toContain('\r\n');
  });

  it('commit, reset, checkout and an app copy keep the bytes of every blob; the feature list still reads', async () => {
    const { temp, dir, repo, sha, violations, guard } = await hostileWorkspace();
    for (const file of ['feature_list.json', 'init.sh', '.gitattributes']) {
      expect(fs.readFileSync(path.join(dir, file)).equals(blob(dir, `${sha}:${file}`))).toBe(true);
    }
    expect(blob(dir, `${sha}:init.sh`).toString()).toContain('$Id$');
    // The session breaks the files; the harness rolls back: bytes as committed.
    fs.writeFileSync(path.join(dir, 'feature_list.json'), 'garbage');
    fs.rmSync(path.join(dir, 'init.sh'));
    await rollback(repo, sha);
    expect(
      fs.readFileSync(path.join(dir, 'feature_list.json')).equals(blob(dir, `${sha}:feature_list.json`)),
    ).toBe(true);
    expect(await readFeatureList(dir)).toEqual(FEATURES);
    expect(fs.readFileSync(path.join(dir, 'init.sh'), 'utf8')).not.toContain('\r');
    expect(await isClean(repo)).toBe(true);
    // A checkout of another commit and back, by harness git.
    await runGit(repo, ['checkout', '-q', '--detach', `${sha}~1`]);
    await runGit(repo, ['checkout', '-q', '-f', 'main']);
    expect(await readFeatureList(dir)).toEqual(FEATURES);
    expect(await showFile(repo, sha, 'feature_list.json')).toBe(
      fs.readFileSync(path.join(dir, 'feature_list.json'), 'utf8'),
    );
    // The evaluator's app copy is a fresh clone: the override is there before its checkout.
    const copy = await freshAppCopy(repo, path.join(temp, 'copy'));
    expect(
      fs.readFileSync(path.join(copy.dir, 'feature_list.json')).equals(blob(dir, `${sha}:feature_list.json`)),
    ).toBe(true);
    await copy.remove();
    // The override is part of the known-good `.git`: the guard finds nothing to restore.
    expect(await enforceGitDir(dir, guard)).toBeNull();
    expect(violations).toEqual([]);
    expect(await head(repo)).toBe(sha);
  });

  it('a filter the repository config names never runs, and the operator’s own attribute lines are kept', async () => {
    const temp = tempDir('ns-attrs-filter-');
    cleanups.push(temp.cleanup);
    const dir = path.join(temp.dir, 'ws');
    const canary = path.join(temp.dir, 'filter-ran');
    const repo = await ensureRepo(dir);
    fs.writeFileSync(path.join(dir, ATTRIBUTES_FILE), '*.png binary\n');
    agentGit(dir, 'config', 'filter.evil.clean', `sh -c 'touch ${canary}; tr a-z A-Z'`);
    agentGit(dir, 'config', 'filter.evil.smudge', `sh -c 'touch ${canary}; tr a-z A-Z'`);
    fs.writeFileSync(path.join(dir, '.gitattributes'), HOSTILE_ATTRIBUTES);
    fs.writeFileSync(path.join(dir, 'app.js'), 'console.log("lower case")\n');
    const sha = await checkpoint(repo, { role: 'generator', runId: 'r1', session: 1, summary: 'x' });
    fs.rmSync(path.join(dir, 'app.js'));
    await rollback(repo, sha!);
    expect(fs.readFileSync(path.join(dir, 'app.js'), 'utf8')).toBe('console.log("lower case")\n');
    expect(blob(dir, `${sha}:app.js`).toString()).toBe('console.log("lower case")\n');
    expect(fs.existsSync(canary)).toBe(false);
    const attributes = fs.readFileSync(path.join(dir, ATTRIBUTES_FILE), 'utf8').trim().split('\n');
    expect(attributes[0]).toBe('*.png binary');
    expect(attributes.at(-1)).toBe(HARNESS_ATTRIBUTES_LINE);
  });
});
