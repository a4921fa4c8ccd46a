import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openRepo, runGit } from '../../../handoff/git.js';
import type { RunEvent } from '../../../orchestrator/events.js';
import type { RunRecord, SessionRecord } from '../../../orchestrator/run/index.js';
import { startRun } from '../../../orchestrator/start-run.js';
import { breakingPolicy } from '../../../testkit/policies/breaking.js';
import { createRunHarness, type RunHarness, shortTodoSpec, waitFor } from '../runs/harness.js';

// Parallel lanes on real Redis, git, Chromium and two in-process workers with the scripted model. The generator of
// the remaining count (F-005) breaks completing todos (F-003) on its first try, where no import or changed line of
// its merge leads (testkit/policies/breaking.ts): the merge's affected checks leave F-003 out, the full sweep finds it.
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
    if (event.type === 'feature.regressed')
      return [`  regressed ${event.featureId}: ${event.issues.join('; ')}`];
    if (event.type === 'run.status') return [`status ${event.status} ${event.detail ?? ''}`];
    return [];
  });
  return lines.join('\n');
}

/**
 * Whether `sha` is an ancestor of (or equal to) the run branch's head: their merge base is `sha` itself. (Not
 * `merge-base --is-ancestor`: it answers by its exit code alone, which runGit resolves either way.)
 */
async function inHistory(workspace: string, sha: string): Promise<boolean> {
  const repo = openRepo(workspace);
  const full = (await runGit(repo, ['rev-parse', '--verify', `${sha}^{commit}`])).trim();
  return (await runGit(repo, ['merge-base', full, 'HEAD'])).trim() === full;
}

/**
 * F-005's first merge replayed its own check and what its change can affect, not F-003's; a full sweep found F-003
 * red, bisected it to F-005's merge and sent F-005 back (F-003 stayed passing); F-005's generator took the breakage
 * out, its next merge replayed F-003 too, and the last full sweep was green on the final head.
 */
async function expectBreakageSentBack(h: RunHarness, id: string, done: RunRecord, workspace: string) {
  const events = await eventsOf(h, id);
  const why = await story(h, id);
  const f005Merges = events.flatMap((event) =>
    event.type === 'lane.merge' && event.featureId === 'F-005' && event.outcome === 'merged' ? [event] : [],
  );
  expect(f005Merges.length, why).toBe(2);
  const [first, second] = f005Merges;
  expect(first?.checked, why).toContain('F-005');
  expect(first?.checked, why).not.toContain('F-003');
  expect(second?.checked, why).toEqual(expect.arrayContaining(['F-005', 'F-003']));
  const regressed = events.flatMap((event) => (event.type === 'feature.regressed' ? [event] : []));
  expect(
    regressed.map((event) => event.featureId),
    why,
  ).toEqual(['F-005']);
  expect(regressed[0]?.issues.join('\n'), why).toMatch(
    /^the full sweep found F-003 red: recorded check v\d+ failed/,
  );
  // Back to F-005's lane: a generator on F-005 between the sweep and its second merge, none on F-003 after its pass.
  const sentAt = (regressed[0] as { seq: number }).seq;
  const after = (await sessionsOf(h, id)).filter((session) => session.seq > sentAt);
  expect(after.some((s) => s.role === 'generator' && s.featureIds.includes('F-005') && s.lane !== null)).toBe(
    true,
  );
  expect(after.filter((s) => s.featureIds.includes('F-003'))).toEqual([]);
  // The last full sweep replayed every check green on the final head.
  const finalHead = (await runGit(openRepo(workspace), ['rev-parse', 'HEAD'])).trim();
  expect(done.counters.fullSweep, why).toMatchObject({ mergesSince: 0, greenHead: finalHead });
  // The merge step timed the last sweep: it spaces the next one (mergeChecks.fullSweepMaxShare).
  expect(done.counters.fullSweep.durationMs, why).toBeGreaterThan(0);
  const features = await h.orchestrator.store.listFeatures(id);
  const lastSweep = Math.max(...features.map((feature) => feature.lastCheckedSeq));
  expect(features.map((feature) => feature.lastCheckedSeq)).toEqual(features.map(() => lastSweep));
  expect(lastSweep).toBeGreaterThan(second?.seq ?? Number.POSITIVE_INFINITY);
}

describe('parallel lanes', () => {
  it('a 4-lane run finishes with every feature passing, lanes overlapping, conflicts merged by rule, a breakage outside the affected checks caught by the full sweep and sent back, no commit lost', async () => {
    const h = await createRunHarness(breakingPolicy());
    harness = h;
    await h.startWorker({ concurrency: 2 });
    await h.startWorker({ concurrency: 2 });
    const workspace = path.join(h.root, 'todo');
    const run = await startRun(h.orchestrator, {
      specPath: shortTodoSpec(h.root, 5),
      workspace: { kind: 'local', dir: workspace },
      config: h.config({ lanes: 4, mergeChecks: { fullSweepEveryMerges: 3 } }),
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
    expect([...new Set(merged)].sort()).toEqual(features.map((feature) => feature.id).sort());
    // The todo features register themselves above shared markers: lanes that ran together conflict, and the
    // harness merged those additions by rule (issue 29) — no conflict went back to a generator.
    expect(merges.some((event) => (event.resolved?.length ?? 0) > 0)).toBe(true);
    expect(merges.filter((event) => event.outcome === 'conflict')).toEqual([]);

    await expectBreakageSentBack(h, run.id, done, workspace);

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
