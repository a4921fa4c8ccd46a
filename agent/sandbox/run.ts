/**
 * Runs one shell command in the sandbox and always cleans up after it: whether it ends, times out
 * or is aborted, every process it started is killed before this returns.
 *
 * Under bubblewrap the command runs in private pid/ipc/uts (and, unless allowed, network)
 * namespaces with a fresh /proc, so it cannot see the harness or its environment; when the
 * command's shell exits, the namespace's init exits and the kernel kills everything left in it.
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
import { OutputCollector, type TruncatedText } from '../tools/truncate.js';
import { bubblewrapArgs } from './bubblewrap.js';
import { type CommandCgroup, createCommandCgroup, destroyCommandCgroup } from './cgroup.js';
import { buildSandboxEnv } from './env.js';
import { killCommandProcesses } from './process-tree.js';

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
  network: boolean;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Budget of each stream's text (head + note + tail). */
  outputLimitBytes: number;
  /** Absolute paths hidden under bubblewrap. */
  hiddenPaths: readonly string[];
  /** Absolute real paths inside the workspace, read-only under bubblewrap. */
  readOnlyPaths: readonly string[];
  /** Allowed extra environment variables (secret and harness variables are dropped anyway). */
  env?: Record<string, string>;
  /** `ulimit -u` and, when available, the pids cgroup cap. */
  maxProcesses: number;
  /** `ulimit -f`, in bytes. */
  maxFileSizeBytes: number;
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
}

/** Time allowed for the output pipes to drain after every process is dead. */
const DRAIN_MS = 2000;

/** `bash -c` that applies the resource limits, then runs the command as a fresh `bash -c`. */
function shellArgv(request: SandboxRunRequest): string[] {
  const blocks = Math.max(1, Math.floor(request.maxFileSizeBytes / 1024));
  const script = 'ulimit -u "$1" 2>/dev/null; ulimit -f "$2" 2>/dev/null; exec bash -c "$3"';
  return [
    'bash',
    '-c',
    script,
    'nightshift-sandbox',
    String(request.maxProcesses),
    String(blocks),
    request.command,
  ];
}

interface Launch {
  file: string;
  args: string[];
  env: Record<string, string>;
  marker?: string;
  privateDir?: string;
}

function prepareLaunch(request: SandboxRunRequest): Launch {
  const nodeBinDir = path.dirname(process.execPath);
  if (request.mode === 'bubblewrap') {
    if (!request.bwrapPath) throw new Error('bubblewrap mode needs bwrapPath');
    const home = '/tmp/home';
    const env = buildSandboxEnv({ home, tmpdir: '/tmp', extra: request.env, nodeBinDir });
    const args = bubblewrapArgs({
      workspace: request.workspace,
      network: request.network,
      hiddenPaths: request.hiddenPaths,
      readOnlyPaths: request.readOnlyPaths,
      toolPaths: [installPrefix(process.execPath)],
      home,
      userNamespace: request.userNamespace ?? false,
    });
    return { file: request.bwrapPath, args: [...args, ...shellArgv(request)], env };
  }
  const privateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'nightshift-sh-'));
  const home = path.join(privateDir, 'home');
  const tmpdir = path.join(privateDir, 'tmp');
  fs.mkdirSync(home);
  fs.mkdirSync(tmpdir);
  const env = buildSandboxEnv({ home, tmpdir, extra: request.env, nodeBinDir });
  const markerValue = randomUUID();
  env.SANDBOX_CALL_ID = markerValue;
  const [file, ...args] = shellArgv(request) as [string, ...string[]];
  return { file, args, env, marker: `SANDBOX_CALL_ID=${markerValue}`, privateDir };
}

/** `/opt/node` for `/opt/node/bin/node`: the installation directory a binary needs around it. */
function installPrefix(binary: string): string {
  const dir = path.dirname(binary);
  return path.basename(dir) === 'bin' ? path.dirname(dir) : dir;
}

/** Joins the cgroup first (by pid, before anything can fork), then execs the real launcher. */
function withCgroup(launch: Launch, group: CommandCgroup | undefined): { file: string; args: string[] } {
  if (!group) return { file: launch.file, args: launch.args };
  const joinThenExec = 'echo $$ > "$0" 2>/dev/null; exec "$@"';
  return { file: '/bin/sh', args: ['-c', joinThenExec, group.procsFile, launch.file, ...launch.args] };
}

function waitForExit(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
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

/** Runs `request.command` and returns once it and every process it started are gone. */
export async function runSandboxed(request: SandboxRunRequest): Promise<SandboxRunResult> {
  const started = Date.now();
  const launch = prepareLaunch(request);
  const group = createCommandCgroup(request.maxProcesses);
  const { file, args } = withCgroup(launch, group);
  const stdout = new OutputCollector(request.outputLimitBytes, 'stdout');
  const stderr = new OutputCollector(request.outputLimitBytes, 'stderr');
  const killed = new Set<number>();
  let timedOut = false;
  let aborted = false;
  let child: ChildProcess | undefined;
  let groupGone: Promise<void> | undefined;
  const dropGroup = async () => {
    if (group) groupGone ??= destroyCommandCgroup(group);
    await groupGone;
  };
  const killAll = async () => {
    if (child?.pid !== undefined) {
      for (const pid of await killCommandProcesses({ rootPid: child.pid, marker: launch.marker }))
        killed.add(pid);
    }
    await dropGroup();
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
    child = spawn(file, args, {
      cwd: request.workspace,
      env: launch.env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));
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
    };
  } finally {
    clearTimeout(timer);
    request.signal?.removeEventListener('abort', onAbort);
    if (!cleanedUp) await killAll();
    if (launch.privateDir) fs.rmSync(launch.privateDir, { recursive: true, force: true });
  }
}
