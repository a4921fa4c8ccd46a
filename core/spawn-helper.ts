/**
 * Short-lived processes (git, mostly) started by a small helper process instead of by the caller. Node starts a
 * child with fork(), which copies the caller's page tables and blocks its event loop until the child has exec'd:
 * in a worker (~280 MB resident, a browser's protocol and two sessions on the same loop) that was 22 ms of frozen
 * loop and 7 ms of CPU for every git command, ~110 of them a feature (docs/architecture.md, Harness git). The
 * helper is a small process that does nothing else (a Python program where Python 3 is installed, else a bare
 * Node: core/spawn-helper-programs.ts); the caller only writes it a line.
 *
 * The helper gets exactly the binary, arguments, directory and environment the caller would have used, so what
 * runs is unchanged. It lives in its own process group (a terminal's Ctrl-C must not kill it halfway through a
 * checkpoint) and exits when its caller goes (its stdin ends). Where it cannot start (or three in a row die before
 * answering), or with `NIGHTSHIFT_SPAWN_HELPER=off`, processes are started directly, as before.
 */
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import type { Socket } from 'node:net';
import readline from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { z } from 'zod';
import { InputError } from './errors.js';
import { moduleLogger } from './log.js';
import { type HelperKind, type HelperLaunch, nodeLaunch, pythonLaunch } from './spawn-helper-programs.js';

const log = moduleLogger('core/spawn-helper');

/** One process to run to completion, its output collected. */
export interface CollectedRequest {
  binary: string;
  args: readonly string[];
  cwd: string;
  /** The whole environment of the process (nothing is inherited). */
  env: Record<string, string>;
  /** Its own process group (signals to the caller's group do not reach it). */
  detached: boolean;
}

/** How a process ended and what it printed (decoded as UTF-8). */
export const CollectedProcess = z.object({
  code: z.number().int().nullable(),
  signal: z.string().nullable(),
  stdout: z.string(),
  stderr: z.string(),
  /** Why the process could not be started (e.g. `spawn git ENOENT`). */
  error: z.string().optional(),
});
export type CollectedProcess = z.infer<typeof CollectedProcess>;

/** The helper's reply to request `id`. */
const HelperReply = CollectedProcess.extend({ id: z.number().int() });

/** The helper's first line: it runs and reads requests (sent only from then on). */
const HelperReady = z.object({ ready: z.literal(true) }).strict();

/** The helper process went away before it answered. */
export class SpawnHelperExitedError extends Error {
  override readonly name = 'SpawnHelperExitedError';
}

/** The request never reached the helper (nothing was started). */
class SpawnHelperUnreachableError extends Error {
  override readonly name = 'SpawnHelperUnreachableError';
}

interface Pending {
  resolve(result: CollectedProcess): void;
  reject(error: Error): void;
  /** Set while the request waits for the helper to say it is ready (nothing of it has been sent). */
  unsent?: CollectedRequest;
}

/**
 * The request with every lone UTF-16 surrogate replaced by U+FFFD, as Node's own spawn encodes it: a commit subject
 * cut in the middle of an emoji must start the same git through any helper (Python cannot encode a lone surrogate).
 */
function wellFormed(request: CollectedRequest): CollectedRequest {
  const text = (value: string) => value.replace(/\p{Cs}/gu, '\uFFFD');
  return {
    binary: text(request.binary),
    args: request.args.map(text),
    cwd: text(request.cwd),
    env: Object.fromEntries(Object.entries(request.env).map(([name, value]) => [text(name), text(value)])),
    detached: request.detached,
  };
}

/** How long a helper may take to say it is ready before it is killed and its requests start directly. */
const READY_TIMEOUT_MS = 10_000;

/** How much of a helper's own stderr is kept, to say why it died. */
const STDERR_TAIL_BYTES = 2_048;

/** One helper process and the requests it has not answered yet. */
class SpawnHelper {
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private stopping = false;
  private closed = false;
  private stderrTail = '';
  /** It said it is ready: requests are sent from then on (before, they wait, and run directly if it dies). */
  private ready = false;
  private readonly readyTimer: NodeJS.Timeout;
  /** It answered at least one request (a helper that dies before its first answer may not work here at all). */
  answered = false;

