/**
 * A long-lived box for an app: `init.sh` (or any command) started in the box, kept running after the
 * command exits (the app may have been started in the background), reachable by the host's browser on
 * `http://127.0.0.1:<port>/` and by other boxes through `socketPath`, and stopped — every process of it —
 * by `stop()`.
 *
 * Ingress: the harness listens on 127.0.0.1:<port> in the host's network and hands that listening socket
 * to the relay inside the box over the IPC channel; the relay accepts there and connects to the app on
 * 127.0.0.1:<port> inside the box's own network. Nothing on the host ever connects to a path the box can
 * change. The app sees the same port number the browser uses, so absolute URLs it builds are right.
 *
 * Without bubblewrap (`none`, an explicit opt-out) the app runs as a plain child with a scrubbed
 * environment and a private HOME/TMPDIR, on the host's network and port directly.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { moduleLogger } from '../core/log.js';
import type { BoxForward } from './box.js';
import type { EgressRefusal } from './egress-proxy.js';
import type { ResolvedSandbox } from './mode.js';
import type { NetworkPolicy } from './network-policy.js';
import {
  findCommandProcesses,
  isRunning,
  killCommandProcesses,
  readProcess,
  type TreeRoots,
} from './proc.js';
import { enterCgroup, type Launch, type MemoryOutcome, prepareLaunch, shellArgv } from './run.js';

const log = moduleLogger('box/app-box');

/** How long the relay may take to take over the browser's port. */
const HANDOVER_TIMEOUT_MS = 30_000;

/** Everything needed to start an app box. */
export interface AppBoxRequest {
  /** Real path of the workspace (the working directory). */
  workspace: string;
  sandbox: ResolvedSandbox;
  /** The shell command (run with `bash -c` in the workspace), e.g. `exec bash ./init.sh`. */
  command: string;
  /** The port on the host's 127.0.0.1 and the app's `$PORT` inside (default: a free port). */
  port?: number;
  network: NetworkPolicy;
  /** Absolute paths hidden in the box. */
  hiddenPaths: readonly string[];
  /** Absolute paths inside the workspace kept read-only (missing ones cannot be created). */
  readOnlyPaths: readonly string[];
  /** Extra environment (`PORT` is always set; secret and harness variables are dropped). */
  env?: Record<string, string>;
  /** Ports inside the box forwarded to Unix sockets outside. */
  forwards?: readonly BoxForward[];
  onEgressRefused?: (refusal: EgressRefusal) => void;
  /** Every chunk of the command's stdout and stderr. */
  output: (chunk: Buffer) => void;
  maxProcesses: number;
  maxFileSizeBytes: number;
  /** Memory of the app's box (a memory cgroup when one can be made; `ulimit -d` per process always). */
  maxMemoryBytes: number;
}

/** A started app box. */
export interface AppBox {
  /** `http://127.0.0.1:<port>/` on the host. */
  url: string;
  port: number;
  /** The app's Unix socket, for `forwards` of other boxes (bubblewrap only). */
  socketPath?: string;
  /** Host pid of the box's root process (bwrap, or bash without the box). */
  pid: number;
  /** The command's exit code once it exited (undefined while it runs; null when it could not be told). */
  exitCode(): number | null | undefined;
  /** Destinations the egress proxy refused so far. */
  refusals(): readonly EgressRefusal[];
  /** The memory limit and the processes the kernel killed for exceeding it so far. */
  memory(): MemoryOutcome;
  /** SIGTERM to every process, SIGKILL after `graceMs`; resolves when all are gone and the box is cleaned up. */
  stop(graceMs?: number): Promise<void>;
}

/** Listens on 127.0.0.1:<port> (0 = any free port). */
async function listenOnHost(port: number): Promise<net.Server> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port, exclusive: true }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}

/**
 * Hands the host listener to the relay when it asks for it, then closes the host's copy; resolves when the
 * relay owns it (or the box is gone). Until then a connection the host's copy accepts is closed at once, so
 * a client never waits on a socket nobody serves.
 */
function handOverIngress(child: ChildProcess, server: net.Server): Promise<void> {
  server.on('connection', (socket) => socket.destroy());
  let sent = false;
  const handover = new Promise<void>((resolve) => {
    child.on('message', (message) => {
      if (message === 'waiting' && !sent) {
        sent = true;
        child.send('ingress', server, () => server.close());
      }
      if (message === 'ingress-ok') {
        // Nothing else is expected from inside the box: the channel is closed from this side too.
        if (child.connected) child.disconnect();
        resolve();
      }
    });
    // A box that is gone (or never asked) must not leave the port open on the host.
    child.once('exit', () => {
      server.close();
      resolve();
    });
  });
  // A relay that never answers (stopped from inside the box) must not hang the caller: readiness then fails.
  return Promise.race([handover, sleep(HANDOVER_TIMEOUT_MS, undefined, { ref: false })]);
}

