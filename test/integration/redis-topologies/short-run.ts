/** A short todo run (2 features, the scripted demo model) on a harness, and what the topology tests check of it. */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import type { RunRecord, SessionRecord } from '../../../orchestrator/run/index.js';
import { startRun } from '../../../orchestrator/start-run.js';
import { type RunHarness, shortTodoSpec, waitFor } from '../runs/harness.js';

/** Starts a 2-feature todo run; returns its id and the workspace (a local git repository). */
export async function startShortRun(h: RunHarness): Promise<{ runId: string; workspace: string }> {
  const workspace = path.join(h.root, 'todo');
  const run = await startRun(h.orchestrator, {
    specPath: shortTodoSpec(h.root, 2),
    workspace: { kind: 'local', dir: workspace },
    config: h.config(),
    dataDir: h.dataDir,
  });
  return { runId: run.id, workspace };
}

/** Waits for the run to end (done, incomplete, failed, cancelled) or pause. */
export function untilEnded(h: RunHarness, runId: string): Promise<RunRecord> {
  return waitFor(
    `run ${runId} to end`,
    async () => {
      const run = await h.orchestrator.store.getRun(runId);
      return ['done', 'incomplete', 'failed', 'cancelled', 'paused'].includes(run.status) ? run : undefined;
    },
    540_000,
  );
}

/** Every session record of the run, in order. */
export async function sessionsOf(h: RunHarness, runId: string): Promise<SessionRecord[]> {
  return (await h.orchestrator.store.listSessions(runId, { limit: 1_000 })).sessions;
}

/** The commits the run's sessions recorded that the workspace repository does not have. */
export function missingCommits(workspace: string, sessions: SessionRecord[]): string[] {
  return sessions
    .flatMap((session) => session.commits)
    .filter((sha) => {
      try {
        execFileSync('git', ['cat-file', '-e', `${sha}^{commit}`], { cwd: workspace, stdio: 'ignore' });
        return false;
      } catch {
        return true;
      }
    });
}
