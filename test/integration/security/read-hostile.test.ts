/**
 * Finding 3 of issue 12, and variants, as hostile sessions: every file the harness reads from the workspace
 * (feature list, init.sh, progress log, feedback) is read without following a link, only when it is a regular
 * file with one link, and within a size cap; a FIFO never blocks the harness. Content that is not the
 * workspace's own never reaches the model: the error names the path and the problem only.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readFeatureList } from '../../../handoff/feature-list.js';
import { agentGit } from '../handoff/helpers.js';
import { TWO_FEATURES } from '../roles/role-helpers.js';
import {
  BUILT_FILES,
  bash,
  expectContained,
  type HostileWorkspace,
  hostileSuite,
  type Turn,
} from './hostile-session.js';

const suite = hostileSuite();
const { fresh } = suite;

const VALID_INIT = '#!/usr/bin/env bash\nexport PORT\nexec node app.js # listens on $PORT\n';

/** The initializer's way out after a correction: real files in place of what it planted, committed. */
const FIX_OUTPUT: Turn[] = [
  bash('rm -f feature_list.json init.sh && echo removed'),
  { name: 'write', arguments: { path: 'feature_list.json', content: JSON.stringify(TWO_FEATURES, null, 2) } },
  { name: 'write', arguments: { path: 'init.sh', content: VALID_INIT } },
  { name: 'commit', arguments: { message: 'real feature list and init.sh' } },
  'stop',
];

/** A built workspace whose progress.md is ignored and untracked: the session's starting reset leaves it alone. */
function untrackedProgress(): Record<string, string> {
  const files: Record<string, string> = { ...BUILT_FILES, '.gitignore': 'progress.md\n' };
  delete files['progress.md'];
  return files;
}

/** A generator session that only stops: what the harness showed it in its first message. */
async function orientationOf(w: HostileWorkspace, session = 1) {
  const played = await suite.hostile.play(['stop'], {
    role: 'generator',
    workspace: w.workspace,
    dataDir: w.dataDir,
    session,
  });
  return { played, orientation: firstRequestText(played.bodies[0]) };
}

function firstRequestText(body: string | undefined): string {
  const parsed = JSON.parse(body ?? '{}') as { messages?: Array<{ content: unknown }> };
  return JSON.stringify(parsed.messages?.[0]?.content ?? '');
}

/**
 * An initializer session that plants `plant` (a bad feature list), commits and stops; the harness's answer
 * (returned) must name the problem; the model then writes real files and the session completes.
 */
async function plantedInitializerOutput(planting: (w: HostileWorkspace) => Turn[]) {
  const w = await fresh({ 'app_spec.md': '# Todo\nA list of todos.\n' });
  const plant = planting(w);
  const script: Turn[] = [
    ...plant,
    { name: 'commit', arguments: { message: 'init' } },
    'stop',
    ...FIX_OUTPUT,
  ];
  const played = await suite.hostile.play(script, {
    role: 'initializer',
    workspace: w.workspace,
    dataDir: w.dataDir,
  });
  const correction = played.replies[plant.length + 1]?.content ?? '';
  expect(correction).toMatch(/^\[harness\] Your output is not valid yet/);
  expect(correction).not.toContain(w.secret);
  expect(played.result.outcome, `${played.result.reason}`).toBe('completed');
  expect((await readFeatureList(w.workspace)).map((f) => f.id)).toEqual(['F-001', 'F-002']);
  expectContained(w, played);
  return { w, correction };
}

describe('the initializer’s output, read by the harness (bubblewrap)', () => {
  it('finding 3: feature_list.json and init.sh linked to a file the sandbox hides: refused by name, content never shown', async () => {
    // The sandbox hides the data dir, but a link to it can be made; the harness on the host refuses it.
    const { correction } = await plantedInitializerOutput((w) => [
      bash(
        `ln -s ${w.secretFile} feature_list.json && ln -s ${w.secretFile} init.sh && echo '# Progress' > progress.md`,
      ),
    ]);
    expect(correction).toContain('feature_list.json: is a symbolic link; links are not followed');
    expect(correction).toContain('init.sh: is a symbolic link; links are not followed');
  }, 120_000);

  it('a FIFO feature_list.json is refused at once: the harness does not hang', async () => {
    const { correction } = await plantedInitializerOutput(() => [
      bash('mkfifo feature_list.json && echo "# Progress" > progress.md && echo made'),
      { name: 'write', arguments: { path: 'init.sh', content: VALID_INIT } },
    ]);
    expect(correction).toContain('feature_list.json: is a FIFO; only regular files are read');
  }, 120_000);
});

