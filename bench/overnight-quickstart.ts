/**
 * The quickstart-style loop the overnight bench compares nightshift with, built on the agent loop (agent/) alone:
 * what Anthropic's autonomous-coding quickstart does, with the same simulated model and the same mistakes.
 *
 * What it models: one initializer session, then one agent session per feature in list order, each in a fresh
 * context with the feature, its last self-check output and a list of passing features to re-check; the model first
 * re-runs the shell checks of the two features that passed last (the quickstart's "verify a few passing features"),
 * then implements its feature and checks it itself from the shell (curl against the started app). No independent
 * evaluator: a green self-check marks the feature passing (the quickstart's agent edits `passes` itself), a red
 * re-check marks that feature failing again. It never gives up on a feature (no blocking) and pauses 3 s between
 * sessions (divided by the compression, like the model's turns). Commits go through a plain `git commit`; the work
 * of a session that forgot to commit stays in the working tree for the next one, as it would.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AgentEvent } from '../agent/events.js';
import { runAgent } from '../agent/loop.js';
import type { Usage } from '../agent/messages.js';
import { createProvider } from '../agent/providers/index.js';
import type { Tool, ToolOutput } from '../agent/tool.js';
import { type Committer, createBashTool, createCommitTool, createFileTools } from '../agent/tools/index.js';
import { exitCodeOf } from '../testkit/policies/script.js';
import { withScriptedFeatureCount } from '../testkit/policies/todo-features.js';
import { startModelServer } from '../testkit/server.js';
import { RECHECK_HEADING, recheckPassedMessage, simulatedModel } from '../testkit/simulated/index.js';
import type { OvernightExample } from './overnight-examples.js';
import {
  addUsage,
  countKinds,
  NO_USAGE,
  type OvernightBuild,
  projectWall,
  type Span,
  sonnetDollars,
  tokenFigures,
  unionMs,
  workingTree,
} from './overnight-figures.js';

/** The quickstart's pause between sessions, before compression. */
const PAUSE_MS = 3_000;
/** What the shell check prints when the app itself did not come up (testkit/policies/todo-features.ts). */
const APP_DID_NOT_START = /the app (exited before answering|did not answer)/;
/** Passing features the model re-checks at the start of a session. */
const RECHECKS = 2;

/** What one quickstart build needs. */
export interface QuickstartOptions {
  example: OvernightExample;
  /** The loopback registry npm installs from (examples that install packages). */
  npmRegistry?: string | undefined;
  seed: number;
  compression: number;
  features: number;
  /** Where the workspace goes (a fresh folder). */
  dir: string;
}

/** The log of a quickstart build, filled as sessions end. */
interface LoopLog {
  events: AgentEvent[];
  sessionSpans: Span[];
  pauseSpans: Span[];
  usage: Usage;
  sessions: number;
  failedSelfChecks: number;
  regressionsCaughtByModel: number;
}

/** One build's workspace, model server and log. */
interface LoopRun {
  dir: string;
  baseURL: string;
  npmRegistry: string | undefined;
  log: LoopLog;
}

interface FeatureEntry {
  description: string;
  passes: boolean;
}

const git = (dir: string, args: string[]) =>
  execFileSync('git', ['-C', dir, '-c', 'user.name=quickstart', '-c', 'user.email=q@example.test', ...args], {
    encoding: 'utf8',
  }).trim();

/** `git add -A && git commit` in the workspace, as the quickstart's agent runs it. */
function gitCommitter(dir: string): Committer {
  return async (message) => {
    git(dir, ['add', '-A']);
    if (git(dir, ['status', '--porcelain']) === '') throw new Error('nothing to commit, working tree clean');
    git(dir, ['commit', '-q', '-m', message]);
    const files = git(dir, ['diff-tree', '--no-commit-id', '--name-status', '-r', 'HEAD']);
    return { sha: git(dir, ['rev-parse', 'HEAD']), files: files.split('\n').filter(Boolean) };
  };
}

/** The agent's tools; with a registry, npm in bash installs from it (and only from it). */
function tools(dir: string, npmRegistry: string | undefined): Tool[] {
  const network = npmRegistry
    ? { network: 'registries' as const, npmRegistry }
    : { network: 'none' as const };
  return [
    ...createFileTools(),
    createBashTool({ sandbox: 'none', ...network }) as unknown as Tool,
    createCommitTool(gitCommitter(dir)) as unknown as Tool,
  ];
}

