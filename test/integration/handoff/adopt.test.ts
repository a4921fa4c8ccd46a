import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../../core/errors.js';
import { adoptWorkspace, FIXED_PORT_FEEDBACK } from '../../../handoff/adopt.js';
import { readFeatureList } from '../../../handoff/feature-list.js';
import { readFeedback } from '../../../handoff/feedback.js';
import { isClean, openRepo } from '../../../handoff/git.js';
import { progressTail } from '../../../handoff/progress.js';
import { createWorkspace } from '../../../handoff/workspace.js';
import { agentGit, isolatedGitFile, tempDir } from './helpers.js';

const cleanups = isolatedGitFile();

const quickstartList = [
  {
    category: 'functional',
    description: 'User can add a todo',
    steps: ['Step 1: Navigate to the app', 'Step 2: Type a todo', 'Step 3: Press Enter'],
    passes: true,
  },
  {
    category: 'style',
    description: 'Dark theme',
    steps: ['Step 1: Toggle the theme'],
    passes: false,
    notes: 'later',
  },
  { category: 'functional', description: 'Delete a todo', steps: ['Step 1: Click delete'], passes: false },
];

async function quickstartWorkspace() {
  const temp = tempDir('ns-quickstart-');
  cleanups.push(temp.cleanup);
  const dir = temp.dir;
  agentGit(dir, 'init', '-q', '-b', 'master');
  await writeFile(path.join(dir, 'feature_list.json'), JSON.stringify(quickstartList, null, 2));
  await writeFile(
    path.join(dir, 'claude-progress.txt'),
    'Session 1: set up the project.\nNext: add todos.\n',
  );
  await writeFile(path.join(dir, 'init.sh'), '#!/bin/bash\nnpm install\nPORT=$PORT npm start\n', {
    mode: 0o755,
  });
  await writeFile(path.join(dir, 'app_spec.txt'), 'A todo app.\n');
  agentGit(dir, 'add', '-A');
  agentGit(dir, 'commit', '-q', '-m', 'Initial setup');
  return dir;
}

describe('adoptWorkspace', () => {
  it('adopts a quickstart workspace: ids added and committed, every original field unchanged', async () => {
    const dir = await quickstartWorkspace();
    await writeFile(path.join(dir, 'wip.txt'), 'uncommitted work of the user');
    const report = await adoptWorkspace(dir);
    expect(report).toEqual({
      kind: 'quickstart',
      features: 3,
      passing: 1,
      idsAssigned: 3,
      progressSource: 'claude-progress.txt',
      initScript: { present: true, executable: true, fixedPort: false },
      gitInitialized: false,
      problems: [],
      portTask: null,
    });
    const onDisk = JSON.parse(await readFile(path.join(dir, 'feature_list.json'), 'utf8')) as Array<
      Record<string, unknown>
    >;
    expect(onDisk.map((f) => f.id)).toEqual(['F-001', 'F-002', 'F-003']);
    onDisk.forEach((feature, i) => {
      const { id: _id, ...rest } = feature;
      expect(rest).toEqual(quickstartList[i]);
      expect(Object.keys(rest)).toEqual(Object.keys(quickstartList[i]!));
    });
    // The quickstart reads the file with Python's json module and counts `passes`.
    const counted = execFileSync(
      'python3',
      [
        '-c',
        'import json; t=json.load(open("feature_list.json")); print(sum(1 for x in t if x.get("passes", False)), len(t))',
      ],
      { cwd: dir, encoding: 'utf8' },
    );
    expect(counted.trim()).toBe('1 3');
    // Only the feature list was committed; the user's uncommitted file stays as it was.
    expect(agentGit(dir, 'show', '--format=%s', '--name-only', 'HEAD').split('\n').filter(Boolean)).toEqual([
      'nightshift(harness): assign ids to 3 features in feature_list.json',
      'feature_list.json',
    ]);
    expect(agentGit(dir, 'status', '--porcelain')).toBe('?? wip.txt');
    expect((await readFeatureList(dir)).map((f) => f.id)).toEqual(['F-001', 'F-002', 'F-003']);
    expect(await progressTail(dir, 10_000)).toContain('Next: add todos.');

    const again = await adoptWorkspace(dir);
    expect(again).toMatchObject({ idsAssigned: 0, features: 3 });
  });

  it('reports an empty directory and an invalid feature list as problems', async () => {
    const temp = tempDir();
    cleanups.push(temp.cleanup);
    const empty = await adoptWorkspace(temp.dir);
    // Refused: not even `git init`.
    expect(empty).toMatchObject({ kind: 'empty', features: 0, gitInitialized: false, progressSource: null });
    expect(existsSync(path.join(temp.dir, '.git'))).toBe(false);
    expect(empty.problems).toEqual(['init.sh is missing']);
    await writeFile(path.join(temp.dir, 'feature_list.json'), JSON.stringify([{ description: 'x' }]));
    const bad = await adoptWorkspace(temp.dir);
    expect(bad.problems.join('\n')).toContain('feature_list.json: [0].category');
    expect(bad.features).toBe(0);
  });
});

