import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { spawnChild } from '../../cli/processes.js';
import type { StoredRunEvent } from '../../orchestrator/events.js';
import { openQueues } from '../../orchestrator/queues.js';
import type { RunRecord, SessionRecord } from '../../orchestrator/run/index.js';
import { RunStore } from '../../orchestrator/run/index.js';
import { deleteKeys, REDIS_URL, SCRIPTED_MODEL, SCRIPTED_PRICE } from '../integration/runs/harness.js';

/** The repository root (bin/, testkit/, examples/). */
export const ROOT = path.resolve(import.meta.dirname, '../..');
/** The CLI as users run it. */
export const CLI = path.join(ROOT, 'bin/nightshift.js');
/** The todo example's spec. */
export const TODO_SPEC = path.join(ROOT, 'examples/todo/app_spec.md');
/** The demo policy module (the todo build, with the planted bug in F-005). */
export const DEMO_POLICY = path.join(ROOT, 'testkit/policies/demo.ts');

/** A child process of a test, with its log file. */
export interface TestProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly logFile: string;
  /** Resolves when it has exited (with its exit code, or null after a signal). */
  readonly exited: Promise<number | null>;
  /** SIGKILL, resolves once it is gone. */
  kill(): Promise<void>;
  /** SIGTERM, SIGKILL after `graceMs`; resolves once it is gone. */
  stop(graceMs?: number): Promise<void>;
}

/** Everything one e2e test owns: a temp root, a key prefix, a marker in every child's environment, the children. */
export interface E2eContext {
  root: string;
  prefix: string;
  /** Value of `NIGHTSHIFT_E2E_MARKER` in the children's environment: strays are found by it. */
  marker: string;
  redis: Redis;
  store: RunStore;
  children: TestProcess[];
  /** Ends every child, kills strays (orphaned apps, browsers), deletes the keys and the temp root. */
  close(): Promise<void>;
}

