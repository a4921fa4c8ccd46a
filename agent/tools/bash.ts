import os from 'node:os';
import { z } from 'zod';
import { moduleLogger } from '../../core/log.js';
import { dataDir } from '../../core/paths.js';
import { ALWAYS_HIDDEN, sandboxInfo } from '../sandbox/bubblewrap.js';
import { checkCommand, extendPolicy, type PolicyRule } from '../sandbox/policy.js';
import { runSandboxed, type SandboxRunResult } from '../sandbox/run.js';
import { defineTool, type Tool, type ToolContext, ToolError, type ToolOutput } from '../tool.js';
import { isInside, realPathOf } from './paths.js';
import { formatBytes, type TruncatedText } from './truncate.js';

const log = moduleLogger('agent/tools/bash');

/** Options of `createBashTool`. Everything has a default; see each field. */
export interface BashToolOptions {
  /** `auto` (default): bubblewrap when `bwrap` works here, else the weak `none` mode with a warning. `bubblewrap`: require it. */
  sandbox?: 'auto' | 'bubblewrap' | 'none';
  /** Allow network access (default false: a private network namespace, under bubblewrap only). */
  network?: boolean;
  /** Timeout when the model gives none (default 120 s). */
  defaultTimeoutMs?: number;
  /** Upper bound of `timeout_ms` (default 10 min). */
  maxTimeoutMs?: number;
  /** Budget of stdout and of stderr each, head + tail kept (default 30 KB). */
  outputLimitBytes?: number;
  /** Extra absolute paths hidden inside the sandbox (the data dir, `/root`, `/home` and the user's home always are). */
  hiddenPaths?: string[];
  /** Workspace-relative paths bound read-only inside the sandbox (e.g. `feature_list.json`). */
  readOnlyPaths?: string[];
  /** Extra environment variables for commands; secret and harness variables are dropped even here. */
  env?: Record<string, string>;
  /** Rules added to the default deny list. */
  denyList?: PolicyRule[];
  /** Process limit (`ulimit -u`, and a pids cgroup when one can be made; default 512). */
  maxProcesses?: number;
  /** Largest file a command may write (`ulimit -f`; default 1 GiB). */
  maxFileSizeBytes?: number;
}

/** The defaults of `BashToolOptions`. */
export const BASH_DEFAULTS = {
  sandbox: 'auto',
  network: false,
  defaultTimeoutMs: 120_000,
  maxTimeoutMs: 600_000,
  outputLimitBytes: 30 * 1024,
  maxProcesses: 512,
  maxFileSizeBytes: 1024 ** 3,
} as const;

/** Arguments of `bash`. */
export const BashArgs = z.object({
  command: z.string().min(1).describe('The bash command (run with `bash -c` in the workspace root).'),
  timeout_ms: z.number().int().min(1).optional().describe('Timeout in milliseconds (default 120000).'),
});
/** Arguments of `bash`. */
export type BashArgs = z.infer<typeof BashArgs>;

type ResolvedOptions = Required<Omit<BashToolOptions, 'env'>> & { env: Record<string, string> };

function withDefaults(options: BashToolOptions): ResolvedOptions {
  return {
    ...BASH_DEFAULTS,
    hiddenPaths: [],
    readOnlyPaths: [],
    denyList: [],
    ...Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)),
    env: options.env ?? {},
  } as ResolvedOptions;
}

let warnedWeakSandbox = false;

/** Picks the sandbox mode for this call (the bubblewrap probe runs once per process). */
async function chooseMode(
  wanted: ResolvedOptions['sandbox'],
): Promise<{ mode: 'bubblewrap' | 'none'; bwrapPath?: string; userNamespace?: boolean }> {
  if (wanted === 'none') return { mode: 'none' };
  const info = await sandboxInfo();
  if (info.bubblewrap) return { mode: 'bubblewrap', bwrapPath: info.path, userNamespace: info.userNamespace };
  if (wanted === 'bubblewrap') {
    throw new ToolError(`the bubblewrap sandbox is required but not usable: ${info.reason}`);
  }
  if (!warnedWeakSandbox) {
    warnedWeakSandbox = true;
    log.warn(
      { reason: info.reason },
      'bash runs WITHOUT bubblewrap: only a scrubbed environment and the deny list protect the host',
    );
  }
  return { mode: 'none' };
}