/** Every file under `dir` (`.git` included) with its mode and a hash of its bytes: equal means byte for byte. */
function snapshotTree(dir: string): Record<string, string> {
  const tree: Record<string, string> = {};
  for (const name of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    const file = path.join(dir, name);
    const info = lstatSync(file);
    const content = info.isFile() ? createHash('sha256').update(readFileSync(file)).digest('hex') : '';
    tree[name] = `${info.mode.toString(8)} ${content}`;
  }
  return tree;
}

describe('adoptWorkspace: fixed ports and refusals', () => {
  it('adopts an init.sh on a fixed port: the first failing feature’s feedback asks the generator for $PORT', async () => {
    const dir = await quickstartWorkspace();
    await writeFile(path.join(dir, 'init.sh'), '#!/bin/bash\nnpm install\nnpx serve -l 3000 .\n', {
      mode: 0o755,
    });
    agentGit(dir, 'commit', '-qam', 'serve on 3000');
    const report = await adoptWorkspace(dir);
    expect(report).toMatchObject({
      problems: [],
      idsAssigned: 3,
      initScript: { present: true, executable: true, fixedPort: true },
      // F-001 passes already: the task goes with the first feature a generator will work on.
      portTask: 'F-002',
    });
    const feedback = await readFeedback(dir, 'F-002');
    expect(feedback).toBe(FIXED_PORT_FEEDBACK);
    expect(feedback).toContain('listens on\n127.0.0.1:$PORT');
    expect(agentGit(dir, 'show', '--format=%s', '--name-only', 'HEAD').split('\n').filter(Boolean)).toEqual([
      'nightshift(harness): assign ids to 3 features in feature_list.json; $PORT task on F-002',
      '.nightshift/feedback/F-002.md',
      'feature_list.json',
    ]);
    expect(await isClean(openRepo(dir))).toBe(true);
  });

  it('a refused adoption leaves the workspace byte for byte as it was, its .git included', async () => {
    const dir = await quickstartWorkspace();
    // A list the harness refuses (a feature without steps), an uncommitted file of the user, a fixed port.
    await writeFile(
      path.join(dir, 'feature_list.json'),
      JSON.stringify([{ category: 'functional', description: 'x', passes: false }, ...quickstartList]),
    );
    await writeFile(path.join(dir, 'init.sh'), '#!/bin/bash\nnode server.js 8080\n', { mode: 0o755 });
    await writeFile(path.join(dir, 'wip.txt'), 'uncommitted');
    const before = snapshotTree(dir);
    const report = await adoptWorkspace(dir);
    expect(report.problems.join('\n')).toContain('feature_list.json: [0].steps');
    expect(report).toMatchObject({ idsAssigned: 0, portTask: null });
    expect(snapshotTree(dir)).toEqual(before);
  });
});

describe('createWorkspace', () => {
  it('creates a repository with the spec, a .gitignore and a first commit', async () => {
    const temp = tempDir();
    cleanups.push(temp.cleanup);
    const spec = path.join(temp.dir, 'todo-spec.md');
    await writeFile(spec, '# Todo app\n');
    const dir = path.join(temp.dir, 'ws');
    const created = await createWorkspace({ dir, specPath: spec });
    expect(created.specFile).toBe('app_spec.md');
    expect(await readFile(path.join(dir, 'app_spec.md'), 'utf8')).toBe('# Todo app\n');
    expect(await readFile(path.join(dir, '.gitignore'), 'utf8')).toContain('node_modules/\n');
    expect(agentGit(dir, 'rev-parse', 'HEAD')).toBe(created.commit);
    expect(await isClean(openRepo(dir))).toBe(true);
    // Idempotent on its own clean workspace, keeping the original name when asked.
    const again = await createWorkspace({ dir, specPath: spec, specFileName: 'todo-spec.md' });
    expect(agentGit(dir, 'ls-files').split('\n').sort()).toEqual([
      '.gitignore',
      'app_spec.md',
      'todo-spec.md',
    ]);
    expect(again.commit).not.toBe(created.commit);
  });

  it('refuses a dirty repository and a non-empty plain directory with an InputError and a hint', async () => {
    const temp = tempDir();
    cleanups.push(temp.cleanup);
    const spec = path.join(temp.dir, 'spec.md');
    await writeFile(spec, '# spec\n');
    const plain = path.join(temp.dir, 'plain');
    await mkdir(plain);
    await writeFile(path.join(plain, 'x'), 'x');
    const notEmpty = await createWorkspace({ dir: plain, specPath: spec }).catch((e: unknown) => e);
    expect(notEmpty).toBeInstanceOf(InputError);
    expect((notEmpty as InputError).code).toBe('WORKSPACE_NOT_EMPTY');
    expect((notEmpty as InputError).hint).toBeTruthy();

    const dirty = path.join(temp.dir, 'dirty');
    await createWorkspace({ dir: dirty, specPath: spec });
    await writeFile(path.join(dirty, 'app_spec.md'), 'edited');
    const error = await createWorkspace({ dir: dirty, specPath: spec }).catch((e: unknown) => e);
    expect((error as InputError).code).toBe('WORKSPACE_DIRTY');
    const missingSpec = await createWorkspace({ dir: path.join(temp.dir, 'n'), specPath: '/nope.md' }).catch(
      (e: unknown) => e,
    );
    expect((missingSpec as InputError).code).toBe('SPEC_NOT_FOUND');
  });
});
