/**
 * bubblewrap (`bwrap`): detection (probed once per process and cached) and the argument list that
 * builds the sandbox of one command.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { isInside } from '../core/paths.js';
import { SYSTEM_PATH } from './env.js';

/** What `nightshift doctor` shows about the sandbox. */
export interface SandboxInfo {
  /** True when bubblewrap is installed and can create a sandbox here. */
  bubblewrap: boolean;
  /** `bubblewrap 0.8.0`, when found. */
  version?: string;
  /** Why bubblewrap is not usable (not installed, no namespaces, …). */
  reason?: string;
  /** Whether a user namespace is used (capabilities fully dropped, bounding set included). */
  userNamespace?: boolean;
  /** Absolute path of the `bwrap` binary. */
  path?: string;
}

/**
 * The hidden paths every sandbox gets: home directories, mounted secrets, and `/run` (where host services
 * keep their Unix sockets: databases, Redis, D-Bus — reachable by path even without a network).
 */
export const ALWAYS_HIDDEN = ['/root', '/home', '/run', '/var/run'];

/**
 * Flags common to every sandbox and to the probe. The network namespace is always private: a box reaches
 * the outside only through the bridges the harness binds into it (box/box.ts).
 */
function isolationFlags(userNamespace: boolean): string[] {
  return [
    '--die-with-parent',
    '--new-session',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-net',
    ...(userNamespace ? ['--unshare-user'] : []),
    // Root inside the sandbox would otherwise keep CAP_SYS_ADMIN and could unmount the hiding tmpfs.
    '--cap-drop',
    'ALL',
  ];
}

function findBwrap(): string | undefined {
  const dirs = [...SYSTEM_PATH, ...(process.env.PATH ?? '').split(path.delimiter)].filter(Boolean);
  for (const dir of dirs) {
    const candidate = path.join(dir, 'bwrap');
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // Not here.
    }
  }
  return undefined;
}

function run(file: string, args: string[]): Promise<{ ok: boolean; output: string }> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      { env: { PATH: SYSTEM_PATH.join(':') }, timeout: 10_000 },
      (error, stdout, stderr) => {
        resolve({ ok: !error, output: `${stdout}${stderr}`.trim() });
      },
    );
  });
}

async function probe(): Promise<SandboxInfo> {
  const bwrap = findBwrap();
  if (!bwrap)
    return { bubblewrap: false, reason: 'bwrap not found on PATH (install the bubblewrap package)' };
  const version = (await run(bwrap, ['--version'])).output.split('\n')[0] || undefined;
  const base = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', '--', 'true'];
  let lastError = '';
  for (const userNamespace of [true, false]) {
    const attempt = await run(bwrap, [...isolationFlags(userNamespace), ...base]);
    if (attempt.ok) return { bubblewrap: true, version, userNamespace, path: bwrap };
    lastError = attempt.output;
  }
  return {
    bubblewrap: false,
    version,
    path: bwrap,
    reason: `bwrap cannot create a sandbox here: ${lastError}`,
  };
}

let cached: Promise<SandboxInfo> | undefined;

/** Whether bubblewrap works on this machine (probed once per process, then cached). */
export function sandboxInfo(): Promise<SandboxInfo> {
  cached ??= probe();
  return cached;
}

/** Inputs of `bubblewrapArgs`. */
export interface BubblewrapLayout {
  /** Real path of the workspace: bound read-write, the working directory. */
  workspace: string;
  /** Absolute paths covered by an empty tmpfs (directories) or /dev/null (files). */
  hiddenPaths: readonly string[];
  /** Absolute real paths inside the workspace bound read-only over the workspace bind. */
  readOnlyPaths: readonly string[];
  /**
   * Absolute paths inside the workspace that do not exist yet but must not be created from inside: an empty
   * read-only directory (`emptyDir`) is mounted there (bwrap leaves an empty directory behind on the host).
   */
  readOnlyPlaceholders?: readonly string[];
  /** An empty directory on the host, the source of the placeholders. */
  emptyDir?: string;
  /** Extra binds, applied last (the box's bridge directories and relay). */
  binds?: ReadonlyArray<{ source: string; dest: string; readOnly: boolean }>;
  /** Directories re-bound read-only even if hidden (e.g. the node installation under /root). */
  toolPaths: readonly string[];
  /** HOME inside the sandbox (created on its private /tmp). */
  home: string;
  /** From the probe. */
  userNamespace: boolean;
}

function realOrUndefined(p: string): string | undefined {
  try {
    return fs.realpathSync.native(p);
  } catch {
    return undefined;
  }
}

/** Hidden paths that exist, deduplicated, parents before children, nothing already under /tmp or another. */
function hideMounts(hiddenPaths: readonly string[]): string[] {
  const reals = [...new Set(hiddenPaths.map(realOrUndefined).filter((p): p is string => p !== undefined))];
  reals.sort((a, b) => a.length - b.length);
  const kept: string[] = [];
  for (const p of reals) {
    if (p === '/' || isInside('/tmp', p) || kept.some((parent) => isInside(parent, p))) continue;
    kept.push(p);
  }
  const args: string[] = [];
  for (const p of kept) {
    if (fs.statSync(p).isDirectory()) args.push('--tmpfs', p);
    else args.push('--ro-bind', '/dev/null', p);
  }
  return args;
}

/** The bwrap arguments (up to and including `--`) for one command. */
export function bubblewrapArgs(layout: BubblewrapLayout): string[] {
  const args = [
    ...isolationFlags(layout.userNamespace),
    '--hostname',
    'sandbox',
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--tmpfs',
    '/tmp',
    '--dir',
    layout.home,
    ...hideMounts(layout.hiddenPaths),
  ];
  for (const tool of layout.toolPaths) {
    const real = realOrUndefined(tool);
    const hidden = ['/tmp', ...layout.hiddenPaths.map((p) => realOrUndefined(p) ?? p)];
    if (real && hidden.some((h) => isInside(h, real))) args.push('--ro-bind', real, real);
  }
  // After the tmpfs mounts, so a workspace under /tmp or under a hidden directory stays visible.
  args.push('--bind', layout.workspace, layout.workspace);
  for (const p of layout.readOnlyPaths) args.push('--ro-bind-try', p, p);
  if (layout.emptyDir)
    for (const p of layout.readOnlyPlaceholders ?? []) args.push('--ro-bind', layout.emptyDir, p);
  for (const bind of layout.binds ?? [])
    args.push(bind.readOnly ? '--ro-bind' : '--bind', bind.source, bind.dest);
  args.push('--chdir', layout.workspace, '--');
  return args;
}
