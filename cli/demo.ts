import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { RunConfig } from '../orchestrator/config.js';
import { newRunId } from '../orchestrator/run/index.js';
import { startRun } from '../orchestrator/start-run.js';
import { TODO_FEATURES, withScriptedFeatureCount } from '../testkit/policies/todo-features.js';
import { TODO_SPEC_PATH } from '../testkit/policies/todo-sources.js';
import {
  type CliDeps,
  type OpenCliContext,
  openCliContext,
  orchestratorOptions,
  type ResolvedDeps,
  resolveDeps,
} from './context.js';
import { demoSucceeded, formatDemoSummary, summarizeDemo } from './demo-summary.js';
import { followRun } from './follow.js';
import { positiveInt } from './options.js';
import { preflightForCli } from './preflight.js';
import { type Child, spawnChild } from './processes.js';
import { runElapsedMs } from './status.js';
import { untilSignal } from './worker.js';

/** The model id the demo's scripted server answers to. */
export const DEMO_MODEL = 'anthropic:scripted-demo';
/** A placeholder key: the scripted server accepts anything, and no real key is needed or read. */
const DEMO_API_KEY = 'offline-demo-key';

/** The demo's run config: the scripted model for every role, priced like claude-sonnet-5-5 so costs are shown. */
export function demoRunConfig(): RunConfig {
  return RunConfig.parse({
    models: { initializer: DEMO_MODEL, generator: DEMO_MODEL, evaluator: DEMO_MODEL },
    prices: {
      [DEMO_MODEL]: { inputPerMTok: 3, outputPerMTok: 15, cacheReadPerMTok: 0.3, cacheWritePerMTok: 3.75 },
    },
    budgets: { maxCostUsd: 20, maxSessions: 80 },
  });
}

/**
 * `nightshift demo`: builds the todo example offline from spec to done — Redis (reused or started), the
 * scripted model server, a worker and the dashboard as separate processes — with live progress, then
 * prints what happened. Exit 0 only when every feature passed through the evaluator.
 */
export function registerDemoCommand(program: Command, deps: CliDeps = {}): void {
  program
    .command('demo')
    .description('build the example app offline, end to end, with the scripted model')
    .option('--serve', 'keep the dashboard running after the build (until Ctrl-C)')
    .option(
      '--features <n>',
      `build only the first N of the example's ${TODO_FEATURES.length} features: a shorter demo (5 or more includes the planted bug)`,
      positiveInt('--features'),
    )
    .action((options: DemoOptions) => demoAction(deps, options));
}

/** Options of `nightshift demo`. */
interface DemoOptions {
  serve?: boolean;
  features?: number;
}

/** The action of `nightshift demo`: starts its processes, builds the example, prints the summary. */
async function demoAction(deps: CliDeps, options: DemoOptions): Promise<void> {
  // The demo's run lives beside real runs (same key prefix): `runs`, `status` and `dashboard` show it afterwards.
  const resolved = resolveDeps(deps);
  const context = await openCliContext(orchestratorOptions(resolved));
  const id = newRunId(resolved.now());
  const demoDir = path.join(context.dataDir, 'demo', id);
  const workspace = path.join(demoDir, 'workspace');
  const children: Child[] = [];
  const started = Date.now();
  try {
    resolved.stderr.write(
      `nightshift demo ${id}: starting the scripted model, a worker and the dashboard…\n`,
    );
    const { childEnv, dashboardUrl } = await startDemoProcesses(resolved, context, demoDir, children);
    // The demo goes through the same checks as a real run, its one tiny request answered by the scripted model.
    const config = demoRunConfig();
    await preflightForCli(context, childEnv, config, { stderr: resolved.stderr });
    const specPath = demoSpec(demoDir, options.features);
    const run = await startRun(context.orchestrator, {
      id,
      specPath,
      workspace: { kind: 'local', dir: workspace },
      config,
      dataDir: context.dataDir,
    });
    resolved.stderr.write(`building ${path.relative(process.cwd(), specPath) || specPath} in ${workspace}\n`);
    if (dashboardUrl) resolved.stderr.write(`dashboard: ${dashboardUrl}/runs/${run.id}\n`);
    await followAndSummarize(resolved, context, { runId: run.id, workspace, dashboardUrl, started }, options);
    if (options.serve && dashboardUrl) {
      resolved.stderr.write('the dashboard stays up; Ctrl-C to stop\n');
      await untilSignal();
    }
  } finally {
    await Promise.all(children.reverse().map((child) => child.stop()));
    await context.close();
  }
}