/** Real paths of the read-only paths that exist inside the workspace. */
function readOnlyRealPaths(workspace: string, relative: readonly string[]): string[] {
  return relative
    .map((p) => realPathOf(`${workspace}/${p}`))
    .filter(({ real, exists }) => exists && isInside(workspace, real))
    .map(({ real }) => real);
}

function describeStream(name: string, text: TruncatedText): string {
  if (text.totalBytes === 0) return `${name}: (empty)`;
  return `${name}:\n${text.text.endsWith('\n') ? text.text.slice(0, -1) : text.text}`;
}

/** The text the model sees for one command. */
export function formatBashResult(result: SandboxRunResult, timeoutMs: number): string {
  const lines: string[] = [];
  if (result.timedOut) {
    lines.push(
      `exit code: killed (timeout after ${timeoutMs / 1000} s: the command and every process it started were killed)`,
    );
  } else if (result.aborted) {
    lines.push(
      'exit code: killed (the session was stopped: the command and every process it started were killed)',
    );
  } else if (result.exitCode === null) {
    lines.push(`exit code: killed by ${result.signal ?? 'a signal'}`);
  } else {
    lines.push(`exit code: ${result.exitCode}`);
  }
  lines.push(describeStream('stdout', result.stdout), describeStream('stderr', result.stderr));
  return lines.join('\n');
}

function description(options: ResolvedOptions): string {
  return [
    'Run a bash command in the workspace root (`bash -c`). Returns the exit code, stdout and stderr',
    `(each cut to ${formatBytes(options.outputLimitBytes)}, head and tail kept).`,
    `Timeout ${options.defaultTimeoutMs / 1000} s by default (timeout_ms, at most ${options.maxTimeoutMs / 1000} s).`,
    'Every process the command starts is killed when it returns: to test a server, start it in the background,',
    'wait until it answers and query it within the same command.',
    options.network ? '' : 'There is no network access.',
  ]
    .filter(Boolean)
    .join(' ');
}

async function runBash(options: ResolvedOptions, args: BashArgs, ctx: ToolContext): Promise<ToolOutput> {
  const decision = checkCommand(args.command, extendPolicy(options.denyList));
  if (!decision.allowed) throw new ToolError(`command refused by policy: ${decision.reason}`);
  const { mode, bwrapPath, userNamespace } = await chooseMode(options.sandbox);
  const workspace = realPathOf(ctx.workspace);
  if (!workspace.exists) throw new ToolError(`the workspace ${ctx.workspace} does not exist`);
  const timeoutMs = Math.min(args.timeout_ms ?? options.defaultTimeoutMs, options.maxTimeoutMs);
  const result = await runSandboxed({
    command: args.command,
    workspace: workspace.real,
    mode,
    bwrapPath,
    userNamespace,
    network: options.network,
    timeoutMs,
    signal: ctx.signal,
    outputLimitBytes: options.outputLimitBytes,
    hiddenPaths: [...ALWAYS_HIDDEN, os.homedir(), dataDir(), ...options.hiddenPaths],
    readOnlyPaths: readOnlyRealPaths(workspace.real, options.readOnlyPaths),
    env: options.env,
    maxProcesses: options.maxProcesses,
    maxFileSizeBytes: options.maxFileSizeBytes,
  });
  return {
    content: formatBashResult(result, timeoutMs),
    details: {
      exitCode: result.exitCode,
      timedOut: result.timedOut,
      aborted: result.aborted,
      sandbox: mode,
      durationMs: result.durationMs,
      stdoutBytes: result.stdout.totalBytes,
      stderrBytes: result.stderr.totalBytes,
      killedPids: result.killedPids,
    },
  };
}

/**
 * The `bash` tool. Under bubblewrap (default when available) the command sees a read-only host,
 * a writable workspace, a private /tmp and HOME, hidden home directories and data dir, no network
 * and no harness processes. Without it (`none`), only the scrubbed environment, the deny list and
 * the process cleanup apply: other processes' /proc entries remain visible. See agent/sandbox/run.ts.
 */
export function createBashTool(options: BashToolOptions = {}): Tool<typeof BashArgs> {
  const resolved = withDefaults(options);
  return defineTool({
    name: 'bash',
    description: description(resolved),
    parameters: BashArgs,
    async execute(args, ctx) {
      return runBash(resolved, BashArgs.parse(args), ctx);
    },
  });
}