  private constructor(
    private readonly child: ChildProcessByStdio<Writable, Readable, Readable>,
    readonly kind: HelperKind,
  ) {
    readline.createInterface({ input: child.stdout }).on('line', (line) => this.answer(line));
    child.stderr.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL_BYTES);
    });
    // A write to a helper that is gone: its close (below) fails what was in flight.
    child.stdin.on('error', () => undefined);
    // On close, not exit: replies it wrote just before exiting are read first.
    child.once('close', (code, signal) => {
      this.closed = true;
      clearTimeout(this.readyTimer);
      if (this.pending.size > 0 || !this.stopping)
        log.warn(
          { kind, code, signal, ready: this.ready, stderr: this.stderrTail },
          'the process helper exited',
        );
      this.runUnsentDirectly();
      this.failAll(`the process helper exited (${signal ?? `code ${code}`})`);
    });
    // A helper that never says it is ready (a Python that hangs on start) must not hold requests for ever.
    this.readyTimer = setTimeout(() => {
      if (!this.ready) child.kill('SIGKILL');
    }, READY_TIMEOUT_MS);
    this.readyTimer.unref();
    child.unref();
    this.idle();
  }

  /** Starts a helper running `launch`; undefined when it cannot be started here. */
  static start(launch: HelperLaunch): SpawnHelper | undefined {
    try {
      const child = spawn(launch.file, launch.args, {
        stdio: ['pipe', 'pipe', 'pipe'],
        // Nothing of the caller's environment: every request carries the environment of its own process.
        env: {},
        // Not the caller's directory: every request names its own, and the helper holds no workspace open.
        cwd: '/',
        detached: true,
        windowsHide: true,
      });
      child.on('error', (error) => log.warn({ err: error, kind: launch.kind }, 'the process helper failed'));
      if (child.pid === undefined) return undefined;
      return new SpawnHelper(child, launch.kind);
    } catch (error) {
      log.warn({ err: error, kind: launch.kind }, 'could not start the process helper');
      return undefined;
    }
  }

  get usable(): boolean {
    return (
      !this.closed &&
      this.child.exitCode === null &&
      this.child.signalCode === null &&
      this.child.stdin.writable
    );
  }

  /** Sends the request; resolves with the process's end. */
  run(request: CollectedRequest): Promise<CollectedProcess> {
    const id = this.nextId++;
    return new Promise<CollectedProcess>((resolve, reject) => {
      // A request in flight keeps the caller alive, as its own child would; an idle helper does not.
      this.refStreams(true);
      if (this.ready) {
        this.pending.set(id, { resolve, reject });
        this.send(id, request);
      } else this.pending.set(id, { resolve, reject, unsent: request });
    });
  }

  private send(id: number, request: CollectedRequest): void {
    this.child.stdin.write(`${JSON.stringify({ id, ...wellFormed(request) })}\n`, (error) => {
      const waiting = this.pending.get(id);
      if (!error || !waiting) return;
      this.pending.delete(id);
      this.idle();
      waiting.reject(new SpawnHelperUnreachableError(`could not reach the process helper: ${error.message}`));
    });
  }

  /** The helper said it is ready: the requests that waited for it are sent. */
  private becomeReady(): void {
    this.ready = true;
    clearTimeout(this.readyTimer);
    for (const [id, waiting] of this.pending) {
      if (!waiting.unsent) continue;
      const request = waiting.unsent;
      delete waiting.unsent;
      this.send(id, request);
    }
  }

  /** A helper that went away before it was ready received nothing: what waited for it starts directly. */
  private runUnsentDirectly(): void {
    for (const [id, waiting] of this.pending) {
      if (!waiting.unsent) continue;
      this.pending.delete(id);
      runDirectly(waiting.unsent).then(waiting.resolve, waiting.reject);
    }
  }

  /** Ends the helper (its running processes finish on their own); resolves once it has exited and been reaped. */
  stop(): Promise<void> {
    this.stopping = true;
    if (this.closed) return Promise.resolve();
    const closed = new Promise<void>((resolve) => this.child.once('close', () => resolve()));
    // Waiting for its exit needs the handles counted by the event loop until then.
    this.child.ref();
    this.refStreams(true);
    this.child.stdin.end();
    return closed;
  }

  private answer(line: string): void {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      log.warn(
        { kind: this.kind, line: line.slice(0, 200) },
        'the process helper wrote a line that is not JSON',
      );
      return;
    }
    if (HelperReady.safeParse(message).success) {
      this.becomeReady();
      return;
    }
    const parsed = HelperReply.safeParse(message);
    const id = parsed.success ? parsed.data.id : (message as { id?: unknown } | null)?.id;
    const waiting = typeof id === 'number' ? this.pending.get(id) : undefined;
    if (!waiting || typeof id !== 'number') {
      log.warn({ id }, 'the process helper answered no request in flight');
      return;
    }
    this.pending.delete(id);
    this.idle();
    this.answered = true;
    if (parsed.success) {
      const { id: _id, ...result } = parsed.data;
      waiting.resolve(result);
    } else {
      waiting.reject(
        new SpawnHelperExitedError('the process helper gave an answer that is not a process result'),
      );
    }
  }

  private idle(): void {
    if (this.pending.size === 0 && !this.stopping) this.refStreams(false);
  }

  private refStreams(referenced: boolean): void {
    for (const stream of [this.child.stdin, this.child.stdout, this.child.stderr]) {
      const socket = stream as Partial<Pick<Socket, 'ref' | 'unref'>>;
      if (referenced) socket.ref?.();
      else socket.unref?.();
    }
  }

  private failAll(why: string): void {
    for (const waiting of this.pending.values()) {
      // The process may have run: the caller is told it does not know how it ended, and does not retry blindly.
      waiting.reject(new SpawnHelperExitedError(`${why} before the process it started had finished`));
    }
    this.pending.clear();
  }
}

