/**
 * Test files that build whole runs take minutes each; on a fresh checkout vitest has no durations cached and
 * may start one of them last, where it runs alone while the other worker idles. These start first.
 */
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Path prefixes (from the repository root) of the slowest files, slowest first (measured by a full run, 2026-12-02: every file of 30 s or more). */
export const LONG_FIRST: readonly string[] = [
  'test/e2e/meal-planner-run',
  'test/integration/demo-policies/evaluator-bug',
  'test/e2e/lanes-kill',
  'test/integration/runs/accounts-run',
  'test/integration/runs/simulated-run',
  'test/integration/lanes/lanes-run',
  'test/e2e/control-foreground',
  'test/e2e/worker-drain',
  'test/e2e/remote-workers',
  'test/e2e/control-detached',
  'test/integration/lanes/lanes-controls',
  'test/integration/security/secrets',
  'test/integration/security/bad-input',
  'test/e2e/cli-run',
  'test/e2e/worker-kill',
  'test/e2e/demo-export',
  'test/e2e/lanes-housekeeping',
  'test/integration/security/credentials',
  'test/integration/cli/newcomer',
  'test/integration/examples/meal-planner-app',
  'test/integration/checks/replay',
  'test/integration/roles/grounding-family',
  'test/integration/checks/recorded-checks',
  'test/e2e/terminal-text',
  'test/integration/lanes/merge-queue',
  'test/integration/runs/questions-run',
  'test/integration/runs/wedge',
  'test/integration/redis-topologies/cluster-run',
  'test/integration/security/browser-hostile',
  'test/integration/runs/stops',
  'test/integration/runs/steering-run',
  'test/integration/cli/ops-messages',
  'test/e2e/redis-outage',
  'test/integration/security/hostile-model',
  'test/integration/browser/browser-startup',
  'test/integration/cli/cli-process',
  'test/integration/redis-topologies/sentinel-failover',
  'test/integration/evaluation/sweep',
  'test/integration/cli/run-names',
  'test/integration/cli/add',
  'test/integration/cli/plan',
  'test/e2e/cli-interrupt',
  'test/integration/cli/checks-cli',
  'test/integration/lanes/full-sweep',
  'test/integration/security/git-hostile',
  'test/integration/checks/replay-context',
  'test/integration/dashboard/run-page',
  'test/integration/browser/browser-interactions',
  'test/integration/evaluation/sweep-parallel',
];

/** The position of a file in {@link LONG_FIRST}; every other file after them. */
export function longFirstRank(root: string, file: string): number {
  const relative = path.relative(root, file).split(path.sep).join('/');
  const index = LONG_FIRST.findIndex((prefix) => relative.startsWith(prefix));
  return index === -1 ? LONG_FIRST.length : index;
}

/** vitest's own order (cached durations when it has them), with the whole-run files moved to the front. */
export class LongFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const root = this.ctx.config.root;
    return sorted
      .map((file, index) => ({ file, index, rank: longFirstRank(root, file.moduleId) }))
      .sort((a, b) => a.rank - b.rank || a.index - b.index)
      .map(({ file }) => file);
  }
}
