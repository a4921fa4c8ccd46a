/**
 * The harness's git runs with an environment and a configuration it controls: `.git` is compared with its
 * known-good record before every command and restored; command-line settings switch off what the repository
 * could name; the operator's global and system config are not read. Real git, real repositories; every
 * program the tampering names is a script that would leave a canary file outside the workspace.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { withOverride } from '../../../handoff/attributes-override.js';
import type { IntegrityViolation } from '../../../handoff/formats.js';
import {
  checkpoint,
  ensureRepo,
  head,
  isClean,
  openRepo,
  rollback,
  runGit,
  showFile,
  type WorkspaceRepo,
} from '../../../handoff/git.js';
import { harnessGitEnv } from '../../../handoff/git-env.js';
import { enforceGitDir, recordGitDir } from '../../../handoff/git-guard.js';
import { pushFastForward, syncWorkspace } from '../../../handoff/git-remote.js';
import { agentGit, isolatedGitFile, tempDir } from './helpers.js';

/** `.git/info/attributes` as the harness writes it into a repository that had none. */
const ATTRIBUTES_TEXT = withOverride('');

const cleanups = isolatedGitFile();

interface Setup {
  root: string;
  dir: string;
  canary: string;
  recordFile: string;
  violations: IntegrityViolation[];
  repo: WorkspaceRepo;
  /** The command line of a program that leaves `<canary>/ran-<name>` (with its environment) when run. */
  program(name: string): string;
  /** Names of the programs that ran. */
  ran(): string[];
}

/** A guarded workspace with one commit, a canary dir outside it and a hostile script inside it. */
async function setup(): Promise<Setup> {
  const temp = tempDir('ns-git-guard-');
  cleanups.push(temp.cleanup);
  const root = fs.realpathSync(temp.dir);
  const dir = path.join(root, 'ws');
  const canary = path.join(root, 'canary');
  fs.mkdirSync(canary);
  fs.writeFileSync(path.join(canary, 'keep.txt'), 'untouched\n');
  const recordFile = path.join(root, 'data', 'known-good.json');
  const violations: IntegrityViolation[] = [];
  const repo = await ensureRepo(dir, {
    guard: { recordFile, onViolation: (violation) => violations.push(violation) },
  });
  fs.writeFileSync(path.join(dir, 'evil.sh'), `#!/bin/sh\nenv > "${canary}/ran-$1"\ncat\n`, { mode: 0o755 });
  fs.writeFileSync(path.join(dir, 'app.js'), 'console.log(1);\n');
  await checkpoint(repo, { role: 'harness', runId: 'r1', session: 0, summary: 'first' });
  return {
    root,
    dir,
    canary,
    recordFile,
    violations,
    repo,
    program: (name) => `${path.join(dir, 'evil.sh')} ${name}`,
    ran: () => fs.readdirSync(canary).filter((name) => name.startsWith('ran-')),
  };
}

function gitConfig(dir: string, ...args: string[]): void {
  agentGit(dir, 'config', ...args);
}

/** Harness commands that stage, commit, check out and reset: where the workspace's config would bite. */
async function harnessWork(s: Setup): Promise<void> {
  fs.appendFileSync(path.join(s.dir, 'app.js'), 'console.log(2);\n');
  const sha = await checkpoint(s.repo, { role: 'generator', runId: 'r1', session: 1, summary: 'work' });
  expect(sha).toMatch(/^[0-9a-f]{40}$/);
  await showFile(s.repo, 'HEAD', 'app.js');
  fs.writeFileSync(path.join(s.dir, 'junk.txt'), 'junk\n');
  await rollback(s.repo, sha as string);
  expect(await isClean(s.repo)).toBe(true);
}

