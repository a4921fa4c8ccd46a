/**
 * Runs one shell command in the sandbox and always cleans up after it: whether it ends, times out
 * or is aborted, every process it started is killed before this returns.
 *
 * Under bubblewrap the command runs in a box (box/box.ts): private pid/ipc/uts/network
 * namespaces with a fresh /proc, so it cannot see the harness or its environment, and network only
 * through the harness's egress proxy under the policy; when the command's shell exits, the
 * namespace's init exits and the kernel kills everything left in it.
 *
 * Without bubblewrap (`none`) the command runs as a plain child in its own session with a scrubbed
 * environment. That is much weaker: /proc of other processes (the harness's environment included,
 * when run as the same user) is readable, the host filesystem and network are reachable, and only
 * the deny list stands in the way. Processes are found for killing by session, group, parent links
 * and a marker variable (and a pids cgroup when one can be created).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { OutputCollector, type TruncatedText } from '../core/truncate.js';
import { type BoxForward, prepareBox } from './box.js';
import {
  type CommandCgroup,
  capsMemory,
  createCommandCgroup,
  destroyCommandCgroup,
  memoryKills,
} from './cgroup.js';
import type { EgressRefusal } from './egress-proxy.js';
import { buildSandboxEnv, registryEnv } from './env.js';
import type { NetworkPolicy } from './network-policy.js';
import { killCommandProcesses, readProcess } from './proc.js';

/** Everything needed to run one command. */
export interface SandboxRunRequest {
  command: string;
  /** Real path of the workspace: the working directory, bound read-write. */
  workspace: string;
  /** `bubblewrap` needs `bwrapPath`; `none` is the weak fallback described above. */
  mode: 'bubblewrap' | 'none';
  bwrapPath?: string;
  /** From the bubblewrap probe. */
  userNamespace?: boolean;
  /**
   * The box's network policy. Under `none` mode (no bubblewrap) the command has the host's network whatever the
   * policy.
   */
  network: NetworkPolicy;
  /** Ports inside the box forwarded to Unix sockets outside (bubblewrap only). */
  forwards?: readonly BoxForward[];
  /** Called for each destination the egress proxy refuses. */
  onEgressRefused?: (refusal: EgressRefusal) => void;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Budget of each stream's text (head + note + tail). */
  outputLimitBytes: number;
  /** Absolute paths hidden under bubblewrap. */
  hiddenPaths: readonly string[];
  /** Absolute paths inside the workspace, read-only under bubblewrap (missing ones cannot be created). */
  readOnlyPaths: readonly string[];
  /** Allowed extra environment variables (secret and harness variables are dropped anyway). */
  env?: Record<string, string>;
  /** `ulimit -u` and, when available, the pids cgroup cap. */
  maxProcesses: number;
  /** `ulimit -f`, in bytes. */
  maxFileSizeBytes: number;
  /**
   * Memory of the box: a memory cgroup over all its processes when one can be made, and `ulimit -d`
   * (RLIMIT_DATA) for each process always (see docs/security.md, "which limits apply to which process").
   */
  maxMemoryBytes: number;
}

/** The outcome of one command. */
export interface SandboxRunResult {
  /** Exit code of the shell; null when it was killed by a signal. */
  exitCode: number | null;
  /** Signal that ended the shell, if any. */
  signal: NodeJS.Signals | null;
  stdout: TruncatedText;
  stderr: TruncatedText;
  timedOut: boolean;
  aborted: boolean;
  /** Pids the harness had to kill after the shell ended or at the timeout (outside bubblewrap mostly). */
  killedPids: number[];
  durationMs: number;
  /** Destinations the box's egress proxy refused during the command. */
  egressRefusals: EgressRefusal[];
  /** The memory limit and whether the kernel killed a process of the command for exceeding it. */
  memory: MemoryOutcome;
}

/** What the memory limit did to one command. */
export interface MemoryOutcome {
  limitBytes: number;
  /** `cgroup`: all processes together (and each one); `process`: each process alone (no memory cgroup here). */
  scope: 'cgroup' | 'process';
  /** Processes the kernel's OOM killer ended inside the box's memory cgroup. */
  oomKills: number;
}

/** Time allowed for the output pipes to drain after every process is dead. */
const DRAIN_MS = 2000;

