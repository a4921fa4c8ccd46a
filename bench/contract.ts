/**
 * What the sprint contract saves, in scripted runs: whole runs of an example (real worker, Redis, git, Chromium,
 * the Anthropic SDK against the scripted model) whose generator slips on a text the evaluator looks for at a
 * seeded rate (testkit/policies/careless.ts), once reading the contract in its first message and once not, over
 * several seeds. Reports failed evaluations per feature, sessions and cost per run. Not part of `npm run bench`
 * (whole runs take minutes each): `npx tsx bench/contract.ts [--seeds 3] [--rate 0.5] [--example accounts|todo]`.
 */
process.env.NIGHTSHIFT_LOG_LEVEL ??= 'warn';
const { default: os } = await import('node:os');
const { default: path } = await import('node:path');
const { parseArgs } = await import('node:util');
const { startRun } = await import('../orchestrator/start-run.js');
const { carelessPolicy } = await import('../testkit/policies/careless.js');
const { ACCOUNTS_EXAMPLE, TODO_EXAMPLE } = await import('../testkit/policies/examples.js');
const { startModelServer } = await import('../testkit/server.js');
const { createBrowserPool } = await import('../workers/browser-pool.js');
const { benchRunConfig, openBenchEnv, waitForRunsToEnd } = await import('./wiring.js');

interface Arm {
  readsContract: boolean;
  failedEvaluations: number;
  features: number;
  sessions: number;
  costUsd: number;
  runs: number;
  notDone: string[];
}

const { values } = parseArgs({
  options: {
    seeds: { type: 'string', default: '3' },
    rate: { type: 'string', default: '0.5' },
    example: { type: 'string', default: 'accounts' },
  },
});
const example = values.example === 'todo' ? TODO_EXAMPLE : ACCOUNTS_EXAMPLE;
const specPath = path.join(example.sourcesDir, '..', 'app_spec.md');
const rate = Number(values.rate);
const seeds = Number(values.seeds);

/** One whole run of the example with the careless generator; its failed evaluations, sessions and cost. */
async function oneRun(seed: number, readsContract: boolean) {
  const env = openBenchEnv('contract');
  const server = await startModelServer({ policy: carelessPolicy({ seed, rate, readsContract }) });
  const browser = createBrowserPool();
  try {
    await env.startWorker({ anthropicBaseURL: server.anthropicBaseURL, browser });
    const run = await startRun(env.orchestrator, {
      specPath,
      workspace: { kind: 'local', dir: path.join(env.root, 'ws') },
      config: benchRunConfig(),
      dataDir: env.dataDir,
    });
    const [done] = await waitForRunsToEnd(env.orchestrator, [run.id], 900_000);
    const events = await env.orchestrator.store.readEvents(run.id, { count: 100_000 });
    const failed = events.filter(
      ({ event }) =>
        event.type === 'verdict.applied' && event.mode === 'evaluate' && event.verdict === 'fail',
    ).length;
    const features = (await env.orchestrator.store.listFeatures(run.id)).length;
    return { done, failed, features };
  } finally {
    await env.close();
    await browser.close();
    await server.close();
  }
}

const arms: Arm[] = [true, false].map((readsContract) => ({
  readsContract,
  failedEvaluations: 0,
  features: 0,
  sessions: 0,
  costUsd: 0,
  runs: 0,
  notDone: [],
}));
const started = Date.now();
for (let seed = 1; seed <= seeds; seed++) {
  for (const arm of arms) {
    const { done, failed, features } = await oneRun(seed, arm.readsContract);
    arm.runs += 1;
    arm.failedEvaluations += failed;
    arm.features += features;
    arm.sessions += done?.counters.sessions ?? 0;
    arm.costUsd += done?.counters.costUsd ?? 0;
    if (done?.status !== 'done') arm.notDone.push(`seed ${seed}: ${done?.status}`);
    const load = os.loadavg()[0]?.toFixed(1);
    process.stderr.write(
      `[contract +${Math.round((Date.now() - started) / 1000)}s, load ${load}] seed ${seed} ${arm.readsContract ? 'with' : 'without'} the contract: ${failed} failed evaluation(s) over ${features} features, ${done?.status}\n`,
    );
  }
}
const lines = [
  `Sprint contract, ${example.name} example, slip rate ${rate}, seeds 1–${seeds} (load ${os
    .loadavg()
    .map((v) => v.toFixed(1))
    .join(' ')}):`,
  '| generator | failed evaluations per feature | sessions per run | cost per run | runs not done |',
  '|---|---|---|---|---|',
  ...arms.map(
    (arm) =>
      `| ${arm.readsContract ? 'reads the contract' : 'no contract'} | ${(arm.failedEvaluations / arm.features).toFixed(2)} (${arm.failedEvaluations}/${arm.features}) | ${(arm.sessions / arm.runs).toFixed(1)} | $${(arm.costUsd / arm.runs).toFixed(2)} | ${arm.notDone.join(', ') || 'none'} |`,
  ),
];
process.stdout.write(`${lines.join('\n')}\n`);
