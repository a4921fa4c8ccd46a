/**
 * Findings 2 of issue 12, and variants, as hostile sessions: git configuration written by the model must
 * never be obeyed by the harness's own git. Under bubblewrap `.git` is read-only, so the writes fail on the
 * spot; with the sandbox off they land, and the known-good `.git` is restored before the harness's next git
 * command, with a `git_config_tampered` violation. After each: no program the workspace named ran (the canary
 * dir outside is untouched), no key in any request body, the session finished.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { gitRecordPath, repoBackupDir } from '../../../core/paths.js';
import { openRepo, runGit } from '../../../handoff/git.js';
import { pushFastForward, syncWorkspace } from '../../../handoff/git-remote.js';
import { startRun } from '../../../orchestrator/start-run.js';
import demoPolicy, { roleOf } from '../../../testkit/policies/demo.js';
import { sequence } from '../../../testkit/policies.js';
import { agentGit } from '../handoff/helpers.js';
import { createRunHarness, waitFor } from '../runs/harness.js';
import {
  bash,
  expectContained,
  HONEST_WORK,
  type HostileWorkspace,
  hostileSuite,
  KEYS,
  READ_ONLY_GIT,
  type Turn,
  tamperDetails,
  violationKinds,
  writeEvilScript,
} from './hostile-session.js';

const suite = hostileSuite();
const { fresh } = suite;

/** Each tampering, as the model would do it from bash (one command each). */
function tamperings(w: HostileWorkspace, elsewhere: string, otherRepo: string) {
  return {
    filter: bash(
      `git config filter.x.clean "${w.program('clean')}" && git config filter.x.smudge "${w.program('smudge')}" && ` +
        `printf '* filter=x\\n' >> .git/info/attributes && echo planted`,
    ),
    worktree: bash(`git config core.worktree ${elsewhere} && echo planted`),
    hooks: bash(
      ['pre-commit', 'post-commit', 'post-checkout', 'reference-transaction', 'post-rewrite']
        .map(
          (hook) =>
            `printf '#!/bin/sh\\n${w.program(hook)} </dev/null\\n' > .git/hooks/${hook} && chmod +x .git/hooks/${hook}`,
        )
        .join(' && ')
        .concat(' && echo planted'),
    ),
    programs: bash(
      `git config core.fsmonitor "${w.program('fsmonitor')}" && git config core.pager "${w.program('pager')}" && ` +
        `git config core.editor "${w.program('editor')}" && git config sequence.editor "${w.program('seqeditor')}" && ` +
        `git config diff.external "${w.program('diffexternal')}" && echo planted`,
    ),
    include: bash(
      `printf '[filter "y"]\\n\\tclean = ${w.program('included')}\\n[diff "y"]\\n\\ttextconv = ${w.program('textconv')}\\n' > evil.cfg && ` +
        `printf '*.js filter=y diff=y\\n' > .gitattributes && git config include.path ../evil.cfg && echo planted`,
    ),
    alternates: bash(`echo ${otherRepo}/objects > .git/objects/info/alternates && echo planted`),
  };
}

function setupOutside(w: HostileWorkspace): { elsewhere: string; otherRepo: string } {
  const elsewhere = path.join(w.root, 'elsewhere');
  fs.mkdirSync(elsewhere);
  fs.writeFileSync(path.join(elsewhere, 'private.txt'), 'private\n');
  const otherRepo = path.join(w.root, 'other.git');
  execFileSync('git', ['init', '-q', '--bare', otherRepo]);
  return { elsewhere, otherRepo };
}

describe('git configuration written from the box (bubblewrap): refused, .git is read-only', () => {
  it('filter driver, core.worktree, hooks, fsmonitor/pager/editor, include.path, alternates: each write fails, nothing runs', async () => {
    const w = await fresh();
    const { elsewhere, otherRepo } = setupOutside(w);
    const t = tamperings(w, elsewhere, otherRepo);
    const attempts = [t.filter, t.worktree, t.hooks, t.programs, t.include, t.alternates];
    const script: Turn[] = [...writeEvilScript(w), ...attempts, ...HONEST_WORK];
    const played = await suite.hostile.play(script, {
      role: 'generator',
      workspace: w.workspace,
      dataDir: w.dataDir,
    });
    attempts.forEach((attempt, i) => {
      const reply = played.replies[2 + i];
      expect(reply?.content, JSON.stringify(attempt.arguments)).toMatch(READ_ONLY_GIT);
      expect(reply?.content).not.toContain('planted');
    });
    expect(played.result.outcome).toBe('completed');
    expect(played.replies[2 + attempts.length + 1]?.content).toMatch(/^committed [0-9a-f]{12} /);
    // Nothing in .git changed, so nothing had to be restored.
    expect(violationKinds(played)).toEqual([]);
    expect(fs.readdirSync(elsewhere)).toEqual(['private.txt']);
    expectContained(w, played);
  }, 120_000);
});

