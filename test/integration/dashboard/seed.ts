// Seeds realistic run state through the real RunStore (Redis) for the dashboard tests, benchmark and screenshots.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Redis } from 'ioredis';
import { transcriptPath } from '../../../dashboard/paths.js';
import { writeFeedback } from '../../../handoff/feedback.js';
import type { Feature, VerdictRecord, VerdictValue } from '../../../handoff/formats.js';
import { appendVerdict } from '../../../handoff/verdicts.js';
import type { RunConfigInput } from '../../../orchestrator/config.js';
import type { RunRecord } from '../../../orchestrator/run/index.js';
import { RunStore } from '../../../orchestrator/run/index.js';
import type { SessionResult } from '../../../roles/session-result.js';

const CATEGORIES: Record<string, string[]> = {
  'Task list': [
    'Add a task from the input box',
    'Edit a task title inline',
    'Delete a task with undo',
    'Reorder tasks by drag and drop',
    'Show an empty state',
  ],
  Filtering: [
    'Filter active tasks',
    'Filter completed tasks',
    'Search tasks by title',
    'Keep the filter in the URL',
  ],
  Persistence: ['Tasks survive a reload', 'Sync across two tabs', 'Export tasks as JSON'],
  Accounts: ['Sign up with email', 'Log in and out', 'Reset a forgotten password'],
  Accessibility: [
    'Keyboard navigation of the list',
    'Screen reader labels on controls',
    'Visible focus ring',
  ],
  'UI polish': ['Dark mode toggle', 'Responsive layout on phones', 'Toast on save errors'],
};

/** A clock the store uses, advanced by the seeding so timestamps spread over hours. */
export class SteppingClock {
  constructor(public ms: number) {}
  now = (): Date => new Date(this.ms);
  advance(ms: number): void {
    this.ms += ms;
  }
}

/** A connected store under a unique prefix, and a cleanup that deletes every key of that prefix. */
export async function openStore(
  clock?: SteppingClock,
): Promise<{ redis: Redis; store: RunStore; prefix: string; cleanup(): Promise<void> }> {
  const redis = new Redis('redis://127.0.0.1:6379', { lazyConnect: false, maxRetriesPerRequest: 3 });
  const prefix = `nstest-dash-${process.pid}-${Date.now().toString(36)}:`;
  const store = new RunStore(redis, { prefix, now: clock?.now });
  return {
    redis,
    store,
    prefix,
    async cleanup() {
      await store.close();
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
        cursor = next;
        if (keys.length) await redis.del(...keys);
      } while (cursor !== '0');
      await redis.quit();
    },
  };
}

/** `n` features in realistic categories (cycling through the names above). */
export function makeFeatures(n: number): Feature[] {
  const names = Object.entries(CATEGORIES).flatMap(([category, list]) =>
    list.map((name) => ({ category, name })),
  );
  return Array.from({ length: n }, (_, i) => {
    const { category, name } = names[i % names.length]!;
    const round = Math.floor(i / names.length);
    return {
      id: `F-${String(i + 1).padStart(3, '0')}`,
      category,
      description: round ? `${name} (variant ${round + 1})` : name,
      steps: ['Open the app', `${name}: perform the action`, 'Check the result on screen'],
      passes: false,
    };
  });
}

/** A plausible session result (tokens, cost, commits) for the seeded history. */
export function seededResult(
  role: SessionResult['role'],
  featureIds: string[],
  startedAt: string,
  durationMs: number,
  verdicts: VerdictRecord[],
  i: number,
): SessionResult {
  const input = 18_000 + ((i * 7919) % 40_000);
  return {
    role,
    featureIds,
    outcome: 'completed',
    model: 'anthropic:claude-sonnet-4-5',
    startCommit: 'a'.repeat(40),
    endCommit: 'b'.repeat(40),
    commits: role === 'generator' ? ['b'.repeat(40)] : [],
    usage: {
      inputTokens: input,
      outputTokens: Math.round(input / 9),
      cacheReadTokens: Math.round(input * 3.2),
      cacheWriteTokens: 1200,
    },
    costUsd: Number(((input / 1_000_000) * 3 + (input / 9 / 1_000_000) * 15).toFixed(4)),
    steps: 6 + (i % 20),
    startedAt,
    durationMs,
    violations: [],
    verdicts,
  };
}

/** Options of seedRun. */
export interface SeedOptions {
  features: number;
  /** Sessions after the initializer (alternating generator / evaluator). */
  sessions: number;
  specName?: string;
  workspace: string;
  /** Decides each evaluation's verdict (default: every third fails). */
  verdictFor?: (featureIndex: number, attempt: number) => VerdictValue;
  clock: SteppingClock;
  status?: 'building' | 'paused';
  /** The run's config (default: the defaults). */
  config?: RunConfigInput;
  /** Changes the generated feature list before it is stored (a hostile name, dependencies). */
  editFeatures?: (features: Feature[]) => Feature[];
  /** Also append each verdict to the workspace's `.nightshift/verdicts.jsonl` and write feedback, like the harness. */
  recordVerdicts?: boolean;
}

/**
 * A run with a feature list and a session history: initializer, then generator → evaluator pairs walking the
 * features in order (a failed feature is retried until it passes or is blocked), all through RunStore.
 */