/** Creates the context of one e2e test. */
export function createE2eContext(label: string): E2eContext {
  const id = randomBytes(4).toString('hex');
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `ns-e2e-${label}-`)));
  const prefix = `nse2e-${id}:`;
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  const store = new RunStore(redis, { prefix });
  const children: TestProcess[] = [];
  const context: E2eContext = {
    root,
    prefix,
    marker: `${label}-${id}`,
    redis,
    store,
    children,
    close: async () => {
      await Promise.all(children.map((child) => child.stop(5_000)));
      await killStrays(root, context.marker);
      const queues = openQueues({ url: REDIS_URL, maxRetriesPerRequest: null }, prefix);
      await queues.sessions.obliterate({ force: true }).catch(() => undefined);
      await queues.control.obliterate({ force: true }).catch(() => undefined);
      await queues.close();
      await deleteKeys(redis, prefix);
      await store.close();
      redis.disconnect();
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
  return context;
}

/**
 * Starts `testkit/main.ts <policy>` as a process; resolves to its base URLs once it listens. `latencyMs` pauses
 * between the frames of each streamed reply (a session that lasts long enough to be interrupted).
 */
export async function startScriptedServer(
  context: E2eContext,
  policyModule = DEMO_POLICY,
  options: { latencyMs?: number } = {},
): Promise<{ url: string; anthropicBaseURL: string }> {
  const latency = options.latencyMs === undefined ? [] : ['--latency-ms', String(options.latencyMs)];
  const { child, first } = await spawnChild<{ url: string; anthropicBaseURL: string }>({
    entry: 'testkit/main.ts',
    args: [policyModule, ...latency],
    env: { ...process.env, NIGHTSHIFT_LOG_LEVEL: 'warn', NIGHTSHIFT_E2E_MARKER: context.marker },
    logFile: path.join(context.root, 'logs', 'model-server.log'),
    firstLineJson: true,
  });
  const exited = new Promise<number | null>((resolve) => {
    if (child.process.exitCode !== null) resolve(child.process.exitCode);
    child.process.once('exit', (code) => resolve(code));
  });
  context.children.push({
    child: child.process,
    pid: child.process.pid ?? -1,
    logFile: child.logFile,
    exited,
    kill: async () => {
      child.process.kill('SIGKILL');
      await exited;
    },
    stop: (graceMs) => child.stop(graceMs),
  });
  if (!first) throw new Error('the scripted model server printed no URLs');
  return first;
}

/** Requests the scripted server has received so far (its `/health`). */
export async function serverRequestCount(url: string): Promise<number> {
  const response = await fetch(`${url}/health`);
  return ((await response.json()) as { requests: number }).requests;
}

/**
 * Writes a config file for the CLI: the scripted model for every role with a price (costs are known),
 * no bubblewrap, and an event log large enough to keep a whole run's events (the tests read all of them).
 */
export function writeConfig(context: E2eContext, run: Record<string, unknown> = {}): string {
  const file = path.join(context.root, 'nightshift.config.json');
  const config = {
    eventLogMaxLength: 1_000_000,
    run: {
      models: { initializer: SCRIPTED_MODEL, generator: SCRIPTED_MODEL, evaluator: SCRIPTED_MODEL },
      prices: { [SCRIPTED_MODEL]: SCRIPTED_PRICE },
      sandbox: { bubblewrap: 'off', network: false },
      ...run,
    },
  };
  fs.writeFileSync(file, JSON.stringify(config, null, 2));
  return file;
}

/** The environment of a nightshift CLI process of this test: its own data dir, the shared prefix and server. */
export function cliEnv(
  context: E2eContext,
  options: { home: string; configFile: string; anthropicBaseURL: string; extra?: NodeJS.ProcessEnv },
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    REDIS_URL,
    NIGHTSHIFT_HOME: options.home,
    NIGHTSHIFT_KEY_PREFIX: context.prefix,
    NIGHTSHIFT_CONFIG: options.configFile,
    NIGHTSHIFT_LOG_LEVEL: 'info',
    NIGHTSHIFT_E2E_MARKER: context.marker,
    ANTHROPIC_API_KEY: 'sk-ant-scripted-000000',
    ANTHROPIC_BASE_URL: options.anthropicBaseURL,
    ...options.extra,
  };
  delete env.NIGHTSHIFT_REDIS_URL;
  return env;
}

/** Starts a long-running `nightshift <args>` process (a worker, a foreground run) with its output in a log file. */
export function startCli(
  context: E2eContext,
  args: string[],
  env: NodeJS.ProcessEnv,
  label: string,
): TestProcess {
  const logFile = path.join(context.root, 'logs', `${label}.log`);
  fs.mkdirSync(path.dirname(logFile), { recursive: true });
  const fd = fs.openSync(logFile, 'a');
  const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, env, stdio: ['ignore', fd, fd] });
  fs.closeSync(fd);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const handle = processHandle(child, logFile, exited);
  context.children.push(handle);
  return handle;
}

/** A {@link TestProcess} of a spawned child: SIGKILL, or SIGTERM then SIGKILL after a grace period. */
function processHandle(child: ChildProcess, logFile: string, exited: Promise<number | null>): TestProcess {
  const gone = () => child.exitCode !== null || child.signalCode !== null;
  return {
    child,
    pid: child.pid ?? -1,
    logFile,
    exited,
    kill: async () => {
      if (!gone()) child.kill('SIGKILL');
      await exited;
    },
    stop: async (graceMs = 10_000) => {
      if (gone()) return;
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      child.kill('SIGTERM');
      await exited;
      clearTimeout(timer);
    },
  };
}

/** A CLI process in a terminal of its own (a pseudo-terminal from util-linux `script`), as a person runs it. */
export interface TerminalProcess extends TestProcess {
  /** Types Ctrl-C in the terminal: the terminal sends SIGINT to its foreground process group. */
  typeCtrlC(): void;
  /** Everything the terminal showed so far (escape sequences and carriage returns kept). */
  screen(): string;
  /** The CLI's log file (named on its first line, "log: …"), as far as written; empty before it is named. */
  log(): string;
}