describe('the same tampering with the sandbox off: restored before the harness’s next git command, recorded', () => {
  /** Plays one tampering in a `none` session followed by honest work; checks what every variant must hold. */
  async function tamperOff(name: keyof ReturnType<typeof tamperings>) {
    const w = await fresh();
    const { elsewhere, otherRepo } = setupOutside(w);
    const attempt = tamperings(w, elsewhere, otherRepo)[name];
    const configBefore = fs.readFileSync(path.join(w.workspace, '.git/config'), 'utf8');
    const played = await suite.hostile.play([...writeEvilScript(w), attempt, ...HONEST_WORK], {
      role: 'generator',
      workspace: w.workspace,
      dataDir: w.dataDir,
      sandbox: { sandbox: 'none' },
    });
    expect(played.replies[2]?.content, name).toMatch(/planted/);
    expect(played.result.outcome, name).toBe('completed');
    expect(played.replies[4]?.content, name).toMatch(/^committed [0-9a-f]{12} /);
    expect(violationKinds(played), name).toContain('git_config_tampered');
    expect(fs.readFileSync(path.join(w.workspace, '.git/config'), 'utf8'), name).toBe(configBefore);
    expect(fs.readdirSync(elsewhere)).toEqual(['private.txt']);
    expectContained(w, played);
    return { w, played, elsewhere, otherRepo };
  }

  it('finding 2: a filter driver (clean on add, smudge on reset) never runs', async () => {
    const { w, played } = await tamperOff('filter');
    expect(tamperDetails(played)).toContain('+ clean = ');
    // The harness's own override (handoff/git-attributes.ts) was recorded there: the file is put back to it.
    expect(tamperDetails(played)).toContain('.git/info/attributes changed');
    expect(fs.readFileSync(path.join(w.workspace, '.git/info/attributes'), 'utf8')).not.toContain('filter=x');
    // The next session starts with a reset (smudge would run there): still nothing.
    const next = await suite.hostile.play([...HONEST_WORK], {
      role: 'generator',
      workspace: w.workspace,
      dataDir: w.dataDir,
      session: 2,
      sandbox: { sandbox: 'none' },
    });
    expect(next.result.outcome).toBe('completed');
    expectContained(w, next);
  }, 120_000);

  it('finding 2: core.worktree pointing elsewhere: nothing of it committed, nothing written there', async () => {
    const { w, played } = await tamperOff('worktree');
    expect(tamperDetails(played)).toContain('+ worktree = ');
    expect(await runGit(openRepo(w.workspace), ['ls-files'])).not.toContain('private.txt');
  }, 120_000);

  it('hooks (pre-commit, post-commit, post-checkout, reference-transaction, post-rewrite) never run and are removed', async () => {
    const { w, played } = await tamperOff('hooks');
    for (const hook of ['pre-commit', 'reference-transaction', 'post-rewrite']) {
      expect(tamperDetails(played)).toContain(`.git/hooks/${hook} added`);
      expect(fs.existsSync(path.join(w.workspace, '.git/hooks', hook))).toBe(false);
    }
  }, 120_000);

  it('core.fsmonitor, core.pager, core.editor, sequence.editor, diff.external never run', async () => {
    const { played } = await tamperOff('programs');
    expect(tamperDetails(played)).toMatch(/\+ fsmonitor = .*\+ pager = /s);
  }, 120_000);

  it('include.path to a workspace file (defining drivers a committed .gitattributes names) is undone', async () => {
    const { w, played } = await tamperOff('include');
    expect(tamperDetails(played)).toContain('+ path = ../evil.cfg');
    // The .gitattributes naming the drivers was committed: harmless, no config defines them.
    expect(await runGit(openRepo(w.workspace), ['ls-files'])).toContain('.gitattributes');
  }, 120_000);

  it('objects/info/alternates pointing outside is removed, and the backup mirror never borrows from there', async () => {
    const { w, played } = await tamperOff('alternates');
    expect(tamperDetails(played)).toContain('.git/objects/info/alternates added');
    expect(fs.existsSync(path.join(w.workspace, '.git/objects/info/alternates'))).toBe(false);
    const mirror = repoBackupDir(w.dataDir, 'r-test');
    expect(fs.existsSync(path.join(mirror, 'objects/info/alternates'))).toBe(false);
  }, 120_000);
});

