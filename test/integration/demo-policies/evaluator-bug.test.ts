import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assignIds, readFeatureListOnDisk, writeFeatureList } from '../../../handoff/feature-list.js';
import { checkpoint, openRepo } from '../../../handoff/git.js';
import { demoPolicy } from '../../../testkit/policies/demo.js';
import { type AssembleOptions, assembleTodoApp } from '../../../testkit/policies/todo-assemble.js';
import { startModelServer } from '../../../testkit/server.js';
import type { ModelServer } from '../../../testkit/types.js';
import { type BrowserPool, createBrowserPool } from '../../../workers/browser-pool.js';
import { chromiumExecutable } from '../../../workers/chromium-path.js';
import { makeWorkspace, removeWorkspace, sessionRunner } from './helpers.js';

const CHROMIUM = chromiumExecutable();
const ALL_FEATURES = Array.from({ length: 8 }, (_, index) => `F-00${index + 1}`);

// One retry: on a machine loaded far past its cores (seen at load 10-28 on 2 cores, before and after issue 27's
// refactor) a save or a reload can take longer than the browser tools' 3 s settle and the scripted evaluator's
// second look, and an honest pass turns into a fail. A planted bug fails both tries.
describe('the scripted evaluator decides from the page', { retry: 1 }, () => {
  let server: ModelServer;
  let pool: BrowserPool;
  const workspaces: string[] = [];

  beforeAll(async () => {
    server = await startModelServer({ policy: demoPolicy });
    pool = createBrowserPool({ executablePath: CHROMIUM });
  });

  afterAll(async () => {
    await pool?.close();
    await server?.close();
    for (const workspace of workspaces) removeWorkspace(workspace);
  });

  /**
   * A committed workspace holding the assembled app, then one regression session over the given features (all 8
   * by default; the cases that look for one feature's failure check it between its neighbours: CI time).
   */
  async function sweep(options: AssembleOptions, ids = ALL_FEATURES) {
    const made = await makeWorkspace({});
    workspaces.push(made.workspace);
    await assembleTodoApp(made.workspace, options);
    await writeFeatureList(made.workspace, assignIds(await readFeatureListOnDisk(made.workspace)).list);
    await checkpoint(openRepo(made.workspace), {
      role: 'harness',
      runId: 'demo-test',
      session: 0,
      summary: 'app',
    });
    const run = sessionRunner(server, { ...made, browser: pool });
    const result = await run('evaluator', ids, { mode: 'regression' });
    return result.verdicts;
  }

  it('fails only the remaining count when the planted bug is in, with what the page showed', async () => {
    const verdicts = await sweep({ plantedBug: true }, ['F-004', 'F-005', 'F-006']);
    expect(verdicts.map((v) => `${v.featureId} ${v.verdict}`)).toEqual([
      'F-004 pass',
      'F-005 fail',
      'F-006 pass',
    ]);
    const failed = verdicts[1];
    expect(failed?.steps.filter((step) => !step.ok)).toHaveLength(1);
    expect(failed?.issues[0]).toMatch(/still says "(\d+) items left"; expected "\d+ items? left"/);
  }, 420_000);

  it('passes every feature of the fixed app, with evidence for every step', async () => {
    const verdicts = await sweep({});
    // Verdicts that are not a pass first: a retried failure's summary shows only the message's first line.
    const told = [...verdicts]
      .sort((a, b) => Number(a.verdict === 'pass') - Number(b.verdict === 'pass'))
      .map((v) => `${v.featureId} ${v.verdict} ${v.issues.join(' | ')}`.trim());
    expect(
      verdicts.map((v) => v.verdict),
      told.join('\n'),
    ).toEqual(Array(8).fill('pass'));
    expect(
      verdicts.every((v) => v.steps.length > 0 && v.steps.every((step) => step.ok && step.evidence)),
    ).toBe(true);
  }, 420_000);

  it('fails, never passes, the features that are not built yet', async () => {
    const verdicts = await sweep({ features: 5 }, ['F-005', 'F-006', 'F-007', 'F-008']);
    expect(verdicts.map((v) => `${v.featureId} ${v.verdict}`)).toEqual([
      'F-005 pass',
      'F-006 fail',
      'F-007 fail',
      'F-008 fail',
    ]);
    expect(verdicts[1]?.issues[0]).toMatch(/no button named "Active"/);
    expect(verdicts[2]?.issues[0]).toMatch(/no button named "Edit /);
  }, 420_000);
});
