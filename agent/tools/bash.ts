import os from 'node:os';
import { z } from 'zod';
import type { BoxForward } from '../../box/box.js';
import { ALWAYS_HIDDEN } from '../../box/bubblewrap.js';
import type { EgressRefusal } from '../../box/egress-proxy.js';
import { BOX_LIMIT_DEFAULTS } from '../../box/limits.js';
import { resolveSandbox, type SandboxChoice, SandboxUnavailableError } from '../../box/mode.js';
import { type NetworkMode, type NetworkPolicy, networkPolicy } from '../../box/network-policy.js';
import { checkCommand, extendPolicy, type PolicyRule } from '../../box/policy.js';
import { runSandboxed, type SandboxRunResult } from '../../box/run.js';
import { moduleLogger } from '../../core/log.js';
import { dataDir, isInside } from '../../core/paths.js';
import { formatBytes, type TruncatedText } from '../../core/truncate.js';
import { defineTool, type Tool, type ToolContext, ToolError, type ToolOutput } from '../tool.js';
import { realPathOf } from './paths.js';

const log = moduleLogger('agent/tools/bash');

/** Options of `createBashTool`. Everything has a default; see each field. */
export interface BashToolOptions {
  /**
   * `auto` (default) and `bubblewrap`: the box; where bubblewrap cannot run, commands are refused with the
   * fix. `none`: no box (explicit opt-out; see box/mode.ts).
   */
  sandbox?: SandboxChoice;
  /** Network mode of the box (default `none`: a bare bash tool is closed; roles pass the run's mode). */
  network?: NetworkMode;
  /** Extra destinations for the policy (`host`, `host:port`, `*.domain`). */
  allowHosts?: string[];
  /** An npm registry URL (as the host reaches it): on the allow list, and npm's registry in the box. */
  npmRegistry?: string;
  /**
   * Ports inside the box forwarded to Unix sockets outside (e.g. a running app box's `socketPath`); a
   * function is asked before each command, so forwards can be added during a session.
   */
  forwards?: readonly BoxForward[] | (() => readonly BoxForward[]);
  /** Called for each destination the box's egress proxy refuses. */
  onEgressRefused?: (refusal: EgressRefusal) => void;
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
  /** Memory of a command's box: all its processes together where a memory cgroup can be made, each one always (default 2 GiB). */
  maxMemoryBytes?: number;
}

/** The defaults of `BashToolOptions`. */
export const BASH_DEFAULTS = {
  sandbox: 'auto',
  network: 'none',
  defaultTimeoutMs: 120_000,
  maxTimeoutMs: 600_000,
  outputLimitBytes: 30 * 1024,
  ...BOX_LIMIT_DEFAULTS,
} as const;

/** Arguments of `bash`. */
export const BashArgs = z.object({
  command: z.string().min(1).describe('The bash command (run with `bash -c` in the workspace root).'),
  timeout_ms: z.number().int().min(1).optional().describe('Timeout in milliseconds (default 120000).'),
});
/** Arguments of `bash`. */
export type BashArgs = z.infer<typeof BashArgs>;

type ResolvedOptions = Required<
  Omit<BashToolOptions, 'env' | 'network' | 'allowHosts' | 'npmRegistry' | 'onEgressRefused' | 'forwards'>
> & {
  env: Record<string, string>;
  network: NetworkPolicy;
  forwards: readonly BoxForward[] | (() => readonly BoxForward[]);
  onEgressRefused?: (refusal: EgressRefusal) => void;
};

function withDefaults(options: BashToolOptions): ResolvedOptions {
  const { network, allowHosts, npmRegistry, ...rest } = options;
  return {
    ...BASH_DEFAULTS,
    hiddenPaths: [],
    readOnlyPaths: [],
    denyList: [],
    forwards: [],
    ...Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined)),
    env: options.env ?? {},
    network: networkPolicy(network ?? BASH_DEFAULTS.network, allowHosts ?? [], npmRegistry),
  } as ResolvedOptions;
}

let warnedNoBox = false;

/** Picks the sandbox for this call (the bubblewrap probe runs once per process). */
async function chooseMode(
  wanted: SandboxChoice,
): Promise<{ mode: 'bubblewrap' | 'none'; bwrapPath?: string; userNamespace?: boolean }> {
  try {
    const resolved = await resolveSandbox(wanted);
    if (resolved.mode === 'none' && !warnedNoBox) {
      warnedNoBox = true;
      log.warn(
        'bash runs WITHOUT the box (sandbox.bubblewrap: off): only a scrubbed environment and the deny list',
      );
    }
    return resolved;
  } catch (error) {
    if (error instanceof SandboxUnavailableError) throw new ToolError(error.describe());
    throw error;
  }
}