describe('what the next session is shown (bubblewrap)', () => {
  it('a linked progress.md and a linked feedback file: a note naming the problem, never the content', async () => {
    const w = await fresh();
    // A feedback file linked out, planted from outside the box (e.g. by an older harness) and committed.
    fs.mkdirSync(path.join(w.workspace, '.nightshift/feedback'), { recursive: true });
    fs.symlinkSync(w.secretFile, path.join(w.workspace, '.nightshift/feedback/F-001.md'));
    agentGit(w.workspace, 'add', '-A');
    agentGit(w.workspace, 'commit', '-qm', 'planted feedback link');
    const first = await suite.hostile.play(
      [
        bash(`ln -sf ${w.secretFile} progress.md && echo "// x" >> app.js && echo linked`),
        { name: 'commit', arguments: { message: 'F-001: progress as a link' } },
        'stop',
      ],
      { role: 'generator', workspace: w.workspace, dataDir: w.dataDir },
    );
    expect(first.result.outcome).toBe('completed');
    expect(fs.lstatSync(path.join(w.workspace, 'progress.md')).isSymbolicLink()).toBe(true);
    const { played: second, orientation } = await orientationOf(w, 2);
    expect(orientation).toContain(
      '[progress.md not shown: progress.md: is a symbolic link; links are not followed]',
    );
    expect(orientation).toContain(
      '[the feedback file was not read: .nightshift/feedback/F-001.md: is a symbolic link; links are not followed]',
    );
    expectContained(w, first);
    expectContained(w, second);
  }, 120_000);

  it('a progress.md hard-linked to a file outside the workspace is not read', async () => {
    const marker = 'HARDLINK-MARKER-shared-notes';
    const w = await fresh(untrackedProgress());
    const outside = path.join(w.root, 'shared-notes.md');
    fs.writeFileSync(outside, `# Progress\n${marker}\n`);
    fs.linkSync(outside, path.join(w.workspace, 'progress.md'));
    const { played, orientation } = await orientationOf(w);
    expect(orientation).toContain('progress.md: has 2 hard links; a file linked from elsewhere is not read');
    expect(played.bodies.join('\n')).not.toContain(marker);
    expectContained(w, played);
  }, 120_000);

  it('a 1 GB sparse progress.md: only its tail is read, the next session starts normally', async () => {
    const w = await fresh(untrackedProgress());
    const first = await suite.hostile.play(
      [
        bash(
          "truncate -s 1000M progress.md && printf '\\n## Session 1\\n\\nlast note: the tail is all you need\\n' >> progress.md && stat -c %s progress.md",
        ),
        bash('echo "// x" >> app.js && echo ok'),
        { name: 'commit', arguments: { message: 'F-001: work' } },
        'stop',
      ],
      { role: 'generator', workspace: w.workspace, dataDir: w.dataDir },
    );
    expect(first.replies[0]?.content).toMatch(/\b1048576\d{3}\b/);
    expect(first.result.outcome).toBe('completed');
    const { played: second, orientation } = await orientationOf(w, 2);
    expect(orientation).toContain('last note: the tail is all you need');
    expect(orientation).toContain('[… earlier progress.md entries omitted …]');
    expect(second.bodies[0]?.length).toBeLessThan(100_000);
    expectContained(w, second);
  }, 180_000);

  it('.gitignore and .gitattributes linked out of the workspace are not followed by the harness’s git', async () => {
    const w = await fresh();
    fs.writeFileSync(path.join(w.root, 'ignore-all'), '*\n');
    fs.writeFileSync(path.join(w.root, 'attributes'), `* filter=x\n`);
    const played = await suite.hostile.play(
      [
        bash(
          `ln -sf ${w.root}/ignore-all .gitignore && ln -sf ${w.root}/attributes .gitattributes && echo linked`,
        ),
        { name: 'write', arguments: { path: 'fresh.js', content: 'export {};\n' } },
        { name: 'commit', arguments: { message: 'F-001: fresh module' } },
        'stop',
      ],
      { role: 'generator', workspace: w.workspace, dataDir: w.dataDir },
    );
    // Followed, `*` would have ignored fresh.js: it is committed.
    expect(played.replies[2]?.content).toMatch(/^A fresh\.js$/m);
    expect(played.result.outcome).toBe('completed');
    expect(execFileSync('git', ['ls-files'], { cwd: w.workspace, encoding: 'utf8' })).toContain('fresh.js');
    // The linked .gitignore was never read: the harness replaced the link with a regular file of its defaults.
    const ignoreEntry = execFileSync('git', ['ls-files', '-s', '.gitignore'], {
      cwd: w.workspace,
      encoding: 'utf8',
    });
    expect(ignoreEntry).toMatch(/^100644 /);
    expect(fs.lstatSync(path.join(w.workspace, '.gitignore')).isSymbolicLink()).toBe(false);
    expectContained(w, played);
  }, 120_000);
});