describe('the known-good .git', () => {
  it('records the repository at creation and finds nothing when nothing changed', async () => {
    const s = await setup();
    const record = JSON.parse(fs.readFileSync(s.recordFile, 'utf8'));
    expect(Object.keys(record.entries)).toEqual(
      expect.arrayContaining(['config', 'hooks', 'info', 'info/exclude']),
    );
    await harnessWork(s);
    expect(s.violations).toEqual([]);
  });

  it('a filter driver in .git/config and .git/info/attributes never runs (clean on add, smudge on reset): restored, recorded', async () => {
    const s = await setup();
    const configBefore = fs.readFileSync(path.join(s.dir, '.git/config'), 'utf8');
    gitConfig(s.dir, 'filter.x.clean', s.program('clean'));
    gitConfig(s.dir, 'filter.x.smudge', s.program('smudge'));
    gitConfig(s.dir, 'filter.x.process', s.program('process'));
    fs.writeFileSync(path.join(s.dir, '.git/info/attributes'), '* filter=x\n');
    await harnessWork(s);
    expect(s.ran()).toEqual([]);
    expect(s.violations).toHaveLength(1);
    expect(s.violations[0]?.kind).toBe('git_config_tampered');
    expect(s.violations[0]?.detail).toContain('.git/config changed (+ [filter "x"]');
    // The harness's own override (handoff/git-attributes.ts) was recorded there: the file is put back to it.
    expect(s.violations[0]?.detail).toContain('.git/info/attributes changed');
    expect(fs.readFileSync(path.join(s.dir, '.git/config'), 'utf8')).toBe(configBefore);
    expect(fs.readFileSync(path.join(s.dir, '.git/info/attributes'), 'utf8')).toBe(`${ATTRIBUTES_TEXT}`);
  });

  it('the override another session wrote and has not recorded yet is kept and recorded; any other text in it is not', async () => {
    const s = await setup();
    const attributes = path.join(s.dir, '.git/info/attributes');
    const guard = { recordFile: s.recordFile, onViolation: (v: IntegrityViolation) => s.violations.push(v) };
    // The record as it stands before the first command of another session writes the override (a worker's first
    // command on the repository: the write comes before the record, outside the mutex this guard holds).
    fs.rmSync(attributes);
    await recordGitDir(s.dir, s.recordFile);
    fs.writeFileSync(attributes, ATTRIBUTES_TEXT);
    expect(await enforceGitDir(s.dir, guard)).toBeNull();
    expect(fs.readFileSync(attributes, 'utf8')).toBe(ATTRIBUTES_TEXT);
    expect(JSON.parse(fs.readFileSync(s.recordFile, 'utf8')).entries['info/attributes']).toBeDefined();

    // A line of its own above the override is not the harness's: removed and reported as before.
    fs.rmSync(attributes);
    await recordGitDir(s.dir, s.recordFile);
    fs.writeFileSync(attributes, withOverride(`* filter=x\n`));
    const violation = await enforceGitDir(s.dir, guard);
    expect(violation?.detail).toContain('.git/info/attributes added');
    expect(fs.existsSync(attributes)).toBe(false);
  });

  it('core.worktree pointing at another directory: nothing of it committed, nothing written there', async () => {
    const s = await setup();
    const elsewhere = path.join(s.root, 'elsewhere');
    fs.mkdirSync(elsewhere);
    fs.writeFileSync(path.join(elsewhere, 'private.txt'), 'private\n');
    gitConfig(s.dir, 'core.worktree', elsewhere);
    await harnessWork(s);
    expect(fs.readdirSync(elsewhere)).toEqual(['private.txt']);
    expect(await runGit(s.repo, ['ls-files'])).not.toContain('private.txt');
    expect(s.violations.map((v) => v.detail).join()).toContain(`+ worktree = ${elsewhere}`);
  });

  it('include.path to a workspace file, hooks, alternates and commondir: removed before any command', async () => {
    const s = await setup();
    fs.writeFileSync(
      path.join(s.dir, 'evil.cfg'),
      `[core]\n\tfsmonitor = ${s.program('fsmonitor')}\n[filter "y"]\n\tclean = ${s.program('included')}\n`,
    );
    fs.writeFileSync(path.join(s.dir, '.gitattributes'), '*.js filter=y\n');
    gitConfig(s.dir, 'include.path', '../evil.cfg');
    for (const hook of [
      'pre-commit',
      'post-commit',
      'post-checkout',
      'reference-transaction',
      'post-rewrite',
    ]) {
      fs.writeFileSync(path.join(s.dir, '.git/hooks', hook), `#!/bin/sh\n${s.program(hook)} </dev/null\n`, {
        mode: 0o755,
      });
    }
    const other = path.join(s.root, 'other.git');
    execFileSync('git', ['init', '-q', '--bare', other]);
    fs.writeFileSync(path.join(s.dir, '.git/objects/info/alternates'), `${other}/objects\n`);
    fs.writeFileSync(path.join(s.dir, '.git/commondir'), `${other}\n`);
    await harnessWork(s);
    expect(s.ran()).toEqual([]);
    const detail = s.violations.map((v) => v.detail).join('\n');
    for (const what of [
      '.git/hooks/pre-commit added',
      '.git/hooks/reference-transaction added',
      '.git/objects/info/alternates added',
      '.git/commondir added',
      '+ path = ../evil.cfg',
    ]) {
      expect(detail).toContain(what);
    }
    expect(fs.existsSync(path.join(s.dir, '.git/hooks/pre-commit'))).toBe(false);
    expect(fs.existsSync(path.join(s.dir, '.git/objects/info/alternates'))).toBe(false);
  });

  it('a .git replaced by a symbolic link is removed (the history check then rebuilds it)', async () => {
    const s = await setup();
    const other = path.join(s.root, 'other');
    fs.renameSync(path.join(s.dir, '.git'), other);
    fs.symlinkSync(other, path.join(s.dir, '.git'));
    await expect(head(s.repo)).resolves.toBeNull();
    expect(fs.existsSync(path.join(s.dir, '.git'))).toBe(false);
    expect(s.violations[0]?.detail).toMatch(/^\.git was a symbolic link; it was removed/);
    expect(fs.existsSync(path.join(other, 'HEAD'))).toBe(true);
  });
});

