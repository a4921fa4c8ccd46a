/**
 * Recovery after a worker is killed, nightshift's failover settings side by side with BullMQ's defaults: the
 * todo run on a bare remote (test/chaos/rig.ts), `nightshift worker` processes on a private redis-server;
 * SIGKILL of the worker running a session (a generator or an evaluator, alternately, so no job is killed
 * twice) → the run's next model request. First with one worker (restarted after each kill), then with a
 * second worker already running. Before the run: Redis commands per second of one idle worker process
 * (`INFO commandstats` before and after). The Redis master killed under Sentinel is the section's other part
 * (recovery-sentinel.ts); `--recovery workers|sentinel` measures one of the two.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import {
  BULLMQ_FAILOVER_DEFAULTS,
  FAILOVER_DEFAULTS,
  type FailoverConfig,
} from '../orchestrator/failover.js';
import { recoveryFigure } from '../test/chaos/figures.js';
import { sleep } from '../test/chaos/helpers.js';
import { ChaosRig } from '../test/chaos/rig.js';
import { measureSentinelRecovery, Recovery, SentinelRecovery } from './recovery-sentinel.js';

const SPEC = fileURLToPath(new URL('../examples/todo/app_spec.md', import.meta.url));
/** How long the idle worker's Redis traffic is counted (longer than one 30 s reconcile tick). */
const IDLE_WINDOW_MS = 40_000;

/** One variant's figures: recovery in seconds per mode, and an idle worker's Redis traffic. */
export const RecoveryVariant = z.object({
  settings: z.object({
    lockDurationMs: z.number(),
    lockRenewMs: z.number(),
    stalledIntervalMs: z.number(),
    maxStalledCount: z.number(),
  }),
  restarted: Recovery,
  secondWorker: Recovery,
  idleCommandsPerSecond: z.number(),
  /** The busiest commands of the idle worker, calls per second. */
  idleTopCommands: z.record(z.string(), z.number()),
});

/** The recovery section of the report. */
export const RecoveryResult = z.object({
  killsPerMode: z.number().int(),
  nightshift: RecoveryVariant,
  bullmqDefaults: RecoveryVariant,
  /** The Redis master killed under a Sentinel set (absent in results recorded before issue 31). */
  sentinel: SentinelRecovery.optional(),
});
export type RecoveryResult = z.infer<typeof RecoveryResult>;

/** The parts of the recovery section (`--recovery workers,sentinel`): worker kills, master kills. */
export const RECOVERY_PARTS = ['workers', 'sentinel'] as const;
export type RecoveryPart = (typeof RECOVERY_PARTS)[number];

/** `cmdstat_<name>:calls=<n>` of INFO commandstats. */
function commandCalls(port: number): Map<string, number> {
  const info = execFileSync('redis-cli', ['-p', String(port), 'info', 'commandstats'], { encoding: 'utf8' });
  const calls = new Map<string, number>();
  for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm))
    calls.set(match[1] as string, Number(match[2]));
  return calls;
}

/** Commands per second of one idle worker process (nothing else talks to this Redis meanwhile). */
async function idleTraffic(rig: ChaosRig): Promise<{ total: number; top: Record<string, number> }> {
  rig.startWorker();
  await sleep(5_000);
  const before = commandCalls(rig.redis.port);
  await sleep(IDLE_WINDOW_MS);
  const after = commandCalls(rig.redis.port);
  const perSecond = [...after.entries()]
    .map(([name, calls]) => [name, (calls - (before.get(name) ?? 0)) / (IDLE_WINDOW_MS / 1000)] as const)
    .filter(([name, rate]) => rate > 0 && name !== 'info')
    .sort((a, b) => b[1] - a[1]);
  const total = perSecond.reduce((sum, [, rate]) => sum + rate, 0);
  const top = Object.fromEntries(
    perSecond.slice(0, 5).map(([name, rate]) => [name, Number(rate.toFixed(2))]),
  );
  return { total: Number(total.toFixed(2)), top };
}

/** `kills` kills of the busy worker, alternating generator and evaluator sessions; recoveries in ms. */
async function killRounds(rig: ChaosRig, kills: number): Promise<number[]> {
  const recoveries: number[] = [];
  let since = Date.now();
  for (let index = 0; index < kills; index++) {
    await rig.moment(index % 2 === 0 ? 'generator' : 'evaluator', since);
    const kill = await rig.killBusy();
    if (!kill.killed) continue;
    recoveries.push(await rig.recovery(kill.at, true));
    since = Date.now();
  }
  return recoveries;
}

async function measureVariant(settings: FailoverConfig, kills: number, log: (line: string) => void) {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ns-recovery-')));
  const rig = new ChaosRig({ root, failover: settings });
  try {
    await rig.start();
    const idle = await idleTraffic(rig);
    log(`idle worker: ${idle.total} Redis commands/s`);
    await rig.register(SPEC);
    const restarted = await killRounds(rig, kills);
    log(`one worker, restarted: ${restarted.map((ms) => (ms / 1000).toFixed(1)).join(', ')} s`);
    const second = rig.startWorker();
    await rig.until('the second worker up', () => second.readyAt !== undefined, 180_000);
    const secondWorker = await killRounds(rig, kills);
    log(`second worker running: ${secondWorker.map((ms) => (ms / 1000).toFixed(1)).join(', ')} s`);
    return RecoveryVariant.parse({
      settings,
      restarted: recoveryFigure(restarted),
      secondWorker: recoveryFigure(secondWorker),
      idleCommandsPerSecond: idle.total,
      idleTopCommands: idle.top,
    });
  } finally {
    await rig.stop();
    fs.rmSync(root, { recursive: true, force: true });
  }
}

/**
 * Measures the parts asked for: worker kills (both variants, nightshift's first) and master kills under Sentinel;
 * a part left out is kept from `previous` (a whole recovery section takes half an hour on a loaded machine).
 */
export async function measureRecovery(options: {
  killsPerMode: number;
  failovers: number;
  parts: ReadonlySet<RecoveryPart>;
  previous?: RecoveryResult;
  /** Told when a part starts (the bench records the load then). */
  mark: (part: string) => void;
  log: (line: string) => void;
}): Promise<RecoveryResult> {
  const { previous, parts } = options;
  let workers: Omit<RecoveryResult, 'sentinel'> | undefined = previous;
  if (parts.has('workers')) {
    options.mark('recovery: worker killed, nightshift failover vs BullMQ defaults');
    const nightshift = await measureVariant(FAILOVER_DEFAULTS, options.killsPerMode, options.log);
    const bullmqDefaults = await measureVariant(BULLMQ_FAILOVER_DEFAULTS, options.killsPerMode, options.log);
    workers = { killsPerMode: options.killsPerMode, nightshift, bullmqDefaults };
  }
  if (!workers) throw new Error('--recovery leaves out "workers", but bench/results/latest.json has none');
  let sentinel = previous?.sentinel;
  if (parts.has('sentinel')) {
    options.mark('recovery: Redis master killed under Sentinel');
    sentinel = await measureSentinelRecovery({ failovers: options.failovers, log: options.log });
  }
  const { killsPerMode, nightshift, bullmqDefaults } = workers;
  return { killsPerMode, nightshift, bullmqDefaults, ...(sentinel ? { sentinel } : {}) };
}
