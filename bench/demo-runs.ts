/**
 * Real runs of the todo demo (scripted model, zero latency) through a real in-process worker, one session
 * at a time, with every record a handoff analysis needs: events, job times, git spans, request log.
 */
import path from 'node:path';
import type { RunEvent } from '../orchestrator/events.js';
import type { Orchestrator } from '../orchestrator/orchestrator.js';
import { startRun } from '../orchestrator/start-run.js';
import demoPolicy from '../testkit/policies/demo.js';
import { startModelServer } from '../testkit/server.js';
import type { RecordedRequest } from '../testkit/types.js';
import { type GitSpan, recordGitSpans } from './git-spans.js';
import type { JobTimes } from './handoff-analysis.js';
import { benchRunConfig, openBenchEnv, waitForRunsToEnd } from './wiring.js';

/** The spec the demo builds. */
export const DEMO_SPEC = 'examples/todo/app_spec.md';

/** Everything recorded about one demo run. */
export interface DemoRunRecord {
  runId: string;
  status: string;
  sessions: number;
  wallMs: number;
  events: RunEvent[];
  jobs: Map<number, JobTimes>;
  gitSpans: GitSpan[];
  requests: RecordedRequest[];
}

async function readAllEvents(orchestrator: Orchestrator, runId: string): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await orchestrator.store.readEvents(runId, { count: 1000, ...(after ? { after } : {}) });
    events.push(...page.map((entry) => entry.event));
    if (page.length < 1000) return events;
    after = page.at(-1)?.id;
  }
}

async function jobTimes(
  orchestrator: Orchestrator,
  runId: string,
  seqs: number,
): Promise<Map<number, JobTimes>> {
  const times = new Map<number, JobTimes>();
  for (let seq = 1; seq <= seqs; seq++) {
    const job = await orchestrator.queues.sessions.getJob(`${runId}-${seq}`);
    if (job?.timestamp && job.processedOn)
      times.set(seq, { enqueuedAt: job.timestamp, pickedAt: job.processedOn });
  }
  return times;
}

/** Runs the demo once, start to end, and returns its records; throws when it does not finish `done`. */
export async function recordDemoRun(timeoutMs = 600_000): Promise<DemoRunRecord> {
  const git = recordGitSpans();
  const server = await startModelServer({ policy: demoPolicy });
  const env = openBenchEnv('demo');
  try {
    await env.startWorker({ anthropicBaseURL: server.anthropicBaseURL, concurrency: 1 });
    const started = Date.now();
    const run = await startRun(env.orchestrator, {
      specPath: DEMO_SPEC,
      workspace: { kind: 'local', dir: path.join(env.root, 'todo') },
      config: benchRunConfig(),
      dataDir: env.dataDir,
    });
    const [done] = await waitForRunsToEnd(env.orchestrator, [run.id], timeoutMs);
    const wallMs = Date.now() - started;
    if (done?.status !== 'done') throw new Error(`the demo run ended ${done?.status}: ${done?.detail ?? ''}`);
    return {
      runId: run.id,
      status: done.status,
      sessions: done.counters.sessions,
      wallMs,
      events: await readAllEvents(env.orchestrator, run.id),
      jobs: await jobTimes(env.orchestrator, run.id, done.seq),
      gitSpans: [...git.spans],
      requests: [...server.requests],
    };
  } finally {
    git.stop();
    await env.close();
    await server.close();
  }
}
