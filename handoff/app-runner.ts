import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { realPathOf } from '../agent/tools/paths.js';
import { type AppBox, startAppBox } from '../box/app-box.js';
import type { BoxForward } from '../box/box.js';
import { ALWAYS_HIDDEN } from '../box/bubblewrap.js';
import type { EgressRefusal } from '../box/egress-proxy.js';
import { BOX_LIMIT_DEFAULTS } from '../box/limits.js';
import { resolveSandbox, type SandboxChoice, SandboxUnavailableError } from '../box/mode.js';
import { type NetworkMode, networkPolicy } from '../box/network-policy.js';
import type { MemoryOutcome } from '../box/run.js';
import { moduleLogger } from '../core/log.js';
import { dataDir } from '../core/paths.js';
import { inSpan } from '../core/trace.js';
import { WORKSPACE_FILES } from './formats.js';

const log = moduleLogger('handoff/app-runner');

/** Workspace paths the app may read but never change: the harness's own files. */
export const APP_READ_ONLY_PATHS = ['.git', WORKSPACE_FILES.featureList, WORKSPACE_FILES.harnessDir];
/** Pause between readiness checks (each is one HTTP request through the bridge). */
const READY_POLL_MS = 50;
/**
 * Lines of the app log kept when the app does not start: enough for an npm error with its stack, and what the
 * generator (or the initializer) gets as feedback. The blocked reason quotes only the last few of them.
 */
export const APP_LOG_TAIL_LINES = 40;
/** Lines of the log quoted in the one-line-first blocked reason (the full tail is in `lastLines`). */
const REASON_LOG_LINES = 10;
/** The most of the app's output kept in the log file; the rest is dropped with a note. */
export const APP_LOG_LIMIT_BYTES = 8 * 1024 * 1024;

/** How to start the workspace's app. */
export interface StartAppOptions {
  /** The workspace holding `init.sh`. */
  workspace: string;
  /** The port the browser uses on the host's 127.0.0.1, also the app's `$PORT` (default: a free port). */
  port?: number;
  /** Where the script's stdout and stderr go (appended by the harness, at most {@link APP_LOG_LIMIT_BYTES}). */
  logFile: string;
  /** How long to wait for the first HTTP answer (default 60 s). */
  readyTimeoutMs?: number;
  /** Extra variables for `init.sh` (secret and harness variables are dropped); `PORT` is always set. */
  env?: Record<string, string>;
  /** Grace period between SIGTERM and SIGKILL when stopping (default 5 s). */
  stopGraceMs?: number;
  /** `auto` (default) and `bubblewrap`: the box, refused where it cannot run; `none`: no box (explicit opt-out). */
  sandbox?: SandboxChoice;
  /** The app's network mode (default `registries`: init.sh installs its dependencies; roles pass the run's mode). */
  network?: NetworkMode;
  /** Extra destinations for the policy. */
  allowHosts?: string[];
  /** An npm registry URL (as the host reaches it) for init.sh's installs: allowed, and npm's registry in the box. */
  npmRegistry?: string;
  /** Extra absolute paths hidden from the app (home directories, `/run` and the data dir always are). */
  hiddenPaths?: string[];
  /** Workspace-relative paths the app may not change (default {@link APP_READ_ONLY_PATHS}). */
  readOnlyPaths?: string[];
  /** Ports inside the app's box forwarded to Unix sockets outside. */
  forwards?: BoxForward[];
  /** Called for each destination the box's egress proxy refuses. */
  onEgressRefused?: (refusal: EgressRefusal) => void;
  /** Memory of the app's box, init.sh included (default {@link BOX_LIMIT_DEFAULTS}: 2 GiB). */
  maxMemoryBytes?: number;
  /** Largest file the app may write (`ulimit -f`; default 1 GiB). */
  maxFileSizeBytes?: number;
}

/** A started app. */
export interface RunningApp {
  /** `http://127.0.0.1:<port>/` on the host. */
  url: string;
  /** Host pid of the box (bwrap), or of `bash init.sh` without the box. */
  pid?: number;
  /** The app's Unix socket: give it as a `forward` to another box to reach the app there (box only). */
  socketPath?: string;
  /** Stops every process of the app (the whole box); resolves when they are gone. */
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

/** Longest log line kept in a tail (a minified bundle or a progress bar would crowd out the rest). */
const MAX_TAIL_LINE_CHARS = 400;

/** The last `count` non-empty lines of a file, each cut to a few hundred characters (empty when it cannot be read). */
export async function lastLines(file: string, count = APP_LOG_TAIL_LINES): Promise<string[]> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .slice(-count)
    .map((line) => (line.length > MAX_TAIL_LINE_CHARS ? `${line.slice(0, MAX_TAIL_LINE_CHARS)} …` : line));
}

/** Appends output to the log file, up to the limit; the box never gets a descriptor of it. */
function logWriter(file: string): { write: (chunk: Buffer) => void; close: () => Promise<void> } {
  const stream = createWriteStream(file, { flags: 'a' });
  stream.on('error', (error) => log.warn({ err: error, file }, 'cannot write the app log'));
  let written = 0;
  return {
    write: (chunk) => {
      if (written >= APP_LOG_LIMIT_BYTES) return;
      const room = APP_LOG_LIMIT_BYTES - written;
      written += chunk.length;
      stream.write(chunk.length > room ? chunk.subarray(0, room) : chunk);
      if (written >= APP_LOG_LIMIT_BYTES) stream.write('\n[nightshift: app log cut at 8 MiB]\n');
    },
    close: () => new Promise((resolve) => stream.end(resolve)),
  };
}