describe('settings and environment the harness controls (even without the guard)', () => {
  it('fsmonitor, hooksPath, pager, editor, askpass and core.worktree of the repository are ignored', async () => {
    const s = await setup();
    const unguarded = openRepo(s.dir);
    const hooks = path.join(s.root, 'hooks');
    fs.mkdirSync(hooks);
    for (const hook of ['pre-commit', 'post-commit', 'post-checkout']) {
      fs.writeFileSync(path.join(hooks, hook), `#!/bin/sh\n${s.program(`hookspath-${hook}`)} </dev/null\n`, {
        mode: 0o755,
      });
    }
    gitConfig(s.dir, 'core.hooksPath', hooks);
    gitConfig(s.dir, 'core.fsmonitor', s.program('fsmonitor'));
    gitConfig(s.dir, 'core.pager', s.program('pager'));
    gitConfig(s.dir, 'core.editor', s.program('editor'));
    gitConfig(s.dir, 'core.askPass', s.program('askpass'));
    gitConfig(s.dir, 'core.worktree', path.join(s.root, 'canary'));
    fs.appendFileSync(path.join(s.dir, 'app.js'), '// more\n');
    await checkpoint(unguarded, { role: 'generator', runId: 'r1', session: 1, summary: 'work' });
    await runGit(unguarded, ['log', '-1']);
    expect(await isClean(unguarded)).toBe(true);
    expect(s.ran()).toEqual([]);
    expect(fs.readdirSync(s.canary)).toEqual(['keep.txt']);
  });

  it('a committed .gitattributes naming filter, diff and merge drivers runs nothing, even when the operator’s global and system config define them', async () => {
    const s = await setup();
    const drivers = [
      `[filter "x"]\n\tclean = ${s.program('global-clean')}\n\tsmudge = ${s.program('global-smudge')}`,
      `[diff "x"]\n\ttextconv = ${s.program('global-textconv')}\n\tcommand = ${s.program('global-diff')}`,
      `[merge "x"]\n\tdriver = ${s.program('global-merge')}`,
    ].join('\n');
    fs.writeFileSync(path.join(process.env.HOME as string, '.gitconfig'), `${drivers}\n`);
    const system = path.join(s.root, 'system-gitconfig');
    fs.writeFileSync(system, `${drivers.replaceAll('global', 'system')}\n`);
    const saved = process.env.GIT_CONFIG_SYSTEM;
    process.env.GIT_CONFIG_SYSTEM = system;
    try {
      fs.writeFileSync(path.join(s.dir, '.gitattributes'), '* filter=x diff=x merge=x\n');
      await checkpoint(s.repo, { role: 'generator', runId: 'r1', session: 1, summary: 'attributes' });
      await harnessWork(s);
      await runGit(s.repo, ['diff', 'HEAD~1', 'HEAD', '--stat']);
      expect(s.violations).toEqual([]);
      expect(s.ran()).toEqual([]);
      // The operator's own git (their environment) in a clone without the harness's override does read them: the
      // drivers are real and would have run.
      const plain = path.join(s.root, 'plain');
      execFileSync('git', ['clone', '-q', s.dir, plain], { env: process.env });
      execFileSync('git', ['diff', 'HEAD~2', 'HEAD', '--', 'app.js'], { cwd: plain, env: process.env });
      expect(s.ran().length).toBeGreaterThan(0);
    } finally {
      fs.rmSync(path.join(process.env.HOME as string, '.gitconfig'), { force: true });
      if (saved === undefined) delete process.env.GIT_CONFIG_SYSTEM;
      else process.env.GIT_CONFIG_SYSTEM = saved;
    }
  });

  it('git’s environment is built from scratch: no key, no harness variable, an empty HOME', () => {
    const env = harnessGitEnv({
      base: {
        ANTHROPIC_API_KEY: 'sk-ant-x',
        OPENAI_API_KEY: 'sk-x',
        REDIS_URL: 'redis://x',
        GIT_DIR: '/x',
        PATH: '/x',
      },
    });
    expect(Object.keys(env).sort()).toEqual(
      [
        'PATH',
        'LC_ALL',
        'LANG',
        'HOME',
        'XDG_CONFIG_HOME',
        'GIT_CONFIG_NOSYSTEM',
        'GIT_CONFIG_GLOBAL',
        'GIT_ATTR_NOSYSTEM',
        'GIT_TERMINAL_PROMPT',
      ].sort(),
    );
    expect(fs.readdirSync(env.HOME as string)).toEqual([]);
    expect(env.GIT_CONFIG_GLOBAL).toBe('/dev/null');
  });
});

