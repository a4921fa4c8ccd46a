import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openRepo, runGit } from '../../../handoff/git.js';
import type { RunEvent } from '../../../orchestrator/events.js';
import type { RunRecord, SessionRecord } from '../../../orchestrator/run/index.js';
import { startRun } from '../../../orchestrator/start-run.js';
import demoPolicy from '../../../testkit/policies/demo.js';
import { createRunHarness, type RunHarness, shortTodoSpec, waitFor } from '../runs/harness.js';

// Parallel lanes on real Redis, git, Chromium and two in-process workers with the scripted model.
let harness: RunHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function finished(h: RunHarness, id: string, timeoutMs = 420_000): Promise<RunRecord> {
  return waitFor(
    `run ${id} to end`,
    async () => {
      const run = await h.orchestrator.store.getRun(id);
      return ['paused', 'done', 'incomplete', 'failed', 'cancelled'].includes(run.status) ? run : undefined;
    },
    timeoutMs,
  );
}

async function eventsOf(h: RunHarness, id: string): Promise<RunEvent[]> {
  return (await h.orchestrator.store.readEvents(id, { count: 100_000 })).map((stored) => stored.event);
}

async function sessionsOf(h: RunHarness, id: string): Promise<SessionRecord[]> {
  return (await h.orchestrator.store.listSessions(id, { limit: 1_000 })).sessions;
}

/** What happened, for a failure message: each session and merge in one line. */
async function story(h: RunHarness, id: string): Promise<string> {
  const lines = (await eventsOf(h, id)).flatMap((event) => {
    if (event.type === 'session.finished')
      return [
        `#${event.seq} ${event.role} ${event.featureIds.join(',')} ${event.outcome} ${event.reason ?? ''}`,
      ];
    if (event.type === 'verdict.applied') return [`  verdict ${event.featureId} ${event.verdict}`];
    if (event.type === 'lane.merge')
      return [`#${event.seq} merge lane ${event.lane} ${event.featureId} ${event.outcome} ${event.detail}`];
    if (event.type === 'run.status') return [`status ${event.status} ${event.detail ?? ''}`];
    return [];
  });
  return lines.join('\n');
}

/** Whether `sha` is an ancestor of (or equal to) the run branch's head. */
async function inHistory(workspace: string, sha: string): Promise<boolean> {
  return runGit(openRepo(workspace), ['merge-base', '--is-ancestor', sha, 'HEAD']).then(
    () => true,
    () => false,
  );
}

describe('parallel lanes', () => {
  it('a 4-lane run finishes with every feature passing, lanes overlapping, conflicts merged by rule, no commit lost', async () => {
    const h = await createRunHarness(demoPolicy);
    harness = h;
    await h.startWorker({ concurrency: 2 });
    await h.startWorker({ concurrency: 2 });
    const workspace = path.join(h.root, 'todo');
    const run = await startRun(h.orchestrator, {
      specPath: shortTodoSpec(h.root, 5),
      workspace: { kind: 'local', dir: workspace },
      config: h.config({ lanes: 4 }),
      dataDir: h.dataDir,
    });
    const done = await finished(h, run.id);
    expect(done.status, await story(h, run.id)).toBe('done');
    const features = await h.orchestrator.store.listFeatures(run.id);
    expect(features.map((feature) => feature.passes)).toEqual(features.map(() => true));
    expect(done.lanes).toEqual([]);

    const events = await eventsOf(h, run.id);
    const merges = events.filter((event) => event.type === 'lane.merge');
    const merged = merges.filter((event) => event.outcome === 'merged').map((event) => event.featureId);
    expect(merged.sort()).toEqual(features.map((feature) => feature.id).sort());
    // The todo features register themselves above shared markers: lanes that ran together conflict, and the
    // harness merged those additions by rule (issue 29) — no conflict went back to a generator.
    expect(merges.some((event) => (event.resolved?.length ?? 0) > 0)).toBe(true);
    expect(merges.filter((event) => event.outcome === 'conflict')).toEqual([]);

    const sessions = await sessionsOf(h, run.id);
    const laneSessions = sessions.filter((session) => session.lane !== null);
    expect(new Set(laneSessions.map((session) => session.lane)).size).toBeGreaterThanOrEqual(2);
    const overlapping = laneSessions.some((a) =>
      laneSessions.some(
        (b) =>
          a.seq !== b.seq &&
          a.finishedAt !== null &&
          b.finishedAt !== null &&
          a.startedAt < b.finishedAt &&
          b.startedAt < a.finishedAt,
      ),
    );
    expect(overlapping).toBe(true);
    expect(new Set(laneSessions.map((session) => session.workerId)).size).toBe(2);
    // Every commit a lane session made is in the run branch's final history.
    const commits = laneSessions.flatMap((session) => session.commits);
    expect(commits.length).toBeGreaterThan(0);
    for (const sha of commits) expect(await inHistory(workspace, sha), sha).toBe(true);
  }, 600_000);
});
