import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatFeatureList } from '../../../handoff/feature-list.js';
import type { FeatureList, IntegrityViolation } from '../../../handoff/formats.js';
import { checkpoint, ensureRepo, isClean, parseCheckpointTrailers } from '../../../handoff/git.js';
import { guardFeatureList } from '../../../handoff/integrity.js';
import { agentGit, isolatedGitFile, tempDir } from './helpers.js';

const cleanups = isolatedGitFile();

const list: FeatureList = [
  { id: 'F-001', category: 'functional', description: 'Add a todo', steps: ['Open', 'Type'], passes: true },
  {
    id: 'F-002',
    category: 'functional',
    description: 'Delete a todo',
    steps: ['Open', 'Delete'],
    passes: false,
  },
  { id: 'F-003', category: 'style', description: 'Dark mode', steps: ['Toggle'], passes: false },
];
// Written with 4-space indent to prove the guard restores the start version byte for byte.
const startText = `${JSON.stringify(list, null, 4)}\n`;

async function workspace() {
  const temp = tempDir();
  cleanups.push(temp.cleanup);
  const repo = await ensureRepo(temp.dir);
  await writeFile(path.join(temp.dir, 'feature_list.json'), startText);
  const start = (await checkpoint(repo, { role: 'initializer', runId: 'r', session: 1, summary: 'init' }))!;
  return { repo, dir: temp.dir, start };
}

type Tamper = (features: Array<Record<string, unknown>>) => unknown;
function set(f: Array<Record<string, unknown>>, index: number, key: string, value: unknown) {
  f[index]![key] = value;
  return f;
}
const cases: Array<[IntegrityViolation['kind'], Tamper]> = [
  ['feature_edited', (f) => set(f, 1, 'description', 'Delete all todos')],
  ['feature_removed', (f) => f.slice(0, 2)],
  ['feature_added', (f) => [...f, { category: 'x', description: 'extra', steps: ['s'], passes: false }]],
  ['features_reordered', (f) => [f[2], f[0], f[1]]],
  ['passes_changed', (f) => set(f, 1, 'passes', true)],
  ['feature_list_invalid', (f) => set(f, 0, 'steps', [])],
];

describe('guardFeatureList on a real repository', () => {
  for (const [kind, tamper] of cases) {
    it(`detects and reverts ${kind} (committed by the session)`, async () => {
      const { repo, dir, start } = await workspace();
      const tampered = tamper(structuredClone(list) as Array<Record<string, unknown>>);
      await writeFile(path.join(dir, 'feature_list.json'), JSON.stringify(tampered, null, 2));
      await writeFile(path.join(dir, 'app.js'), 'console.log(1)\n');
      agentGit(dir, 'add', '-A');
      agentGit(dir, 'commit', '-q', '-m', 'work');
      const result = await guardFeatureList(repo, start, { mayChangePasses: false, runId: 'r', session: 2 });
      expect(result.violations.map((v) => v.kind)).toContain(kind);
      expect(await readFile(path.join(dir, 'feature_list.json'), 'utf8')).toBe(startText);
      expect(result.commit).toMatch(/^[0-9a-f]{40}$/);
      expect(agentGit(dir, 'log', '-1', '--format=%s')).toMatch(
        /^nightshift\(harness\): restore feature_list\.json/,
      );
      expect(parseCheckpointTrailers(agentGit(dir, 'log', '-1', '--format=%B')).session).toBe('2');
      // The session's other work stays.
      expect(await readFile(path.join(dir, 'app.js'), 'utf8')).toBe('console.log(1)\n');
      expect(await isClean(repo)).toBe(true);
    });
  }

  it('restores a deleted file left uncommitted in the work tree', async () => {
    const { repo, dir, start } = await workspace();
    await rm(path.join(dir, 'feature_list.json'));
    const result = await guardFeatureList(repo, start, { mayChangePasses: false, runId: 'r', session: 2 });
    expect(result.violations).toEqual([
      { kind: 'feature_list_invalid', detail: 'feature_list.json was deleted or is not valid JSON' },
    ]);
    expect(await readFile(path.join(dir, 'feature_list.json'), 'utf8')).toBe(startText);
    expect(await isClean(repo)).toBe(true);
  });

  it('leaves an untouched list alone and keeps allowed passes changes while reverting edits', async () => {
    const { repo, dir, start } = await workspace();
    const untouched = await guardFeatureList(repo, start, { mayChangePasses: false, runId: 'r', session: 2 });
    expect(untouched).toEqual({ violations: [], list, commit: null });
    const changed = structuredClone(list);
    changed[1]!.passes = true;
    changed[2]!.steps = ['Toggle twice'];
    await writeFile(path.join(dir, 'feature_list.json'), JSON.stringify(changed));
    const result = await guardFeatureList(repo, start, { mayChangePasses: true, runId: 'r', session: 3 });
    expect(result.violations.map((v) => [v.kind, v.featureId])).toEqual([['feature_edited', 'F-003']]);
    const expected = structuredClone(list);
    expected[1]!.passes = true;
    expect(await readFile(path.join(dir, 'feature_list.json'), 'utf8')).toBe(formatFeatureList(expected));
  });
});