/** Starts the scripted model server, a worker and the dashboard, each pushed onto `children` to be stopped later. */
async function startDemoProcesses(
  resolved: ResolvedDeps,
  context: OpenCliContext,
  demoDir: string,
  children: Child[],
): Promise<{ childEnv: NodeJS.ProcessEnv; dashboardUrl: string | undefined }> {
  const { child: model, first } = await spawnChild<{ anthropicBaseURL: string }>({
    entry: 'testkit/main.ts',
    args: ['testkit/policies/demo.ts'],
    env: { PATH: resolved.env.PATH, NIGHTSHIFT_LOG_LEVEL: 'warn' },
    logFile: path.join(demoDir, 'model-server.log'),
    firstLineJson: true,
  });
  children.push(model);
  const childEnv = {
    ...resolved.env,
    REDIS_URL: context.redisUrl,
    ANTHROPIC_API_KEY: DEMO_API_KEY,
    ANTHROPIC_BASE_URL: first?.anthropicBaseURL,
  };
  const { child: worker } = await spawnChild({
    entry: 'cli/bin.ts',
    args: ['worker'],
    env: childEnv,
    logFile: path.join(demoDir, 'worker.log'),
  });
  children.push(worker);
  const dashboardUrl = await startDashboard(childEnv, demoDir, children, resolved.stderr);
  return { childEnv, dashboardUrl };
}

/** Follows the demo's run to its end, prints the summary and sets the exit code. */
async function followAndSummarize(
  resolved: ResolvedDeps,
  context: OpenCliContext,
  demo: { runId: string; workspace: string; dashboardUrl: string | undefined; started: number },
  options: DemoOptions,
): Promise<void> {
  const { runId, workspace, dashboardUrl } = demo;
  // Its summary tells the verdicts (the bug caught, with the evaluator's words): no line for each here.
  const finished = await followRun(context.orchestrator, runId, {
    stream: resolved.stderr,
    verdictLines: false,
  });
  const { sessions } = await context.orchestrator.store.listSessions(runId, { offset: 0, limit: 500 });
  const summary = await summarizeDemo(workspace, sessions);
  resolved.stdout.write(
    formatDemoSummary({
      run: finished,
      summary,
      elapsedMs: runElapsedMs(finished, new Date()) ?? Date.now() - demo.started,
      workspace,
      // A URL only while the dashboard stays up; otherwise the command that opens it again.
      dashboard:
        options.serve && dashboardUrl
          ? `${dashboardUrl}/runs/${runId}`
          : `nightshift dashboard   (then http://127.0.0.1:${context.config.dashboard.port}/runs/${runId})`,
    }),
  );
  resolved.setExitCode(demoSucceeded(finished, summary) ? 0 : 1);
}

/** Starts the dashboard on a free port; the demo goes on without it if it cannot start. */
async function startDashboard(
  env: NodeJS.ProcessEnv,
  demoDir: string,
  children: Child[],
  stderr: { write(text: string): unknown },
) {
  try {
    const { child, first } = await spawnChild<{ url: string }>({
      entry: 'cli/bin.ts',
      args: ['dashboard', '--port', '0', '--json'],
      env,
      logFile: path.join(demoDir, 'dashboard.log'),
      firstLineJson: true,
    });
    children.push(child);
    return first?.url;
  } catch (error) {
    stderr.write(`the dashboard did not start (${(error as Error).message}); the demo goes on without it\n`);
    return undefined;
  }
}

/**
 * The spec the demo builds: the example's own, or for `--features N` below the whole list a copy in the demo's
 * directory that asks the scripted initializer for the first N features only.
 */
function demoSpec(demoDir: string, features: number | undefined): string {
  if (features === undefined || features >= TODO_FEATURES.length) return TODO_SPEC_PATH;
  const spec = fs.readFileSync(TODO_SPEC_PATH, 'utf8');
  const file = path.join(demoDir, 'app_spec.md');
  fs.mkdirSync(demoDir, { recursive: true });
  fs.writeFileSync(file, withScriptedFeatureCount(spec, features));
  return file;
}
