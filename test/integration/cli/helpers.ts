import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Command, CommanderError } from 'commander';
import type { Redis } from 'ioredis';
import type { CliDeps } from '../../../cli/context.js';
import { NightshiftError } from '../../../core/errors.js';
import type { RunStore } from '../../../orchestrator/run/index.js';
import { feature, result, verdict } from '../../unit/orchestrator/fixtures.js';
import { newRun } from '../orchestrator/redis-helpers.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');

/** The CLI entry the child-process tests run: `bin/nightshift.js` (an override only to try unwired commands). */
export const CLI_ENTRY = process.env.NIGHTSHIFT_TEST_CLI_ENTRY ?? path.join(ROOT, 'bin/nightshift.js');

/** What a CLI invocation left behind. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** A fresh temp dir (the test removes it). */
export function tempDir(label: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `nightshift-${label}-`));
}

/** The environment of a CLI under test: its own data dir and key prefix, nothing from the developer's config. */
export function cliEnv(home: string, prefix: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NIGHTSHIFT_HOME: home,
    NIGHTSHIFT_KEY_PREFIX: prefix,
    NIGHTSHIFT_LOG_LEVEL: 'silent',
    ...extra,
  };
  delete env.NIGHTSHIFT_CONFIG;
  return env;
}

/** Runs `node bin/nightshift.js ...args` as a real child process. */
export function runCli(args: string[], options: { env: NodeJS.ProcessEnv; cwd: string }): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_ENTRY, ...args], {
      cwd: options.cwd,
      env: options.env,
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

/**
 * Runs commands in-process on a bare program with only the given commands registered, the way `main` does:
 * a NightshiftError becomes its exit code and a message on stderr.
 */
export async function runInProcess(
  register: ReadonlyArray<(program: Command, deps: CliDeps) => void>,
  args: string[],
  deps: Omit<CliDeps, 'stdout' | 'stderr' | 'setExitCode'>,
): Promise<CliResult & { error?: NightshiftError }> {
  let stdout = '';
  let stderr = '';
  let code = 0;
  const full: CliDeps = {
    ...deps,
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    setExitCode: (value) => {
      code = value;
    },
  };
  const program = new Command('nightshift').exitOverride().configureOutput({
    writeOut: (text) => (stdout += text),
    writeErr: (text) => (stderr += text),
  });
  for (const fn of register) fn(program, full);
  try {
    await program.parseAsync(['node', 'nightshift', ...args]);
    return { code, stdout, stderr };
  } catch (error) {
    if (error instanceof CommanderError) return { code: error.exitCode === 0 ? 0 : 2, stdout, stderr };
    if (error instanceof NightshiftError) {
      return { code: error.exitCode, stdout, stderr: `${stderr}${error.describe()}\n`, error };
    }
    throw error;
  }
}

/** A run with features F-001..F-00n (the first `passing` of them passing), one finished session costing $0.50. */
export async function seedRun(
  store: RunStore,
  id: string,
  options: { features?: number; passing?: number } = {},
): Promise<void> {
  const count = options.features ?? 4;
  const passing = options.passing ?? 1;
  await store.createRun(newRun({}, id));
  await store.setStatus(id, 'initializing');
  await store.replaceFeatures(
    id,
    Array.from({ length: count }, (_, index) => feature(index + 1)),
  );
  await store.setStatus(id, 'building');
  for (let n = 1; n <= passing; n++) {
    const seq = await store.nextSeq(id);
    await store.recordSessionResult(
      id,
      seq,
      result('evaluator', [feature(n).id], {
        verdicts: [verdict(feature(n).id, 'pass', seq)],
      }),
    );
  }
}

/** Deletes the keys of a prefix (runs and BullMQ queues). */
export { deleteKeys, uniquePrefix } from '../orchestrator/redis-helpers.js';

/** The stored status of a run, read straight from Redis. */
export async function storedRun(redis: Redis, prefix: string, id: string): Promise<Record<string, unknown>> {
  return JSON.parse((await redis.get(`${prefix}run:{${id}}`)) ?? 'null');
}