export async function seedRun(store: RunStore, options: SeedOptions): Promise<RunRecord> {
  const { clock } = options;
  // A workspace exists before anything is written into it (the harness's writes never create it).
  if (options.recordVerdicts) await mkdir(options.workspace, { recursive: true });
  const run = await store.createRun({
    spec: { path: `/specs/${options.specName ?? 'todo'}.md`, name: options.specName ?? 'todo-app' },
    workspace: { kind: 'local', path: options.workspace },
    config: options.config ?? {},
  });
  const made = makeFeatures(options.features);
  const features = options.editFeatures ? options.editFeatures(made) : made;
  await store.setStatus(run.id, 'initializing');
  const seq1 = await store.nextSeq(run.id);
  await store.recordSessionStarted(run.id, {
    seq: seq1,
    jobId: `${run.id}-${seq1}`,
    role: 'initializer',
    kind: 'initialize',
    featureIds: [],
    workerId: 'w1',
  });
  clock.advance(95_000);
  await store.recordSessionResult(
    run.id,
    seq1,
    seededResult('initializer', [], clock.now().toISOString(), 95_000, [], 0),
    { features },
  );
  await store.setStatus(run.id, 'building');
  const verdictFor =
    options.verdictFor ??
    ((index, attempt) => ((index % 3 === 2 && attempt === 0) || index % 17 === 16 ? 'fail' : 'pass'));
  let featureIndex = 0;
  let attempt = 0;
  for (let i = 0; i < options.sessions && featureIndex < features.length; i += 2) {
    const feature = features[featureIndex]!;
    for (const role of ['generator', 'evaluator'] as const) {
      if (role === 'evaluator' && i + 1 >= options.sessions) break;
      const seq = await store.nextSeq(run.id);
      const startedAt = clock.now().toISOString();
      await store.recordSessionStarted(run.id, {
        seq,
        jobId: `${run.id}-${seq}`,
        role,
        kind: role === 'generator' ? 'generate' : 'evaluate',
        featureIds: [feature.id],
        workerId: 'w1',
      });
      const durationMs =
        role === 'generator' ? 240_000 + ((seq * 37) % 300) * 1000 : 70_000 + ((seq * 13) % 60) * 1000;
      clock.advance(durationMs);
      const verdicts: VerdictRecord[] = [];
      if (role === 'evaluator') {
        const verdict = verdictFor(featureIndex, attempt);
        verdicts.push({
          featureId: feature.id,
          verdict,
          steps: feature.steps.map((step, k) => ({
            step,
            ok: verdict === 'pass' || k < 2,
            evidence: verdict === 'pass' || k < 2 ? 'as expected' : 'the new item did not appear',
          })),
          issues: verdict === 'pass' ? [] : ['After submitting, the list still shows the old state.'],
          mode: 'evaluate',
          runId: run.id,
          session: seq,
          at: clock.now().toISOString(),
          evidence: [
            `runs/${run.id}/evidence/${seq}/01-start.png`,
            `runs/${run.id}/evidence/${seq}/trace.zip`,
          ],
        });
      }
      const outcome = await store.recordSessionResult(
        run.id,
        seq,
        seededResult(role, [feature.id], startedAt, durationMs, verdicts, seq),
      );
      for (const record of options.recordVerdicts ? verdicts : []) {
        await appendVerdict(options.workspace, record);
        await writeFeedback(options.workspace, record);
      }
      if (role === 'evaluator') {
        const settled = outcome.events.some(
          (e) =>
            (e.type === 'verdict.applied' && e.passes) ||
            (e.type === 'feature.blocked' && e.featureId === feature.id),
        );
        if (settled) {
          featureIndex++;
          attempt = 0;
        } else attempt++;
      }
    }
  }
  if (options.status === 'paused')
    await store.setStatus(run.id, 'paused', { reason: 'budget', detail: 'spent $20.00 of $20.00' });
  return store.getRun(run.id);
}

/** Writes a transcript file for session `seq` with the given assistant text. */
export async function writeTranscript(
  dataDir: string,
  runId: string,
  seq: number,
  assistantText: string,
): Promise<void> {
  const file = transcriptPath(dataDir, runId, seq);
  await mkdir(path.dirname(file), { recursive: true });
  const at = new Date().toISOString();
  const lines = [
    { kind: 'system', at, system: 'You are the generator.', tools: ['read', 'write', 'bash'] },
    { kind: 'message', at, message: { role: 'user', content: [{ type: 'text', text: 'Implement F-001.' }] } },
    {
      kind: 'message',
      at,
      message: {
        role: 'assistant',
        content: [
          { type: 'text', text: assistantText },
          { type: 'tool_call', id: 'c1', name: 'bash', arguments: { command: 'npm test' } },
        ],
      },
    },
    {
      kind: 'message',
      at,
      message: {
        role: 'user',
        content: [{ type: 'tool_result', toolCallId: 'c1', content: `ok ${assistantText}`, isError: false }],
      },
    },
    {
      kind: 'event',
      at,
      event: {
        type: 'session.ended',
        at,
        sessionId: 's',
        outcome: 'completed',
        steps: 2,
        usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
        costUsd: 0.01,
        durationMs: 1000,
      },
    },
  ];
  await writeFile(file, `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
}
