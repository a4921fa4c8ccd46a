/** Processes for the chaos suite: a private redis-server with an append-only file, CLI workers, the scripted model. */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { roleOf } from '../../testkit/policies/demo.js';
import type { Policy } from '../../testkit/types.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
/** The CLI entry. */
export const CLI = path.join(ROOT, 'bin/nightshift.js');

/** A free TCP port on loopback. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** A redis-server of our own (append-only file in `dir`), restartable on the same port and data. */
export class OwnRedis {
  private child: ChildProcess | undefined;
  constructor(
    readonly port: number,
    readonly dir: string,
  ) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    this.child = spawn(
      'redis-server',
      [
        '--port',
        String(this.port),
        '--bind',
        '127.0.0.1',
        '--appendonly',
        'yes',
        '--dir',
        this.dir,
        '--save',
        '',
      ],
      { stdio: 'ignore' },
    );
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      try {
        if (
          execFileSync('redis-cli', ['-p', String(this.port), 'ping'], {
            encoding: 'utf8',
            stdio: 'pipe',
          }).includes('PONG')
        )
          return;
      } catch {
        // Not up yet.
      }
      await sleep(100);
    }
    throw new Error(`redis-server on ${this.port} did not start`);
  }

  /** `SHUTDOWN` (clean, the AOF is flushed) or SIGKILL (a crash). */
  async stop(how: 'shutdown' | 'kill'): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    if (how === 'kill') child.kill('SIGKILL');
    else {
      try {
        execFileSync('redis-cli', ['-p', String(this.port), 'shutdown']);
      } catch {
        // The connection drops as the server exits.
      }
    }
    await exited;
  }
}

/** A `nightshift worker` child process in its own process group. */
export interface WorkerProcess {
  child: ChildProcess;
  stderr: () => string;
  /** When it said it started (its BullMQ workers run; the first stalled check is under way). */
  readyAt?: number;
  /** Set by {@link killWorker}: an exit without it is a crash. */
  killed?: boolean;
  /** When it said it was connected to Redis again after an outage (a failover seen). */
  reconnectedAt: number[];
}

/** Starts `nightshift worker` with `env`. */
export function startWorkerProcess(env: NodeJS.ProcessEnv, cwd: string): WorkerProcess {
  const child = spawn(process.execPath, [CLI, 'worker'], {
    env,
    cwd,
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const worker: WorkerProcess = { child, stderr: () => stderr, reconnectedAt: [] };
  child.stderr?.on('data', (chunk) => {
    stderr = (stderr + chunk).slice(-20_000);
    if (/connected to Redis at \S+ again/.test(String(chunk))) worker.reconnectedAt.push(Date.now());
    if (worker.readyAt === undefined && /nightshift worker \S+ started/.test(stderr))
      worker.readyAt = Date.now();
  });
  return worker;
}

/** SIGKILL a worker's whole process group (the worker and anything it left in its group). */
export async function killWorker(worker: WorkerProcess): Promise<void> {
  const pid = worker.child.pid;
  if (pid === undefined || worker.child.exitCode !== null || worker.child.signalCode !== null) return;
  const exited = new Promise((resolve) => worker.child.once('exit', resolve));
  worker.killed = true;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    worker.child.kill('SIGKILL');
  }
  await exited;
}

/** Pids of processes whose working directory is inside `dir` (apps left running by killed sessions). */
export function processesIn(dir: string): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cwd = fs.readlinkSync(`/proc/${entry}/cwd`);
      if (cwd === dir || cwd.startsWith(`${dir}/`)) pids.push(Number(entry));
    } catch {
      // Gone, or not ours to read.
    }
  }
  return pids;
}

/** One model request as the chaos policy saw it: which session (hash of its first message) and when. */
export interface RequestMark {
  session: string;
  role: string;
  at: number;
}

/** Wraps a policy to record which session each request belongs to. */
export function recordingPolicy(policy: Policy, marks: RequestMark[]): Policy {
  return (conversation) => {
    const first = JSON.stringify(conversation.messages[0] ?? '');
    const role = roleOf(conversation) ?? 'unknown';
    marks.push({
      session: createHash('sha1').update(first).digest('hex').slice(0, 10),
      role,
      at: Date.now(),
    });
    return policy(conversation);
  };
}

/** Pairs of sessions whose request spans overlap in time (there must be none: one session per run at a time). */
export function overlappingSessions(marks: readonly RequestMark[]): string[] {
  const spans = new Map<string, { from: number; to: number }>();
  for (const mark of marks) {
    const span = spans.get(mark.session);
    if (span) span.to = Math.max(span.to, mark.at);
    else spans.set(mark.session, { from: mark.at, to: mark.at });
  }
  const list = [...spans.entries()].sort((a, b) => a[1].from - b[1].from);
  const overlaps: string[] = [];
  for (let i = 1; i < list.length; i++) {
    const [prevId, prev] = list[i - 1] as [string, { from: number; to: number }];
    const [id, span] = list[i] as [string, { from: number; to: number }];
    if (span.from < prev.to)
      overlaps.push(`${prevId} [${prev.from}-${prev.to}] and ${id} [${span.from}-${span.to}]`);
  }
  return overlaps;
}