/** Reads `exit <code>` lines from the relay's status pipe (untrusted: parsed strictly, size bounded). */
function watchStatus(child: ChildProcess, onExit: (code: number) => void): void {
  const status = child.stdio[4];
  if (!status || !('on' in status)) return;
  let buffer = '';
  status.on('data', (chunk: Buffer) => {
    buffer = (buffer + chunk.toString('utf8')).slice(-1024);
    for (let newline = buffer.indexOf('\n'); newline !== -1; newline = buffer.indexOf('\n')) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      const code = /^exit (\d{1,3})$/.exec(line)?.[1];
      if (code !== undefined) onExit(Number(code));
    }
  });
  status.on('error', () => undefined);
}

/** Prepares the app's box on `port` (bridged in through `server` when boxed); closes `server` when that fails. */
async function prepareAppLaunch(
  request: AppBoxRequest,
  port: number,
  server: net.Server | undefined,
): Promise<Launch> {
  try {
    return await prepareLaunch(
      {
        workspace: request.workspace,
        ...request.sandbox,
        network: request.network,
        hiddenPaths: request.hiddenPaths,
        readOnlyPaths: request.readOnlyPaths,
        env: { ...request.env, PORT: String(port) },
        ...(request.forwards ? { forwards: request.forwards } : {}),
        ...(request.onEgressRefused ? { onEgressRefused: request.onEgressRefused } : {}),
        ...(server ? { ingress: { port } } : {}),
      },
      shellArgv(request),
    );
  } catch (error) {
    server?.close();
    throw error;
  }
}

/** Starts the command in an app box; resolves once it is spawned (readiness is the caller's to poll). */
export async function startAppBox(request: AppBoxRequest): Promise<AppBox> {
  const boxed = request.sandbox.mode === 'bubblewrap';
  const server = boxed ? await listenOnHost(request.port ?? 0) : undefined;
  const port = server ? (server.address() as net.AddressInfo).port : (request.port ?? (await freeHostPort()));
  const launch = await prepareAppLaunch(request, port, server);
  const cgroup = enterCgroup(launch, request);
  const child = spawn(cgroup.file, cgroup.args, {
    cwd: request.workspace,
    env: launch.env,
    detached: true,
    stdio: launch.relayIpc ? ['ignore', 'pipe', 'pipe', 'ipc', 'pipe'] : ['ignore', 'pipe', 'pipe'],
  });
  // Read before anything can reap it: the stop's sweep reads no environment of a process older than this.
  const rootStartTime = child.pid === undefined ? undefined : readProcess(child.pid)?.startTime;
  child.stdout?.on('data', request.output);
  child.stderr?.on('data', request.output);
  let exitCode: number | null | undefined;
  const handedOver = server ? handOverIngress(child, server) : Promise.resolve();
  if (launch.relayIpc) watchStatus(child, (code) => (exitCode ??= code));
  child.once('exit', (code) => {
    // The box itself ended: without a status line from the relay, its own status stands for the command's.
    exitCode ??= code;
  });
  child.once('error', (error) => {
    log.warn({ err: error }, 'the app box could not be started');
    exitCode ??= null;
  });
  await handedOver;
  let stopping: Promise<void> | undefined;
  const stop = (graceMs = 5_000) => {
    stopping ??= stopBox(child, { marker: launch.marker, rootStartTime }, graceMs).finally(async () => {
      await cgroup.remove();
      server?.close();
      await launch.dispose();
    });
    return stopping;
  };
  return {
    url: `http://127.0.0.1:${port}/`,
    port,
    ...(launch.ingressSocket ? { socketPath: launch.ingressSocket } : {}),
    pid: child.pid ?? -1,
    exitCode: () => exitCode,
    refusals: () => launch.refusals(),
    memory: () => cgroup.memory(),
    stop,
  };
}

/**
 * SIGTERM to every process of the box, then SIGKILL after the grace period until none is left. The grace period
 * waits on the processes signalled (a read of each one's /proc entry), not on new sweeps of the whole process
 * table; the final sweep finds and kills anything started since.
 */
async function stopBox(
  child: ChildProcess,
  found: Pick<TreeRoots, 'marker' | 'rootStartTime'>,
  graceMs: number,
): Promise<void> {
  const rootPid = child.pid;
  if (rootPid === undefined) return;
  const roots: TreeRoots = { rootPid, ...found };
  const signalled: Array<{ pid: number; startTime: number }> = [];
  for (const pid of findCommandProcesses(roots)) {
    const entry = readProcess(pid);
    if (entry === undefined || entry.state === 'Z') continue;
    try {
      process.kill(pid, 'SIGTERM');
      signalled.push({ pid, startTime: entry.startTime });
    } catch {
      // Gone.
    }
  }
  const alive = () => signalled.some(({ pid, startTime }) => isRunning(pid, startTime));
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && alive()) await sleep(50);
  await killCommandProcesses(roots);
  if (child.exitCode === null && child.signalCode === null) {
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      setTimeout(resolve, 2_000).unref();
    });
  }
  child.stdout?.destroy();
  child.stderr?.destroy();
}

/** A TCP port on the host's 127.0.0.1 that was free a moment ago. */
export async function freeHostPort(): Promise<number> {
  const server = await listenOnHost(0);
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
