/**
 * Short-lived processes (git, mostly) started by a small helper process instead of by the caller. Node starts a
 * child with fork(), which copies the caller's page tables and blocks its event loop until the child has exec'd:
 * in a worker (~280 MB resident, a browser's protocol and two sessions on the same loop) that was 22 ms of frozen
 * loop and 7 ms of CPU for every git command, ~110 of them a feature (docs/architecture.md, Harness git). The
 * helper is a bare Node process of a few tens of MB that does nothing else; the caller only sends it a message.
 *
 * The helper gets exactly the binary, arguments, directory and environment the caller would have used, so what
 * runs is unchanged. It lives in its own process group (a terminal's Ctrl-C must not kill it halfway through a
 * checkpoint) and exits when its caller goes (its IPC channel closes). Where it cannot start (or three in a row die
 * before answering), or with `NIGHTSHIFT_SPAWN_HELPER=off`, processes are started directly, as before.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { z } from 'zod';
import { InputError } from './errors.js';
import { moduleLogger } from './log.js';

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

/**
 * The helper's program (CommonJS, Node built-ins only: it runs under `node -e` whatever loaded the caller, tsx or
 * the bundle). It answers each request when the process closes (or at once when it cannot start it: no binary, no
 * file descriptors left), and exits when its caller disconnects.
 */
const HELPER_SOURCE = `
const { spawn } = require('node:child_process');
process.title = 'nightshift process helper';
process.on('SIGINT', () => {});
process.on('disconnect', () => process.exit(0));
process.on('message', (request) => {
  const reply = (fields) => { if (process.connected) process.send({ id: request.id, ...fields }); };
  const failed = (error) => reply({ code: null, signal: null, stdout: '', stderr: '', error: String((error && error.message) || error) });
  try {
    const child = spawn(request.binary, request.args, { cwd: request.cwd, env: request.env, stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true, detached: request.detached });
    const out = [];
    const err = [];
    let startError;
    child.stdout.on('data', (chunk) => out.push(chunk));
    child.stderr.on('data', (chunk) => err.push(chunk));
    child.on('error', (error) => { startError = error.message; });
    child.once('close', (code, signal) => {
      const fields = { code, signal, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') };
      reply(startError === undefined ? fields : { ...fields, error: startError });
    });
  } catch (error) {
    failed(error);
  }
});
`;

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
}

/** One helper process and the requests it has not answered yet. */
class SpawnHelper {
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private stopping = false;
  /** It answered at least one request (a helper that dies before its first answer may not work here at all). */
  answered = false;

  private constructor(private readonly child: ChildProcess) {
    child.on('message', (message: unknown) => this.answer(message));
    child.once('exit', (code, signal) => {
      if (this.pending.size > 0 || !this.stopping) log.warn({ code, signal }, 'the process helper exited');
      this.failAll(`the process helper exited (${signal ?? `code ${code}`})`);
    });
    child.once('disconnect', () => this.failAll('the process helper disconnected'));
    child.unref();
    this.idle();
  }

  /** Starts a helper; undefined when Node cannot start one here. */
  static start(): SpawnHelper | undefined {
    try {
      const child = spawn(process.execPath, ['-e', HELPER_SOURCE], {
        stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
        // Nothing of the caller's environment: every request carries the environment of its own process.
        env: {},
        // Not the caller's directory: every request names its own, and the helper holds no workspace open.
        cwd: '/',
        detached: true,
        windowsHide: true,
      });
      child.on('error', (error) => log.warn({ err: error }, 'the process helper failed'));
      if (child.pid === undefined || !child.connected) return undefined;
      return new SpawnHelper(child);
    } catch (error) {
      log.warn({ err: error }, 'could not start the process helper; processes start directly');
      return undefined;
    }
  }

  get usable(): boolean {
    return this.child.connected;
  }

  /** Sends the request; resolves with the process's end. */
  run(request: CollectedRequest): Promise<CollectedProcess> {
    const id = this.nextId++;
    return new Promise<CollectedProcess>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      // A request in flight keeps the caller alive, as its own child would; an idle helper does not.
      this.child.channel?.ref();
      this.child.send({ id, ...request }, (error) => {
        if (!error) return;
        this.pending.delete(id);
        this.idle();
        reject(new SpawnHelperUnreachableError(`could not reach the process helper: ${error.message}`));
      });
    });
  }

  /** Ends the helper (its running processes finish on their own); resolves once it has exited and been reaped. */
  stop(): Promise<void> {
    this.stopping = true;
    if (this.child.exitCode !== null || this.child.signalCode !== null) return Promise.resolve();
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    // Waiting for its exit needs the handle counted by the event loop until then.
    this.child.ref();
    if (this.child.connected) this.child.disconnect();
    return exited;
  }

  private answer(message: unknown): void {
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
    if (this.pending.size === 0) this.child.channel?.unref();
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
/** Helpers in a row that went away before answering anything. */
let silentDeaths = 0;
/** After this many silent helpers, the process gives up on them (a helper cannot run here). */
const MAX_SILENT_DEATHS = 3;

/**
 * `NIGHTSHIFT_SPAWN_HELPER`: `on` (the default, also when unset or empty) or `off`. Anything else is refused
 * rather than read as either: a typo such as `of` must not quietly keep the helper on.
 */
export function spawnHelperSetting(env: NodeJS.ProcessEnv = process.env): 'on' | 'off' {
  const raw = env.NIGHTSHIFT_SPAWN_HELPER;
  if (raw === undefined || raw === '' || raw === 'on') return 'on';
  if (raw === 'off') return 'off';
  throw new InputError('ENV_INVALID', `NIGHTSHIFT_SPAWN_HELPER must be "on" or "off", not "${raw}".`, {
    hint: 'NIGHTSHIFT_SPAWN_HELPER=off starts git from the process itself; unset it to use the process helper.',
  });
}

/** Whether processes go through the helper (`NIGHTSHIFT_SPAWN_HELPER=off` starts them directly). */
export function spawnHelperEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return spawnHelperSetting(env) === 'on' && !helperUnavailable;
}

/**
 * Runs the process to completion and collects its output: through this process's helper (started on first use,
 * started again when it went away), or directly where there is none.
 */
export async function runCollected(request: CollectedRequest): Promise<CollectedProcess> {
  if (!spawnHelperEnabled()) return runDirectly(request);
  if (!helper?.usable) {
    if (helper && !helper.answered) silentDeaths += 1;
    else if (helper) silentDeaths = 0;
    helper = silentDeaths >= MAX_SILENT_DEATHS ? undefined : SpawnHelper.start();
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
