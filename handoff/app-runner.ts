import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { moduleLogger } from '../core/log.js';
import { WORKSPACE_FILES } from './formats.js';
import { descendantsOf, isRunning, listProcesses, type ProcInfo } from './proc.js';

const log = moduleLogger('handoff/app-runner');

/** How to start the workspace's app. */
export interface StartAppOptions {
  /** The workspace holding `init.sh`. */
  workspace: string;
  /** The port the app must listen on (given to `init.sh` as `$PORT`). */
  port: number;
  /** Where the script's stdout and stderr go (appended). */
  logFile: string;
  /** How long to wait for the first HTTP answer (default 60 s). */
  readyTimeoutMs?: number;
  /** The script's environment (default: this process's); `PORT` is always set. */
  env?: NodeJS.ProcessEnv;
  /** Grace period between SIGTERM and SIGKILL when stopping (default 5 s). */
  stopGraceMs?: number;
  /** Interval of the readiness checks (default READY_POLL_MS). */
  readyPollMs?: number;
}

/**
 * Readiness is checked this often (ms): the app's start is on the critical path of every evaluation, and a check
 * (one refused TCP connect and one /proc scan) is cheap.
 */
export const READY_POLL_MS = 40;

/** A started app. */
export interface RunningApp {
  /** `http://127.0.0.1:<port>/` */
  url: string;
  /** The pid of `bash init.sh`, also its process group id. */
  pid: number;
  /** Stops the whole process group and any descendant that left it; resolves when they are gone. */
  stop(): Promise<void>;
}

/** The outcome of {@link startApp}: running, or a `blocked` reason with the exit code and the log's last lines. */
export type StartAppResult =
  | { ok: true; app: RunningApp }
  | { ok: false; reason: string; exitCode: number | null; lastLines: string[] };

/** A TCP port on 127.0.0.1 that was free a moment ago. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** True when something answers HTTP (any status) at the URL. */
export async function answersHttp(url: string, timeoutMs = 1_000): Promise<boolean> {
  return new Promise((resolve) => {
    const request = http.get(url, { timeout: timeoutMs }, (response) => {
      response.resume();
      resolve(true);
    });
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolve(false));
  });
}

/** The last `count` non-empty lines of a file (empty when it cannot be read). */
export async function lastLines(file: string, count = 20): Promise<string[]> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .slice(-count);
}

/**
 * Runs `bash init.sh` with `PORT` in its own process group, output appended to the log file, and waits until
 * `http://127.0.0.1:<port>/` answers. A script that exits 0 may have backgrounded the app: waiting goes on.
 * A non-zero exit before the app answers, or the timeout, stops everything and gives a `blocked` reason.
 */
export async function startApp(options: StartAppOptions): Promise<StartAppResult> {
  const url = `http://127.0.0.1:${options.port}/`;
  const timeoutMs = options.readyTimeoutMs ?? 60_000;
  const fd = openSync(options.logFile, 'a');
  let child: ChildProcess;
  try {
    child = spawn('bash', [WORKSPACE_FILES.initScript], {
      cwd: options.workspace,
      detached: true,
      stdio: ['ignore', fd, fd],
      env: { ...(options.env ?? process.env), PORT: String(options.port) },
    });
  } finally {
    closeSync(fd);
  }
  const exit = new Promise<number | null>((resolve) => {
    child.once('exit', (code, signal) =>
      resolve(code ?? (signal ? 128 + (os.constants.signals[signal] ?? 0) : null)),
    );
    child.once('error', () => resolve(null));
  });
  let exitCode: number | null | undefined;
  void exit.then((code) => {
    exitCode = code;
  });
  const pid = child.pid;
  if (pid === undefined) {
    return { ok: false, reason: 'could not spawn bash init.sh', exitCode: await exit, lastLines: [] };
  }
  const tracker = new ProcessTracker(pid);
  const stop = () => tracker.stop(options.stopGraceMs ?? 5_000);
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    await tracker.refresh();
    if (await answersHttp(url)) {
      log.info({ workspace: options.workspace, port: options.port, pid }, 'app is answering');
      return { ok: true, app: { url, pid, stop } };
    }
    if (exitCode !== undefined && exitCode !== 0) {
      await stop();
      const lines = await lastLines(options.logFile);
      const reason = `init.sh exited with code ${exitCode} before the app answered on port ${options.port}; last log lines (${path.basename(options.logFile)}):\n${lines.join('\n')}`;
      return { ok: false, reason, exitCode, lastLines: lines };
    }
    await sleep(options.readyPollMs ?? READY_POLL_MS);
  }
  const code = exitCode ?? null;
  await stop();
  const lines = await lastLines(options.logFile);
  const status = code === null ? 'init.sh was still running' : `init.sh had exited with code ${code}`;
  const reason = `the app did not answer HTTP on port ${options.port} within ${Math.round(timeoutMs / 1000)} s (${status}); last log lines:\n${lines.join('\n')}`;
  return { ok: false, reason, exitCode: code, lastLines: lines };
}

/**
 * Remembers every process of the app: its process group and every descendant seen so far, each with its start
 * time so a reused pid is never signalled.
 */
class ProcessTracker {
  private readonly known = new Map<number, number>();

  constructor(private readonly leader: number) {}

  async refresh(): Promise<ProcInfo[]> {
    const all = await listProcesses();
    const known = all.filter((p) => this.known.get(p.pid) === p.startTime);
    const members = [
      ...all.filter((p) => p.pgid === this.leader || p.pid === this.leader),
      ...descendantsOf(this.leader, all),
      ...known.flatMap((p) => descendantsOf(p.pid, all)),
    ];
    for (const p of members) if (p.state !== 'Z') this.known.set(p.pid, p.startTime);
    return all;
  }

  async stop(graceMs: number): Promise<void> {
    await this.refresh();
    await this.signalAll('SIGTERM');
    const deadline = Date.now() + graceMs;
    while (Date.now() < deadline && (await this.alive()).length > 0) {
      await this.refresh();
      await sleep(50);
    }
    for (let round = 0; round < 100; round++) {
      await this.refresh();
      const alive = await this.alive();
      if (alive.length === 0) return;
      await this.signalAll('SIGKILL');
      await sleep(50);
    }
    log.error({ pids: await this.alive() }, 'app processes survived SIGKILL');
  }

  private async signalAll(signal: NodeJS.Signals): Promise<void> {
    try {
      process.kill(-this.leader, signal);
    } catch {
      // the group is empty
    }
    for (const pid of await this.alive()) {
      try {
        process.kill(pid, signal);
      } catch {
        // already gone
      }
    }
  }

  private async alive(): Promise<number[]> {
    const checks = await Promise.all(
      [...this.known].map(async ([pid, start]) => ((await isRunning(pid, start)) ? pid : null)),
    );
    return checks.filter((pid): pid is number => pid !== null);
  }
}