/** Real paths of the read-only paths inside the workspace (missing ones too: they must not be created). */
function readOnlyRealPaths(workspace: string, relative: readonly string[]): string[] {
  return relative
    .map((p) => realPathOf(`${workspace}/${p}`))
    .filter(({ real }) => isInside(workspace, real))
    .map(({ real }) => real);
}

function describeStream(name: string, text: TruncatedText): string {
  if (text.totalBytes === 0) return `${name}: (empty)`;
  return `${name}:\n${text.text.endsWith('\n') ? text.text.slice(0, -1) : text.text}`;
}

/** What runtimes print when an allocation fails (RLIMIT_DATA or the cgroup refused the memory). */
const OUT_OF_MEMORY =
  /MemoryError|Cannot allocate memory|\bENOMEM\b|heap out of memory|allocation failed|std::bad_alloc|out of memory/i;

/** The sentence about the memory limit, when the command hit it (killed by the kernel, or an allocation failed). */
export function memorySentence(result: SandboxRunResult): string | undefined {
  const { memory } = result;
  const mib = Math.round(memory.limitBytes / 1024 ** 2);
  const scope =
    memory.scope === 'cgroup' ? 'all processes of the command together' : 'each process of the command';
  const advice =
    'Use less memory at once (fewer parallel jobs or workers, smaller inputs, stream instead of loading whole files); the limit is set by the harness.';
  if (memory.oomKills > 0) {
    return `memory: the command exceeded the box's memory limit of ${mib} MiB (sandbox.memoryMiB, for ${scope}): the kernel killed ${memory.oomKills} of its processes. ${advice}`;
  }
  const failed = result.exitCode !== 0 && !result.timedOut && !result.aborted;
  if (failed && OUT_OF_MEMORY.test(`${result.stderr.text}\n${result.stdout.text}`)) {
    return `memory: the command ran out of memory: the box's memory limit is ${mib} MiB (sandbox.memoryMiB, for ${scope}). ${advice}`;
  }
  return undefined;
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
  const memory = memorySentence(result);
  if (memory) lines.push(memory);
  lines.push(describeStream('stdout', result.stdout), describeStream('stderr', result.stderr));
  const refused = [...new Set(result.egressRefusals.map((refusal) => refusal.reason))];
  if (refused.length) {
    lines.push(
      `network refused by the sandbox (${refused.length}):`,
      ...refused.slice(0, 5).map((r) => `- ${r}`),
    );
  }
  return lines.join('\n');
}

function networkSentence(policy: NetworkPolicy): string {
  const extra = policy.allowHosts.length ? ` and ${policy.allowHosts.join(', ')}` : '';
  switch (policy.mode) {
    case 'none':
      return 'There is no network access.';
    case 'registries':
      return `Network: only the package registries (npm, PyPI, crates.io, the Go proxy)${extra}, through the sandbox's proxy (HTTP_PROXY is set; other hosts get 403). 127.0.0.1 is the sandbox's own.`;
    default:
      return `Network: public hosts through the sandbox's proxy (HTTP_PROXY is set)${extra}; this machine's other services are not reachable. 127.0.0.1 is the sandbox's own.`;
  }
}

function description(options: ResolvedOptions): string {
  return [
    'Run a bash command in the workspace root (`bash -c`). Returns the exit code, stdout and stderr',
    `(each cut to ${formatBytes(options.outputLimitBytes)}, head and tail kept).`,
    `Timeout ${options.defaultTimeoutMs / 1000} s by default (timeout_ms, at most ${options.maxTimeoutMs / 1000} s).`,
    'Every process the command starts is killed when it returns: to test a server, start it in the background,',
    'wait until it answers and query it within the same command.',
    `Memory limit of the box: ${Math.round(options.maxMemoryBytes / 1024 ** 2)} MiB (going over it ends the command or fails its allocations).`,
    networkSentence(options.network),
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
    forwards: typeof options.forwards === 'function' ? options.forwards() : options.forwards,
    ...(options.onEgressRefused ? { onEgressRefused: options.onEgressRefused } : {}),
    timeoutMs,
    signal: ctx.signal,
    outputLimitBytes: options.outputLimitBytes,
    hiddenPaths: [...ALWAYS_HIDDEN, os.homedir(), dataDir(), ...options.hiddenPaths],
    readOnlyPaths: readOnlyRealPaths(workspace.real, options.readOnlyPaths),
    env: options.env,
    maxProcesses: options.maxProcesses,
    maxFileSizeBytes: options.maxFileSizeBytes,
    maxMemoryBytes: options.maxMemoryBytes,
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
      egressRefused: result.egressRefusals.length,
      memoryKills: result.memory.oomKills,
    },
  };
}

/**
 * The `bash` tool. In the box (default; bubblewrap) the command sees a read-only host, a writable
 * workspace, a private /tmp and HOME, hidden home directories, /run and data dir, no harness processes,
 * and the network only as the policy allows. Without it (`none`), only the scrubbed environment, the deny
 * list and the process cleanup apply. See box/run.ts and box.ts.
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
