import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (where bin/, testkit/ and examples/ live). */
export const INSTALL_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** A child process started by the CLI, with its log file. */
export interface Child {
  process: ChildProcess;
  logFile: string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when it has exited. */
  stop(graceMs?: number): Promise<void>;
}

/** The process entries of this install: the CLI and the testkit's scripted model server. */
const ENTRY_SCRIPTS = { 'cli/bin.ts': 'bin/nightshift.js', 'testkit/main.ts': 'bin/testkit.js' } as const;

/**
 * Starts an entry of this install (bin/nightshift.js or bin/testkit.js, which load the TypeScript sources) with
 * its own log file; when `firstLineJson` is set, resolves once the child printed its first stdout line, parsed as JSON.
 */
export async function spawnChild<T = unknown>(options: {
  entry: keyof typeof ENTRY_SCRIPTS;
  args: string[];
  env: NodeJS.ProcessEnv;
  logFile: string;
  firstLineJson?: boolean;
  timeoutMs?: number;
}): Promise<{ child: Child; first?: T }> {
  mkdirSync(path.dirname(options.logFile), { recursive: true });
  const log = createWriteStream(options.logFile, { flags: 'a' });
  const child = spawn(
    process.execPath,
    [path.join(INSTALL_DIR, ENTRY_SCRIPTS[options.entry]), ...options.args],
    {
      cwd: INSTALL_DIR,
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child.stderr?.pipe(log, { end: false });
  const handle: Child = {
    process: child,
    logFile: options.logFile,
    stop: (graceMs = 10_000) => stopChild(child, graceMs),
  };
  if (!options.firstLineJson) {
    child.stdout?.pipe(log, { end: false });
    return { child: handle };
  }
  const first = await readFirstLine<T>(child, options.timeoutMs ?? 60_000, options.logFile);
  child.stdout?.pipe(log, { end: false });
  return { child: handle, first };
}

function readFirstLine<T>(child: ChildProcess, timeoutMs: number, logFile: string): Promise<T> {
  return new Promise((resolve, reject) => {
    let buffer = '';
    const timer = setTimeout(
      () => fail(new Error(`no answer within ${timeoutMs} ms (see ${logFile})`)),
      timeoutMs,
    );
    const onData = (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      const newline = buffer.indexOf('\n');
      if (newline < 0) return;
      cleanup();
      try {
        resolve(JSON.parse(buffer.slice(0, newline)) as T);
      } catch (error) {
        reject(error);
      }
    };
    const onExit = (code: number | null) =>
      fail(new Error(`exited with code ${code} before it was ready (see ${logFile})`));
    function cleanup() {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.off('exit', onExit);
    }
    function fail(error: Error) {
      cleanup();
      child.kill('SIGKILL');
      reject(error);
    }
    child.stdout?.on('data', onData);
    child.once('exit', onExit);
  });
}

function stopChild(child: ChildProcess, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/**
 * Replaces what `ps` and `/proc/<pid>/cmdline` show for this process with `nightshift <command>`: an argument
 * that held a secret (a `--repo` URL with a token) stays readable there for the whole run otherwise. Node writes
 * the title over the original argv memory, so the arguments are gone, not only hidden.
 */
export function hideArguments(command: string): void {
  process.title = `nightshift ${command}`;
}
