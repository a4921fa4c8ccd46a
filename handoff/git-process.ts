/**
 * One harness git process: the binary, the harness's `-c` settings and environment, the argument check, and
 * the result. Started without a client library: one that waits 50 ms after every command that prints nothing
 * (simple-git's completion check) cost each handoff a few hundred milliseconds for `add`, `clean`, `fetch`…
 */
import diagnosticsChannel from 'node:diagnostics_channel';
import { vulnerabilityCheck } from '@simple-git/argv-parser';
import { runCollected } from '../core/spawn-helper.js';
import { inSpan } from '../core/trace.js';
import { HARNESS_GIT_UNSAFE } from './git-env.js';

/** How one git process runs. */
export interface GitProcessInput {
  binary: string;
  /** Every argument, `-c` settings and location first. */
  args: string[];
  cwd: string;
  /** The whole environment (nothing is inherited). */
  env: Record<string, string>;
}

/** A refused or failed git process; `message` is its output, as git printed it (stdout, then stderr). */
export class GitProcessError extends Error {
  override readonly name = 'GitProcessError';
}

/**
 * Refuses arguments that could make git run a program or reach elsewhere (`--upload-pack`, `-c core.sshCommand`,
 * `protocol.*.allow`…) unless they are the harness's own settings, as simple-git's argument check did.
 */
export function refuseUnsafeArgs(args: readonly string[], env: Record<string, string>): void {
  const allowed: Record<string, boolean> = { ...HARNESS_GIT_UNSAFE };
  for (const vulnerability of vulnerabilityCheck([...args], env)) {
    if (allowed[vulnerability.category] !== true) throw new GitProcessError(vulnerability.message);
  }
}

/**
 * Runs git and resolves to its stdout. It fails when git exits non-zero *and* printed on stderr (the message is
 * stdout then stderr); a non-zero exit with a quiet stderr (`rev-parse --verify -q`, `config --get` of a missing
 * key) resolves to its stdout, so questions can be answered by the output alone.
 */
export function runGitProcess(input: GitProcessInput): Promise<string> {
  const env = { ...input.env, GIT_TEST_DISALLOW_ABBREVIATED_OPTIONS: 'true' };
  refuseUnsafeArgs(input.args, env);
  // The span names the subcommand only: other arguments may be URLs with credentials, or paths.
  const subcommand = gitSubcommand(input.args);
  return inSpan(`git ${subcommand}`, { 'nightshift.git.subcommand': subcommand }, async () => {
    const start = Date.now();
    try {
      return await spawnGit(input, env);
    } finally {
      if (gitProcessChannel.hasSubscribers) gitProcessChannel.publish({ subcommand, start, end: Date.now() });
    }
  });
}

/** One harness git process as it ended: its subcommand, wall-clock start and end (epoch ms). */
export interface GitProcessSpan {
  subcommand: string;
  start: number;
  end: number;
}

/** Where each harness git process of this process is told as it ends ({@link GitProcessSpan}; benchmarks listen). */
export const gitProcessChannel = diagnosticsChannel.channel('nightshift:git-process');

/** The git subcommand among the arguments (after the `-c` settings and `-C` location), or `git` when none. */
export function gitSubcommand(args: readonly string[]): string {
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] ?? '';
    if (arg === '-c' || arg === '-C') index++;
    else if (!arg.startsWith('-')) return arg;
  }
  return 'git';
}

async function spawnGit(input: GitProcessInput, env: Record<string, string>): Promise<string> {
  // Started by the process helper (core/spawn-helper.ts): a fork of the worker itself froze its loop per command.
  const result = await runCollected({
    binary: input.binary,
    args: input.args,
    cwd: input.cwd,
    env,
    // Its own process group: a terminal's Ctrl-C (SIGINT to the foreground group) must reach the CLI, which
    // pauses and checkpoints, not kill the harness's git halfway through a session's closing.
    detached: true,
  }).catch((error: Error) => {
    throw new GitProcessError(error.message, { cause: error });
  });
  if (result.error !== undefined) throw new GitProcessError(result.error);
  if (result.code !== 0 && result.stderr.length > 0)
    throw new GitProcessError(`${result.stdout}${result.stderr}`);
  return result.stdout;
}