let helper: SpawnHelper | undefined;
/** The helper could not be started, or died before its first answer too often: children start directly from then on. */
let helperUnavailable = false;
/** A Python helper died before answering or could not start: the Node program runs from then on. */
let pythonUnusable = false;
/** Helpers in a row that went away before answering anything. */
let silentDeaths = 0;
/** After this many silent helpers, the process gives up on them (a helper cannot run here). */
const MAX_SILENT_DEATHS = 3;

/** The helper settings `NIGHTSHIFT_SPAWN_HELPER` accepts. */
export type SpawnHelperSetting = 'on' | 'node' | 'off';

/**
 * `NIGHTSHIFT_SPAWN_HELPER`: `on` (the default, also when unset or empty: the Python program where Python 3 is
 * installed, else the Node one), `node` (the Node program) or `off` (no helper). Anything else is refused rather
 * than read as one of them: a typo such as `of` must not quietly keep the helper on.
 */
export function spawnHelperSetting(env: NodeJS.ProcessEnv = process.env): SpawnHelperSetting {
  const raw = env.NIGHTSHIFT_SPAWN_HELPER;
  if (raw === undefined || raw === '' || raw === 'on') return 'on';
  if (raw === 'off' || raw === 'node') return raw;
  throw new InputError(
    'ENV_INVALID',
    `NIGHTSHIFT_SPAWN_HELPER must be "on", "node" or "off", not "${raw}".`,
    {
      hint: 'NIGHTSHIFT_SPAWN_HELPER=off starts git from the process itself, =node uses the Node helper; unset it for the default.',
    },
  );
}

/** Whether processes go through the helper (`NIGHTSHIFT_SPAWN_HELPER=off` starts them directly). */
export function spawnHelperEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return spawnHelperSetting(env) !== 'off' && !helperUnavailable;
}

/** Starts the helper the setting asks for: Python where it is installed and has not failed here, else Node. */
function startHelper(setting: SpawnHelperSetting): SpawnHelper | undefined {
  const python = setting === 'on' && !pythonUnusable ? pythonLaunch() : undefined;
  if (python) {
    const started = SpawnHelper.start(python);
    if (started) return started;
    pythonUnusable = true;
  }
  return SpawnHelper.start(nodeLaunch());
}

/**
 * Runs the process to completion and collects its output: through this process's helper (started on first use,
 * started again when it went away), or directly where there is none.
 */
export async function runCollected(request: CollectedRequest): Promise<CollectedProcess> {
  const setting = spawnHelperSetting();
  if (setting === 'off' || helperUnavailable) return runDirectly(request);
  if (!helper?.usable || (setting === 'node' && helper.kind !== 'node')) {
    if (helper && !helper.answered) {
      silentDeaths += 1;
      if (helper.kind === 'python') pythonUnusable = true;
    } else if (helper) silentDeaths = 0;
    if (helper?.usable) void helper.stop();
    helper = silentDeaths >= MAX_SILENT_DEATHS ? undefined : startHelper(setting);
    if (!helper) {
      log.warn({ silentDeaths }, 'no process helper here; processes start directly');
      helperUnavailable = true;
      return runDirectly(request);
    }
  }
  try {
    return await helper.run(request);
  } catch (error) {
    // Not sent: the process never started, so starting it directly changes nothing about what ran.
    if (error instanceof SpawnHelperUnreachableError) return runDirectly(request);
    throw error;
  }
}

/** Starts a helper running `launch` outside this process's own (tests start broken programs this way). */
export function startSpawnHelper(
  launch: HelperLaunch,
): Pick<SpawnHelper, 'run' | 'stop' | 'usable'> | undefined {
  return SpawnHelper.start(launch);
}

/**
 * Stops this process's helper, if it has one (a later request starts a new one); resolves once it has exited, so
 * its CPU and its children's count in this process's reaped-children figures.
 */
export async function stopSpawnHelper(): Promise<void> {
  const stopping = helper;
  helper = undefined;
  await stopping?.stop();
}

/** Starts the process from this process (the helper's fallback). */
export function runDirectly(request: CollectedRequest): Promise<CollectedProcess> {
  return new Promise((resolve) => {
    const child = spawn(request.binary, [...request.args], {
      cwd: request.cwd,
      env: request.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      windowsHide: true,
      detached: request.detached,
    });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let failed: string | undefined;
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.once('error', (error) => {
      failed = error.message;
    });
    child.once('close', (code, signal) => {
      resolve({
        code,
        signal,
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
        ...(failed === undefined ? {} : { error: failed }),
      });
    });
  });
}