/** `bash -c` that applies the resource limits, then runs the command as a fresh `bash -c`. */
export function shellArgv(
  request: Pick<SandboxRunRequest, 'maxFileSizeBytes' | 'maxProcesses' | 'maxMemoryBytes' | 'command'>,
): string[] {
  const kib = (bytes: number) => String(Math.max(1, Math.floor(bytes / 1024)));
  // fds 3 and 4 are the relay's channels to the harness in an app box: the workload does not get them.
  // RLIMIT_DATA, not RLIMIT_AS: V8 and other runtimes reserve large virtual ranges they never touch.
  const script =
    'exec 3>&- 4>&-; ulimit -u "$1" 2>/dev/null; ulimit -f "$2" 2>/dev/null; ulimit -d "$3" 2>/dev/null; exec bash -c "$4"';
  return [
    'bash',
    '-c',
    script,
    'nightshift-sandbox',
    String(request.maxProcesses),
    kib(request.maxFileSizeBytes),
    kib(request.maxMemoryBytes),
    request.command,
  ];
}

/** How to spawn one sandboxed process, and how to clean up after it. */
export interface Launch {
  file: string;
  args: string[];
  env: Record<string, string>;
  /** `NAME=value` in the environment of every process (no bubblewrap): finds processes that left the tree. */
  marker?: string;
  /** The relay expects the ingress listener on the IPC channel (stdio 3), status on fd 4. */
  relayIpc?: boolean;
  /** Host path of the app's Unix socket (app boxes). */
  ingressSocket?: string;
  refusals(): readonly EgressRefusal[];
  dispose(): Promise<void>;
}

/** What {@link prepareLaunch} needs: a request without the command-only fields. */
export type LaunchRequest = Pick<
  SandboxRunRequest,
  | 'workspace'
  | 'mode'
  | 'bwrapPath'
  | 'userNamespace'
  | 'network'
  | 'forwards'
  | 'onEgressRefused'
  | 'hiddenPaths'
  | 'readOnlyPaths'
  | 'env'
> & { ingress?: { port: number } };

/**
 * The box (bubblewrap) or, in `none` mode, a plain child with a scrubbed environment, a private HOME and
 * TMPDIR and a marker variable; `payload` is the argv to run inside.
 */
export async function prepareLaunch(request: LaunchRequest, payload: readonly string[]): Promise<Launch> {
  if (request.mode === 'bubblewrap') {
    if (!request.bwrapPath) throw new Error('bubblewrap mode needs bwrapPath');
    return prepareBox(
      {
        workspace: request.workspace,
        bwrapPath: request.bwrapPath,
        userNamespace: request.userNamespace ?? false,
        network: request.network,
        hiddenPaths: request.hiddenPaths,
        readOnlyPaths: request.readOnlyPaths,
        ...(request.forwards ? { forwards: request.forwards } : {}),
        ...(request.env ? { env: request.env } : {}),
        ...(request.onEgressRefused ? { onEgressRefused: request.onEgressRefused } : {}),
        ...(request.ingress ? { ingress: request.ingress } : {}),
      },
      payload,
    );
  }
  const privateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'nightshift-sh-'));
  const home = path.join(privateDir, 'home');
  const tmpdir = path.join(privateDir, 'tmp');
  fs.mkdirSync(home);
  fs.mkdirSync(tmpdir);
  const env = buildSandboxEnv({
    home,
    tmpdir,
    extra: request.env,
    nodeBinDir: path.dirname(process.execPath),
  });
  Object.assign(env, registryEnv(request.network, false));
  const markerValue = randomUUID();
  env.SANDBOX_CALL_ID = markerValue;
  const [file, ...args] = payload as [string, ...string[]];
  return {
    file,
    args,
    env,
    marker: `SANDBOX_CALL_ID=${markerValue}`,
    refusals: () => [],
    dispose: async () => fs.rmSync(privateDir, { recursive: true, force: true }),
  };
}

/** Joins the cgroups first (by pid, before anything can fork or allocate), then execs the real launcher. */
function withCgroup(launch: Launch, group: CommandCgroup | undefined): { file: string; args: string[] } {
  if (!group) return { file: launch.file, args: launch.args };
  // $0 is the number of cgroup files that follow; they are shifted away before the exec.
  const joinThenExec =
    'n=$0; while [ "$n" -gt 0 ]; do echo $$ > "$1" 2>/dev/null; shift; n=$((n-1)); done; exec "$@"';
  return {
    file: '/bin/sh',
    args: [
      '-c',
      joinThenExec,
      String(group.procsFiles.length),
      ...group.procsFiles,
      launch.file,
      ...launch.args,
    ],
  };
}

/** The memory outcome of a command so far. */
function memoryOutcome(limitBytes: number, group: CommandCgroup | undefined): MemoryOutcome {
  return { limitBytes, scope: capsMemory(group) ? 'cgroup' : 'process', oomKills: memoryKills(group) };
}

