// The overnight bench's judge of the final code and its time arithmetic: a feature works only when its files,
// registrations and planted-bug fix are all there and the server starts; spans overlap once; the projection
// stretches only model waits. The todo app is assembled from the scripted sources into a temp dir.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { featureWorks, projectWall, unionMs, workingTree } from '../../../bench/overnight-figures.js';
import { assembleTodoApp } from '../../../testkit/policies/todo-assemble.js';
import { API_MODULES, CLIENT_MODULES, TODO_FEATURES } from '../../../testkit/policies/todo-features.js';
import { MISSING_MODULE } from '../../../testkit/simulated/generator-mistakes.js';
import { featuresToRecheck, RECHECK_HEADING } from '../../../testkit/simulated/index.js';

let root: string;
beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'ns-overnight-figures-'));
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

async function app(name: string, options: Parameters<typeof assembleTodoApp>[1] = {}): Promise<string> {
  const dir = path.join(root, name);
  await assembleTodoApp(dir, options);
  return dir;
}

const all = (dir: string) => TODO_FEATURES.map((_feature, index) => featureWorks(workingTree(dir), index));

describe('featureWorks', () => {
  it('holds for every feature of the finished app, and not for features never built', async () => {
    expect(all(await app('full'))).toEqual(TODO_FEATURES.map(() => true));
    expect(all(await app('three', { features: 3 }))).toEqual(
      TODO_FEATURES.map((_feature, index) => index < 3),
    );
  });

  it('fails a feature whose registration was dropped (half done, or a regression) and only that one', async () => {
    const dir = await app('dropped');
    const line = TODO_FEATURES[2]?.insertions.find((insertion) => insertion.path === CLIENT_MODULES)
      ?.lines[0];
    const file = path.join(dir, CLIENT_MODULES);
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(`${line}\n`, ''));
    expect(all(dir)).toEqual(TODO_FEATURES.map((_feature, index) => index !== 2));
  });

  it('fails the feature with its planted bug left in, and every feature when the server imports a missing module', async () => {
    const buggy = all(await app('buggy', { plantedBug: true }));
    const position = TODO_FEATURES.findIndex((feature) => feature.plantedBug);
    expect(buggy).toEqual(TODO_FEATURES.map((_feature, index) => index !== position));
    const dir = await app('broken-start');
    const file = path.join(dir, API_MODULES);
    fs.writeFileSync(file, `import './${MISSING_MODULE}';\n${fs.readFileSync(file, 'utf8')}`);
    expect(all(dir)).toEqual(TODO_FEATURES.map(() => false));
  });
});

describe('spans and projection', () => {
  it('counts overlapping spans once and ignores empty ones', () => {
    expect(
      unionMs([
        [0, 10],
        [5, 20],
        [30, 40],
        [35, 36],
        [50, 50],
      ]),
    ).toBe(30);
    expect(unionMs([])).toBe(0);
  });

  it('stretches only the time a model request was in flight', () => {
    // 100 ms measured, of which 30 ms (two overlapping requests) waited on the model: ×10 makes them 300 ms.
    expect(
      projectWall(
        100,
        [
          [10, 30],
          [20, 40],
        ],
        10,
      ),
    ).toBe(100 + 9 * 30);
    expect(projectWall(100, [], 10)).toBe(100);
  });
});

describe('the quickstart brief', () => {
  it('lists the features to re-check under its heading, and none in a brief without it', () => {
    const brief = `# Feature F-005: Filter\n\n## Feedback from your last self-check\n\nFAILED\n\n${RECHECK_HEADING}\n\n- F-003\n- F-004\n`;
    expect(featuresToRecheck(brief)).toEqual(['F-003', 'F-004']);
    expect(featuresToRecheck('# Feature F-005: Filter\n- F-001\n')).toEqual([]);
  });
});
