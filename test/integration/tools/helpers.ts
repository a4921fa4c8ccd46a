import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ToolContext, ToolOutput } from '../../../agent/tool.js';
import type { SandboxInfo } from '../../../box/bubblewrap.js';
import { NO_NETWORK } from '../../../box/network-policy.js';
import type { SandboxRunRequest } from '../../../box/run.js';

/** A real temp workspace (real path) inside a temp parent that also holds an "outside" directory. */
export function makeWorkspace(): { root: string; workspace: string; outside: string; cleanup: () => void } {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ns-tools-')));
  const workspace = path.join(root, 'ws');
  const outside = path.join(root, 'outside');
  fs.mkdirSync(workspace);
  fs.mkdirSync(outside);
  return { root, workspace, outside, cleanup: () => fs.rmSync(root, { recursive: true, force: true }) };
}

/** A tool context for a workspace. */
export function contextFor(
  workspace: string,
  protectedPaths: string[] = [],
  signal?: AbortSignal,
): ToolContext {
  return { workspace, protectedPaths, signal: signal ?? new AbortController().signal };
}

/** The text of a tool result. */
export function textOf(output: ToolOutput | string): string {
  return typeof output === 'string' ? output : output.content;
}

/** Host pids whose command line contains `token`. */
export function pidsWithToken(token: string): number[] {
  const found: number[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const cmdline = fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').replace(/\0/g, ' ');
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      const zombie = stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
      if (!zombie && cmdline.includes(token)) found.push(Number(name));
    } catch {
      // Gone.
    }
  }
  return found;
}

/** Polls until `check` is true (no timing assertion: the test's own timeout bounds it). */
export async function waitUntil(check: () => boolean, pollMs = 25): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, pollMs));
}

/** A unique `sleep` duration usable as a token to find the process by its command line. */
export function sleepToken(): string {
  return `1000.${Math.floor(Math.random() * 1e9)}`;
}

/** A bubblewrap request for `runSandboxed` below the tool (no deny list): the sandbox boundary itself. */
export function boxRequest(
  info: SandboxInfo,
  workspace: string,
  command: string,
  extra: Partial<SandboxRunRequest> = {},
): SandboxRunRequest {
  return {
    command,
    workspace,
    mode: 'bubblewrap',
    bwrapPath: info.path,
    userNamespace: info.userNamespace,
    network: NO_NETWORK,
    timeoutMs: 30_000,
    outputLimitBytes: 1024 * 1024,
    hiddenPaths: ['/root', '/home', '/run'],
    readOnlyPaths: [],
    maxProcesses: 512,
    maxFileSizeBytes: 1024 ** 3,
    maxMemoryBytes: 2 * 1024 ** 3,
    ...extra,
  };
}