/** One agent session; returns the outputs of its bash calls by command. */
async function session(
  run: LoopRun,
  system: string,
  firstMessage: string,
): Promise<{ bash: Array<{ command: string; output: ToolOutput }>; rateLimitedMs: number | null }> {
  const bash: Array<{ command: string; output: ToolOutput }> = [];
  const started = Date.now();
  const env = { ANTHROPIC_API_KEY: 'sk-ant-bench-000000', ANTHROPIC_BASE_URL: run.baseURL };
  const result = await runAgent({
    sessionId: `quickstart-${run.log.sessions + 1}`,
    provider: createProvider('anthropic:simulated', { env, maxRetries: 0 }),
    system,
    firstMessage,
    tools: tools(run.dir, run.npmRegistry),
    toolContext: { workspace: run.dir, protectedPaths: [] },
    limits: { maxSteps: 40, maxWallMs: 1_800_000 },
    sink: (event) => run.log.events.push(event),
    hooks: {
      afterToolCall: (call, output) => {
        if (call.name === 'bash') bash.push({ command: String(call.arguments.command ?? ''), output });
      },
    },
  });
  run.log.sessionSpans.push([started, Date.now()]);
  run.log.sessions += 1;
  run.log.usage = addUsage(run.log.usage, result.usage);
  const rateLimitedMs = result.outcome === 'rate_limited' ? (result.failure?.retryAfterMs ?? 1_000) : null;
  return { bash, rateLimitedMs };
}

const SYSTEM_INITIALIZER =
  'You are the initializer agent of a long-running coding loop. Read the spec, write feature_list.json (every ' +
  'feature failing), init.sh and a skeleton app, check it starts, and commit.';
const SYSTEM_CODER =
  'You are a generator: a coding agent in a long-running loop with a fresh context each session. First re-check ' +
  'the passing features you are told to, then implement the ONE feature you are given, test it yourself, and commit.';

function readList(dir: string): FeatureEntry[] {
  return JSON.parse(fs.readFileSync(path.join(dir, 'feature_list.json'), 'utf8')) as FeatureEntry[];
}

const idOf = (index: number) => `F-${String(index + 1).padStart(3, '0')}`;

/** The brief of a feature's session: the feature, its last self-check output, the features to re-check. */
function brief(list: FeatureEntry[], index: number, feedback: string | undefined, recheck: number[]): string {
  const feature = list[index] as FeatureEntry;
  return [
    `# Feature ${idOf(index)}: ${feature.description}`,
    '',
    ...(feedback ? ['## Feedback from your last self-check', '', feedback, ''] : []),
    ...(recheck.length ? [RECHECK_HEADING, '', ...recheck.map((at) => `- ${idOf(at)}`), ''] : []),
  ].join('\n');
}

/** Applies a session's self-checks to the list (the agent edits `passes`); returns the feature's check output. */
function applySelfChecks(
  list: FeatureEntry[],
  index: number,
  bash: Array<{ command: string; output: ToolOutput }>,
  log: LoopLog,
): { verified: boolean; output: string } {
  for (const [at, entry] of list.entries()) {
    const recheck = bash.find((call) => call.command.includes(recheckPassedMessage(idOf(at))));
    // A re-check that could not start the app says nothing of the feature: the model fixes the start instead.
    const failed =
      recheck && exitCodeOf(recheck.output.content) !== 0 && !APP_DID_NOT_START.test(recheck.output.content);
    if (failed && entry.passes) {
      entry.passes = false;
      log.regressionsCaughtByModel += 1;
    }
  }
  const own = bash.filter((call) => call.command.includes(`${idOf(index)} checks passed`)).at(-1);
  const verified = own !== undefined && exitCodeOf(own.output.content) === 0;
  if (verified) (list[index] as FeatureEntry).passes = true;
  else log.failedSelfChecks += 1;
  return { verified, output: own?.output.content.split('\n').slice(-25).join('\n') ?? 'No self-check ran.' };
}