describe('remote workspaces', () => {
  it('a tampered remote URL, url rewrite, ssh command or credential helper in the clone does not redirect a push', async () => {
    const s = await setup();
    const origin = path.join(s.root, 'origin.git');
    const evil = path.join(s.root, 'evil.git');
    execFileSync('git', ['init', '-q', '--bare', '-b', 'main', origin]);
    execFileSync('git', ['init', '-q', '--bare', '-b', 'main', evil]);
    const cacheDir = path.join(s.root, 'clone');
    const violations: IntegrityViolation[] = [];
    const guard = {
      recordFile: path.join(s.root, 'data', 'clone.json'),
      onViolation: (v: IntegrityViolation) => violations.push(v),
    };
    const synced = await syncWorkspace({ url: origin, branch: 'main', cacheDir, guard });
    gitConfig(cacheDir, 'remote.origin.url', evil);
    gitConfig(cacheDir, `url.${evil}.insteadOf`, origin);
    gitConfig(cacheDir, 'remote.origin.pushurl', evil);
    gitConfig(cacheDir, 'core.sshCommand', s.program('ssh'));
    gitConfig(cacheDir, 'credential.helper', `!${s.program('credential')}`);
    fs.writeFileSync(path.join(cacheDir, 'work.txt'), 'work\n');
    const sha = await checkpoint(synced.repo, {
      role: 'generator',
      runId: 'r1',
      session: 1,
      summary: 'work',
    });
    await pushFastForward(synced.repo, 'main');
    expect(agentGit(origin, 'rev-parse', 'main')).toBe(sha);
    expect(agentGit(evil, 'for-each-ref')).toBe('');
    expect(s.ran()).toEqual([]);
    expect(violations.map((v) => v.detail).join()).toContain(`+ insteadOf = ${origin}`);
    expect(agentGit(cacheDir, 'config', '--get', 'remote.origin.url')).toBe(origin);
  });
});