async function launch(options: StartAppOptions, output: (chunk: Buffer) => void): Promise<AppBox> {
  const sandbox = await resolveSandbox(options.sandbox ?? 'auto');
  const workspace = realPathOf(path.resolve(options.workspace)).real;
  const readOnly = (options.readOnlyPaths ?? APP_READ_ONLY_PATHS).map(
    (p) => realPathOf(path.join(workspace, p)).real,
  );
  return startAppBox({
    workspace,
    sandbox,
    command: `exec bash ./${WORKSPACE_FILES.initScript}`,
    ...(options.port === undefined ? {} : { port: options.port }),
    network: networkPolicy(options.network ?? 'registries', options.allowHosts ?? [], options.npmRegistry),
    hiddenPaths: [...ALWAYS_HIDDEN, os.homedir(), dataDir(), ...(options.hiddenPaths ?? [])],
    readOnlyPaths: readOnly,
    ...(options.env ? { env: options.env } : {}),
    ...(options.forwards ? { forwards: options.forwards } : {}),
    ...(options.onEgressRefused ? { onEgressRefused: options.onEgressRefused } : {}),
    output,
    maxProcesses: BOX_LIMIT_DEFAULTS.maxProcesses,
    maxFileSizeBytes: options.maxFileSizeBytes ?? BOX_LIMIT_DEFAULTS.maxFileSizeBytes,
    maxMemoryBytes: options.maxMemoryBytes ?? BOX_LIMIT_DEFAULTS.maxMemoryBytes,
  });
}

/** Says that the app's box hit its memory limit, when the kernel killed a process of it for that. */
export function memoryNote(memory: MemoryOutcome): string | undefined {
  if (memory.oomKills === 0) return undefined;
  const mib = Math.round(memory.limitBytes / 1024 ** 2);
  return `the app's box exceeded its memory limit of ${mib} MiB (sandbox.roles.app.memoryMiB or sandbox.memoryMiB): the kernel killed ${memory.oomKills} of its processes`;
}

/** `note` put first on the blocked reason's summary line: the cause before its symptoms. */
function withFirstLineNote(text: string, note: string | undefined): string {
  return note ? `${note}; ${text}` : text;
}

/**
 * Runs `bash init.sh` with `PORT` in the box (scrubbed environment, hidden home and data dir, private /tmp,
 * its own network under the policy, `.git`, the feature list and `.nightshift/` read-only) and waits until the
 * app answers HTTP through the bridge at `http://127.0.0.1:<port>/`. A script that exits 0 may have backgrounded
 * the app: waiting goes on. A non-zero exit before the app answers, or the timeout, stops the box and gives a
 * `blocked` reason; so does a machine where the box cannot run (unless the sandbox is explicitly `none`).
 */
export function startApp(options: StartAppOptions): Promise<StartAppResult> {
  return inSpan('app.start', {}, async (span) => {
    const result = await startAppInBox(options);
    if (!result.ok) span.fail(result.exitCode === null ? 'not_answering' : 'init_exited');
    else span.set({ 'nightshift.app.pid': result.app.pid });
    return result;
  });
}

async function startAppInBox(options: StartAppOptions): Promise<StartAppResult> {
  const timeoutMs = options.readyTimeoutMs ?? 60_000;
  const logFile = logWriter(options.logFile);
  let box: AppBox;
  try {
    box = await launch(options, logFile.write);
  } catch (error) {
    await logFile.close();
    if (error instanceof SandboxUnavailableError) {
      return {
        ok: false,
        reason: `the app was not started: ${error.describe()}`,
        exitCode: null,
        lastLines: [],
      };
    }
    throw error;
  }
  const stop = async () => {
    await box.stop(options.stopGraceMs ?? 5_000);
    const memory = memoryNote(box.memory());
    if (memory) logFile.write(Buffer.from(`\n[nightshift: ${memory}]\n`));
    await logFile.close();
  };
  const fail = async (
    reason: (lines: string[]) => string,
    exitCode: number | null,
  ): Promise<StartAppResult> => {
    await stop();
    const lines = await lastLines(options.logFile);
    const text = withFirstLineNote(reason(lines.slice(-REASON_LOG_LINES)), memoryNote(box.memory()));
    return { ok: false, reason: text, exitCode, lastLines: lines };
  };
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await answersHttp(box.url)) {
      log.info({ workspace: options.workspace, url: box.url, pid: box.pid }, 'app is answering');
      const app: RunningApp = { url: box.url, pid: box.pid, stop };
      if (box.socketPath) app.socketPath = box.socketPath;
      return { ok: true, app };
    }
    const exitCode = box.exitCode();
    if (exitCode !== undefined && exitCode !== 0) {
      return fail(
        (lines) =>
          `init.sh exited with code ${exitCode} before the app answered on port ${box.port}; last log lines (${path.basename(options.logFile)}):\n${lines.join('\n')}`,
        exitCode,
      );
    }
    await sleep(READY_POLL_MS);
  }
  const code = box.exitCode() ?? null;
  const status = code === null ? 'init.sh was still running' : `init.sh had exited with code ${code}`;
  return fail(
    (lines) =>
      `the app did not answer HTTP on port ${box.port} within ${Math.round(timeoutMs / 1000)} s (${status}); last log lines:\n${lines.join('\n')}`,
    code,
  );
}