const shellQuote = (arg: string) => `'${arg.replaceAll("'", "'\\''")}'`;

/**
 * Starts `nightshift <args>` in a 200-column pseudo-terminal: stdout and stderr are a TTY (the progress line is
 * redrawn in place) and Ctrl-C reaches it the way a terminal delivers it. Its exit code is the CLI's.
 */
export function startCliInTerminal(
  context: E2eContext,
  args: string[],
  env: NodeJS.ProcessEnv,
  label: string,
): TerminalProcess {
  const logFile = path.join(context.root, 'logs', `${label}.log`);
  fs.mkdirSync(path.dirname(logFile), { recursive: true });
  const command = `stty cols 200 rows 50; exec ${[process.execPath, CLI, ...args].map(shellQuote).join(' ')}`;
  // As a person runs it: no log level set, so the CLI logs (at info) to its data dir and the terminal shows only what
  // it says to people. JSON lines on a terminal the test drains slowly at high load could block the CLI's writes.
  const { NIGHTSHIFT_LOG_LEVEL: _level, VITEST: _vitest, ...personal } = env;
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    cwd: ROOT,
    env: personal,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const out = fs.createWriteStream(logFile);
  let screen = '';
  const record = (chunk: Buffer) => {
    screen += chunk.toString('utf8');
    out.write(chunk);
  };
  child.stdout?.on('data', record);
  child.stderr?.on('data', record);
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const handle: TerminalProcess = {
    ...processHandle(child, logFile, exited),
    typeCtrlC: () => child.stdin?.write('\x03'),
    screen: () => screen,
    log: () => {
      const file = /\(log: ([^)]+)\)/.exec(screen)?.[1];
      return file && fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
    },
  };
  context.children.push(handle);
  return handle;
}

/** Runs `nightshift <args>` to completion, capturing stdout and stderr. */
export function runCliOnce(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/** The worker id of a `nightshift worker` process contains its pid (`<host>-<pid>-<random>`). */
export function isWorkerOf(workerId: string, pid: number): boolean {
  return workerId.includes(`-${pid}-`);
}

/** Every session record of a run, by seq. */
export async function allSessions(store: RunStore, runId: string): Promise<SessionRecord[]> {
  return (await store.listSessions(runId, { offset: 0, limit: 10_000 })).sessions;
}

/** Every event of a run, oldest first. */
export async function allEvents(store: RunStore, runId: string): Promise<StoredRunEvent[]> {
  const events: StoredRunEvent[] = [];
  for (;;) {
    const page = await store.readEvents(runId, {
      count: 1_000,
      ...(events.length ? { after: events[events.length - 1]?.id } : {}),
    });
    events.push(...page);
    if (page.length < 1_000) return events;
  }
}

/**
 * Checks from the event log that sessions of a run never overlapped: each `session.started` follows the
 * previous session's `session.finished`, unless the previous session's worker was killed (then the same
 * seq is restarted). Returns the problems found (empty = sequential).
 */
export function overlappingSessions(
  events: readonly StoredRunEvent[],
  killedWorkers: ReadonlySet<string>,
): string[] {
  const problems: string[] = [];
  let open: { seq: number; workerId: string } | undefined;
  for (const { event } of events) {
    if (event.type === 'session.started') {
      if (open && !killedWorkers.has(open.workerId)) {
        problems.push(
          `session ${event.seq} (${event.workerId}) started while ${open.seq} (${open.workerId}) ran`,
        );
      }
      if (open && killedWorkers.has(open.workerId) && open.seq !== event.seq) {
        problems.push(`session ${open.seq} of a killed worker was not restarted: ${event.seq} came next`);
      }
      open = { seq: event.seq, workerId: event.workerId };
    } else if (event.type === 'session.finished') {
      if (!open || open.seq !== event.seq)
        problems.push(`session ${event.seq} finished but was not the one running`);
      open = undefined;
    }
  }
  return problems;
}

/** Checks from the session records that finished sessions did not overlap in time. */
export function overlappingIntervals(sessions: readonly SessionRecord[]): string[] {
  const finished = sessions.filter((session) => session.finishedAt).sort((a, b) => a.seq - b.seq);
  const problems: string[] = [];
  for (let index = 1; index < finished.length; index++) {
    const before = finished[index - 1] as SessionRecord;
    const after = finished[index] as SessionRecord;
    if (Date.parse(after.startedAt) < Date.parse(before.finishedAt as string)) {
      problems.push(
        `session ${after.seq} started ${after.startedAt}, before ${before.seq} finished ${before.finishedAt}`,
      );
    }
  }
  return problems;
}

/**
 * Kills processes a test left behind: anything whose working directory is under `root` (apps started by
 * init.sh, agent commands) or whose environment carries the test's marker (browsers of a killed worker).
 */
export async function killStrays(root: string, marker: string): Promise<number[]> {
  const killed: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    if (strayOf(pid, root, marker)) {
      try {
        process.kill(pid, 'SIGKILL');
        killed.push(pid);
      } catch {
        // already gone
      }
    }
  }
  return killed;
}