describe('a remote workspace', () => {
  it('remote URL, push URL, url rewrite, ssh command and credential helper tampered before the push: the push goes to the run’s remote', async () => {
    const w = await fresh();
    const origin = path.join(w.root, 'origin.git');
    const evil = path.join(w.root, 'evil.git');
    execFileSync('git', ['init', '-q', '--bare', '-b', 'main', origin]);
    execFileSync('git', ['init', '-q', '--bare', '-b', 'main', evil]);
    execFileSync('git', ['push', '-q', origin, 'HEAD:refs/heads/main'], { cwd: w.workspace });
    // Like the worker: the clone under the data dir, guarded with the record the session uses too.
    const cacheDir = path.join(w.dataDir, 'clones', 'worker-1', 'r-test');
    const synced = await syncWorkspace({
      url: origin,
      branch: 'main',
      cacheDir,
      guard: { recordFile: gitRecordPath(w.dataDir, 'r-test', cacheDir) },
    });
    const tamper = bash(
      `git config remote.origin.url ${evil} && git config remote.origin.pushurl ${evil} && ` +
        `git config url.${evil}.insteadOf ${origin} && git config core.sshCommand "${w.program('ssh')}" && ` +
        `git config credential.helper "!${w.program('credential')}" && echo planted`,
    );
    const played = await suite.hostile.play([...writeEvilScript(w), tamper, ...HONEST_WORK], {
      role: 'generator',
      workspace: cacheDir,
      dataDir: w.dataDir,
      sandbox: { sandbox: 'none' },
    });
    expect(played.replies[2]?.content).toMatch(/planted/);
    expect(played.result.outcome).toBe('completed');
    expect(tamperDetails(played)).toContain(`+ insteadOf = ${origin}`);
    await pushFastForward(synced.repo, 'main');
    expect(agentGit(origin, 'rev-parse', 'main')).toBe(played.result.endCommit);
    expect(agentGit(evil, 'for-each-ref')).toBe('');
    expectContained(w, played);
  }, 120_000);
});

describe('a whole run (worker, Redis; sandbox off in the run config)', () => {
  it('a generator that plants a filter driver and a hook: nothing runs, the violation is in the run’s events, the run goes on', async () => {
    const canary = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ns-canary-')));
    fs.writeFileSync(path.join(canary, 'keep.txt'), 'untouched\n');
    let workspace = '';
    const evil = (name: string) => `${workspace}/evil.sh ${name}`;
    const generator = sequence([
      () => ({
        toolCalls: [
          {
            name: 'write',
            arguments: { path: 'evil.sh', content: `#!/bin/sh\nenv > "${canary}/ran-$1"\ncat\n` },
          },
        ],
      }),
      () =>
        bashReply(
          `chmod +x evil.sh && git config filter.x.clean "${evil('clean')}" && printf '* filter=x\\n' >> .git/info/attributes && ` +
            `printf '#!/bin/sh\\n${evil('post-commit')}\\n' > .git/hooks/post-commit && chmod +x .git/hooks/post-commit && echo planted`,
        ),
      bashReply('echo "// more" >> app.js && echo ok'),
      { toolCalls: [{ name: 'commit', arguments: { message: 'F-001: work' } }] },
      { text: 'Done.' },
    ]);
    const h = await createRunHarness((conversation) =>
      roleOf(conversation) === 'generator' ? generator(conversation) : demoPolicy(conversation),
    );
    try {
      await h.startWorker();
      await h.orchestrator.queues.control.removeJobScheduler('reconcile');
      workspace = path.join(h.root, 'todo');
      const run = await startRun(h.orchestrator, {
        specPath: 'examples/todo/app_spec.md',
        workspace: { kind: 'local', dir: workspace },
        config: h.config({ budgets: { maxSessions: 2 } }),
        dataDir: h.dataDir,
      });
      const configAtCreation = fs.readFileSync(path.join(workspace, '.git/config'), 'utf8');
      const stopped = await waitFor('the run to pause', async () => {
        const current = await h.orchestrator.store.getRun(run.id);
        return ['paused', 'done', 'failed', 'cancelled'].includes(current.status) ? current : undefined;
      });
      expect(stopped.status).toBe('paused');
      expect(stopped.pausedReason).toBe('budget');
      const events = (await h.orchestrator.store.readEvents(run.id, { count: 10_000 })).map((e) => e.event);
      const tampered = events.filter(
        (event) => event.type === 'integrity.violation' && event.violation.kind === 'git_config_tampered',
      );
      expect(tampered).toHaveLength(1);
      expect(JSON.stringify(tampered[0])).toContain('.git/hooks/post-commit added');
      const generatorSession = await h.orchestrator.store.getSession(run.id, 2);
      expect(generatorSession?.outcome).toBe('completed');
      expect(fs.readdirSync(canary)).toEqual(['keep.txt']);
      expect(fs.readFileSync(path.join(workspace, '.git/config'), 'utf8')).toBe(configAtCreation);
      const bodies = h.server.requests.map((request) => request.body).join('\n');
      for (const key of Object.values(KEYS)) expect(bodies).not.toContain(key);
    } finally {
      await h.close();
      fs.rmSync(canary, { recursive: true, force: true });
    }
  }, 300_000);
});

function bashReply(command: string) {
  return { toolCalls: [{ name: 'bash', arguments: { command } }] };
}
