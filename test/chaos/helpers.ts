/** Processes for the chaos suite: a private redis-server with an append-only file, CLI workers, the scripted model. */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
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
          execFileSync('redis-cli', ['-p', String(this.port), 'ping'], { encoding: 'utf8' }).includes('PONG')
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
  child.stderr?.on('data', (chunk) => {
    stderr = (stderr + chunk).slice(-20_000);
  });
  return { child, stderr: () => stderr };
}

/** SIGKILL a worker's whole process group (the worker and anything it left in its group). */
export async function killWorker(worker: WorkerProcess): Promise<void> {
  const pid = worker.child.pid;
  if (pid === undefined || worker.child.exitCode !== null || worker.child.signalCode !== null) return;
  const exited = new Promise((resolve) => worker.child.once('exit', resolve));
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
    const role = /initializer/i.test(conversation.system.slice(0, 400))
      ? 'initializer'
      : /evaluat/i.test(conversation.system.slice(0, 400))
        ? 'evaluator'
        : 'generator';
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