/** Resolves after `ms`. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * A bare git remote whose pre-receive hook the suite steers through files in `control`: `reject` holds how
 * many pushes to refuse next (each refusal appends a line to `rejected`); while `hold` exists a push writes
 * `pushing` and waits (up to 10 s) inside the hook, so the suite can kill the pusher mid-push.
 */
export class ChaosRemote {
  readonly control: string;
  constructor(
    readonly dir: string,
    readonly branch = 'main',
  ) {
    this.control = `${dir}-control`;
  }

  create(): void {
    execFileSync('git', ['init', '-q', '--bare', '-b', this.branch, this.dir]);
    fs.mkdirSync(this.control, { recursive: true });
    const hook = path.join(this.dir, 'hooks', 'pre-receive');
    fs.writeFileSync(
      hook,
      [
        '#!/bin/sh',
        `c='${this.control}'`,
        'if [ -f "$c/reject" ]; then',
        '  n=$(cat "$c/reject")',
        '  if [ "$n" -gt 0 ]; then',
        '    echo $((n - 1)) > "$c/reject"; echo refused >> "$c/rejected"',
        '    echo "chaos: this remote refuses the push ($n left)" >&2; exit 1',
        '  fi',
        'fi',
        'if [ -f "$c/hold" ]; then',
        '  echo $$ > "$c/pushing"; i=0',
        '  while [ -f "$c/hold" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done',
        'fi',
        'exit 0',
        '',
      ].join('\n'),
      { mode: 0o755 },
    );
  }

  /** Refuse the next `count` pushes. */
  refuse(count: number): void {
    fs.writeFileSync(path.join(this.control, 'reject'), String(count));
  }

  /** Pushes refused so far. */
  refused(): number {
    const file = path.join(this.control, 'rejected');
    return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim().split('\n').length : 0;
  }

  /** Makes the next pushes wait in the hook; resolves once one is in progress. */
  hold(): void {
    fs.rmSync(path.join(this.control, 'pushing'), { force: true });
    fs.writeFileSync(path.join(this.control, 'hold'), '');
  }

  pushing(): boolean {
    return fs.existsSync(path.join(this.control, 'pushing'));
  }

  release(): void {
    fs.rmSync(path.join(this.control, 'hold'), { force: true });
  }

  /** The branch's head on the remote, if it exists. */
  head(): string | undefined {
    try {
      return execFileSync(
        'git',
        ['-C', this.dir, 'rev-parse', '--verify', '-q', `refs/heads/${this.branch}`],
        {
          encoding: 'utf8',
          stdio: 'pipe',
        },
      ).trim();
    } catch {
      return undefined;
    }
  }

  /** Whether `sha` is in the branch's history. */
  contains(sha: string, tip: string): boolean {
    try {
      execFileSync('git', ['-C', this.dir, 'merge-base', '--is-ancestor', sha, tip], { stdio: 'pipe' });
      return true;
    } catch {
      return false;
    }
  }

  /** A file of the branch's tip. */
  show(file: string): string {
    return execFileSync('git', ['-C', this.dir, 'show', `${this.branch}:${file}`], { encoding: 'utf8' });
  }
}

/** A small tmpfs the suite can fill to ENOSPC and empty again; `mount` needs root (CI and this machine are). */
export class SmallDisk {
  private readonly filler: string;
  constructor(
    readonly dir: string,
    readonly sizeMb: number,
  ) {
    this.filler = path.join(dir, 'chaos-filler');
  }

  /** Mounts it; returns why it could not (no root, no mount namespace rights) instead of throwing. */
  mount(): string | undefined {
    fs.mkdirSync(this.dir, { recursive: true });
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${this.sizeMb}m,mode=0755`, 'chaosdisk', this.dir], {
        stdio: 'pipe',
      });
      return undefined;
    } catch (error) {
      return (error as Error).message.split('\n')[0];
    }
  }

  /** Fills what is left with one file (writes until ENOSPC); returns the bytes written. */
  fill(): number {
    const fd = fs.openSync(this.filler, 'a');
    const chunk = Buffer.alloc(256 * 1024);
    let written = 0;
    try {
      for (;;) written += fs.writeSync(fd, chunk);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
    } finally {
      fs.closeSync(fd);
    }
    return written;
  }

  /** Frees the space again. */
  empty(): void {
    fs.rmSync(this.filler, { force: true });
  }

  /** Free bytes. */
  free(): number {
    const stats = fs.statfsSync(this.dir);
    return stats.bavail * stats.bsize;
  }

  unmount(): void {
    try {
      execFileSync('umount', ['-l', this.dir], { stdio: 'pipe' });
    } catch {
      // Not mounted.
    }
  }
}

/** Pids of processes whose command line names `dir` or whose working directory is inside it. */
export function processesNaming(dir: string, word: string): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (cmdline.includes(dir) && cmdline.includes(word)) pids.push(Number(entry));
    } catch {
      // Gone, or not ours to read.
    }
  }
  return pids;
}