/** A command's cgroups over its whole life (none when the machine has no writable controller). */
export interface CgroupHandle {
  /** What to spawn: the launcher, joining the cgroups first. */
  file: string;
  args: string[];
  /** The memory outcome so far; once removed, as it was just before. */
  memory(): MemoryOutcome;
  /** Kills what is left in the cgroups and removes them (once; later calls wait for the first). */
  remove(): Promise<void>;
}

/** Creates the command's cgroups with its limits, for `launch`. */
export function enterCgroup(
  launch: Launch,
  limits: Pick<SandboxRunRequest, 'maxProcesses' | 'maxMemoryBytes'>,
): CgroupHandle {
  const group = createCommandCgroup(limits);
  let final: MemoryOutcome | undefined;
  let removed: Promise<void> | undefined;
  return {
    ...withCgroup(launch, group),
    memory: () => final ?? memoryOutcome(limits.maxMemoryBytes, group),
    remove: () => {
      // Counted before the cgroup goes: a background process killed after the shell exited counts too.
      final ??= memoryOutcome(limits.maxMemoryBytes, group);
      removed ??= group ? destroyCommandCgroup(group) : Promise.resolve();
      return removed;
    },
  };
}

export function waitForExit(
  child: ChildProcess,
): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
}

function waitForClose(child: ChildProcess, ms: number): Promise<void> {
  const streams = [child.stdout, child.stderr].filter((s) => s !== null);
  const closed = streams.map(
    (s) =>
      new Promise<void>((resolve) => (s.readableEnded || s.destroyed ? resolve() : s.once('close', resolve))),
  );
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  return Promise.race([Promise.all(closed).then(() => undefined), timeout]).finally(() => {
    clearTimeout(timer);
    for (const s of streams) s.destroy();
  });
}

/** Spawns the prepared command detached (its own group and session), each stream into its collector. */
function spawnCollected(
  workspace: string,
  launch: Launch,
  cgroup: CgroupHandle,
  output: { stdout: OutputCollector; stderr: OutputCollector },
): ChildProcess {
  const child = spawn(cgroup.file, cgroup.args, {
    cwd: workspace,
    env: launch.env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk: Buffer) => output.stdout.push(chunk));
  child.stderr?.on('data', (chunk: Buffer) => output.stderr.push(chunk));
  return child;
}

/** Runs `request.command` and returns once it and every process it started are gone. */
export async function runSandboxed(request: SandboxRunRequest): Promise<SandboxRunResult> {
  const started = Date.now();
  const launch = await prepareLaunch(request, shellArgv(request));
  const cgroup = enterCgroup(launch, request);
  const stdout = new OutputCollector(request.outputLimitBytes, 'stdout');
  const stderr = new OutputCollector(request.outputLimitBytes, 'stderr');
  const killed = new Set<number>();
  let timedOut = false;
  let aborted = false;
  let child: ChildProcess | undefined;
  let rootStartTime: number | undefined;
  const killAll = async () => {
    if (child?.pid !== undefined) {
      const roots = { rootPid: child.pid, marker: launch.marker, rootStartTime };
      for (const pid of await killCommandProcesses(roots)) killed.add(pid);
    }
    await cgroup.remove();
  };
  const onTimeout = () => {
    timedOut = true;
    void killAll();
  };
  const onAbort = () => {
    aborted = true;
    void killAll();
  };
  let timer: NodeJS.Timeout | undefined;
  let cleanedUp = false;
  try {
    child = spawnCollected(request.workspace, launch, cgroup, { stdout, stderr });
    // Read before anything can reap it: the kill sweep reads no environment of a process older than this.
    rootStartTime = child.pid === undefined ? undefined : readProcess(child.pid)?.startTime;
    const exited = waitForExit(child);
    timer = setTimeout(onTimeout, request.timeoutMs);
    if (request.signal?.aborted) onAbort();
    else request.signal?.addEventListener('abort', onAbort, { once: true });
    const { code, signal } = await exited;
    clearTimeout(timer);
    await killAll();
    cleanedUp = true;
    await waitForClose(child, DRAIN_MS);
    return {
      exitCode: code,
      signal,
      stdout: stdout.result(),
      stderr: stderr.result(),
      timedOut,
      aborted,
      killedPids: [...killed],
      durationMs: Date.now() - started,
      egressRefusals: [...launch.refusals()],
      memory: cgroup.memory(),
    };
  } finally {
    clearTimeout(timer);
    request.signal?.removeEventListener('abort', onAbort);
    if (!cleanedUp) await killAll();
    await launch.dispose();
  }
}