function strayOf(pid: number, root: string, marker: string): boolean {
  try {
    const cwd = fs.readlinkSync(`/proc/${pid}/cwd`);
    if (cwd === root || cwd.startsWith(`${root}/`)) return true;
  } catch {
    // gone, or not ours to read
  }
  try {
    return fs.readFileSync(`/proc/${pid}/environ`, 'latin1').includes(`NIGHTSHIFT_E2E_MARKER=${marker}\0`);
  } catch {
    return false;
  }
}

/** Resolves after `ms`. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The newest run on a local workspace directory, if any. */
export async function runOnWorkspace(store: RunStore, workspace: string): Promise<RunRecord | undefined> {
  return (await store.listRuns()).find(
    (candidate) => candidate.workspace.kind === 'local' && candidate.workspace.path === workspace,
  );
}

/** Waits (bounded) until the newest run on `workspace` has a session of `role` in flight; returns the run. */
export async function untilSessionInFlight(
  store: RunStore,
  workspace: string,
  role: string,
  timeoutMs = 240_000,
): Promise<RunRecord> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const run = await runOnWorkspace(store, workspace);
    if (run) {
      const { sessions } = await store.listSessions(run.id, { offset: 0, limit: 1, order: 'desc' });
      const latest = sessions[0];
      if (latest && !latest.finishedAt && latest.role === role) return run;
    }
    await sleep(200);
  }
  throw new Error(`no ${role} session was in flight on ${workspace} within ${timeoutMs / 1000} s`);
}

/** Starts `nightshift dashboard --port 0 --json` as a process of the test; resolves to its URL. */
export async function startDashboardProcess(context: E2eContext, env: NodeJS.ProcessEnv): Promise<string> {
  const dashboard = startCli(context, ['dashboard', '--port', '0', '--json'], env, 'dashboard');
  for (let tries = 0; tries < 600; tries++) {
    const url = /\{"url":"([^"]+)"\}/.exec(fs.readFileSync(dashboard.logFile, 'utf8'))?.[1];
    if (url) return url;
    if (dashboard.child.exitCode !== null) break;
    await sleep(100);
  }
  throw new Error(`the dashboard printed no URL (see ${dashboard.logFile})`);
}

/** A same-origin POST to a dashboard's API (as its own page sends it); resolves to the answer's JSON. */
export async function postToDashboard(dashboard: string, route: string): Promise<unknown> {
  const response = await fetch(`${dashboard}${route}`, { method: 'POST', headers: { origin: dashboard } });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`POST ${route}: ${response.status} ${text}`);
  return JSON.parse(text);
}