/** The feature sessions until every feature passes by the loop's own account (or the session cap). */
async function featureLoop(run: LoopRun, options: QuickstartOptions) {
  const feedback = new Map<number, string>();
  const passedOrder: number[] = [];
  const cap = options.features * 6;
  while (run.log.sessions < cap) {
    const list = readList(run.dir);
    const index = list.findIndex((entry) => !entry.passes);
    if (index < 0) return;
    const recheck = passedOrder.filter((at) => list[at]?.passes).slice(-RECHECKS);
    const { bash, rateLimitedMs } = await session(
      run,
      SYSTEM_CODER,
      brief(list, index, feedback.get(index), recheck),
    );
    if (rateLimitedMs !== null) {
      await sleep(rateLimitedMs);
      continue;
    }
    const { verified, output } = applySelfChecks(list, index, bash, run.log);
    if (verified) {
      feedback.delete(index);
      passedOrder.push(index);
    } else feedback.set(index, output);
    fs.writeFileSync(path.join(run.dir, 'feature_list.json'), `${JSON.stringify(list, null, 2)}\n`);
    const pauseStart = Date.now();
    await sleep(PAUSE_MS / options.compression);
    run.log.pauseSpans.push([pauseStart, Date.now()]);
  }
}

/** Builds the example's first `features` features with the quickstart-style loop and measures it. */
export async function buildWithQuickstart(options: QuickstartOptions): Promise<OvernightBuild> {
  const model = simulatedModel({ seed: options.seed, latency: { compression: options.compression } });
  const server = await startModelServer({ policy: model.policy });
  const log: LoopLog = {
    events: [],
    sessionSpans: [],
    pauseSpans: [],
    usage: NO_USAGE,
    sessions: 0,
    failedSelfChecks: 0,
    regressionsCaughtByModel: 0,
  };
  try {
    fs.mkdirSync(options.dir, { recursive: true });
    git(options.dir, ['init', '-q', '-b', 'main']);
    const run = { dir: options.dir, baseURL: server.anthropicBaseURL, npmRegistry: options.npmRegistry, log };
    const spec = withScriptedFeatureCount(
      fs.readFileSync(options.example.specPath, 'utf8'),
      options.features,
    );
    const started = Date.now();
    await session(run, SYSTEM_INITIALIZER, spec);
    await featureLoop(run, options);
    const wallMs = Date.now() - started;
    const mistakes = model.mistakes().map((mistake) => mistake.kind);
    return quickstartFigures(options, log, wallMs, mistakes, server.requests.length);
  } finally {
    await server.close();
  }
}

function quickstartFigures(
  options: QuickstartOptions,
  log: LoopLog,
  wallMs: number,
  mistakes: string[],
  modelRequests: number,
): OvernightBuild {
  const list = readList(options.dir);
  const read = workingTree(options.dir);
  const works = list.map((_entry, index) => options.example.works(read, index));
  const modelSpans = log.events.flatMap((event): Span[] =>
    event.type === 'model.usage' ? [[Date.parse(event.at) - event.durationMs, Date.parse(event.at)]] : [],
  );
  const toolMs = log.events.reduce(
    (sum, event) => sum + (event.type === 'tool.ended' ? event.durationMs : 0),
    0,
  );
  const modelMs = modelSpans.reduce((sum, [start, end]) => sum + (end - start), 0);
  const sessionMs = log.sessionSpans.reduce((sum, [start, end]) => sum + (end - start), 0);
  const pauseMs = unionMs(log.pauseSpans) * options.compression;
  return {
    name: 'quickstart',
    label: 'quickstart-style loop',
    status: works.every(Boolean) ? 'done' : 'done (claimed)',
    features: list.length,
    claimedPassing: list.filter((entry) => entry.passes).length,
    passing: works.filter(Boolean).length,
    falsePasses: list.filter((entry, index) => entry.passes && !works[index]).length,
    blocked: 0,
    falseBlocks: 0,
    measuredWallMs: wallMs,
    projectedWallMs: projectWall(wallMs, [...modelSpans, ...log.pauseSpans], options.compression),
    sessions: log.sessions,
    modelRequests,
    tokens: tokenFigures(log.usage),
    costUsd: sonnetDollars(log.usage),
    failedEvaluations: log.failedSelfChecks,
    regressionsCaughtByChecks: 0,
    regressionsCaughtByModel: log.regressionsCaughtByModel,
    regressionsMade: mistakes.filter((kind) => kind === 'regression').length,
    mistakesMade: countKinds(mistakes),
    checksGreen: null,
    merges: {},
    byRole: {
      session: { sessions: log.sessions, turns: modelRequests, costUsd: sonnetDollars(log.usage) },
    },
    phases: {
      modelWait: modelMs * options.compression,
      toolsBash: toolMs,
      appStart: 0,
      evaluationBrowser: 0,
      gitHandoff: Math.max(0, sessionMs - modelMs - toolMs),
      mergeQueue: 0,
      idle: Math.max(0, wallMs - unionMs(log.sessionSpans)) - unionMs(log.pauseSpans) + pauseMs,
    },
  };
}
