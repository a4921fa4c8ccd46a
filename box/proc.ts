/**
 * The one /proc reader (Linux): the process table, one process's state and working directory, and finding and
 * killing every process a command started. A process can leave its process group (setsid, nohup + disown) and be
 * re-parented to init when its parent exits, so a command's tree is found by several links at once: parent pid,
 * process group, session, and (optionally) a marker variable in its initial environment.
 */
import fs from 'node:fs';

/** One row of the process table (`/proc/<pid>/stat`). */
export interface ProcessEntry {
  pid: number;
  ppid: number;
  /** Process group id. */
  pgid: number;
  /** Session id. */
  sid: number;
  /** One-letter state; `Z` is a zombie (dead, not yet reaped). */
  state: string;
  /** Start time in clock ticks since boot: with the pid, identifies a process across pid reuse. */
  startTime: number;
  /** Executable name as the kernel reports it (at most 15 characters). */
  comm: string;
}

/** Parses `/proc/<pid>/stat`; the command name may contain spaces and parentheses, so split after the last `)`. */
export function parseStat(stat: string): ProcessEntry | undefined {
  const close = stat.lastIndexOf(')');
  if (close === -1) return undefined;
  const pid = Number.parseInt(stat, 10);
  if (!Number.isFinite(pid)) return undefined;
  // Fields after the name: state, ppid, pgrp, session, tty, …, starttime (the 20th).
  const fields = stat.slice(close + 2).split(' ');
  const [ppid, pgid, sid] = [fields[1], fields[2], fields[3]].map((f) => Number.parseInt(f ?? '', 10)) as [
    number,
    number,
    number,
  ];
  return {
    pid,
    ppid,
    pgid,
    sid,
    state: fields[0] ?? '?',
    startTime: Number(fields[19]),
    comm: stat.slice(stat.indexOf('(') + 1, close),
  };
}

/** Reads one process from /proc, or undefined when it does not exist (any more). */
export function readProcess(pid: number): ProcessEntry | undefined {
  try {
    return parseStat(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return undefined;
  }
}

/** The current process table (processes that vanish while reading are skipped). */
export function listProcesses(): ProcessEntry[] {
  const entries: ProcessEntry[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const entry = readProcess(Number(name));
    if (entry) entries.push(entry);
  }
  return entries;
}

/** The working directory of a process, or null when it cannot be read. */
export function processCwd(pid: number): string | null {
  try {
    return fs.readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    return null;
  }
}

/**
 * True while the process exists and is not a zombie (a zombie is dead already; it only waits for its parent to
 * reap it) and, given a start time, is still the same process.
 */
export function isRunning(pid: number, startTime?: number): boolean {
  const entry = readProcess(pid);
  if (entry === undefined || entry.state === 'Z') return false;
  return startTime === undefined || entry.startTime === startTime;
}

/** False when `entry` holds the root's pid but started at another time than the root (a reused pid). */
function isTheRoot(entry: ProcessLinks, roots: TreeRoots): boolean {
  return (
    roots.rootStartTime === undefined ||
    entry.startTime === undefined ||
    entry.startTime === roots.rootStartTime
  );
}

function startedBefore(entry: ProcessLinks, rootStartTime: number | undefined): boolean {
  return rootStartTime !== undefined && entry.startTime !== undefined && entry.startTime < rootStartTime;
}

function hasMarker(pid: number, marker: string): boolean {
  try {
    return fs.readFileSync(`/proc/${pid}/environ`).includes(marker);
  } catch {
    return false;
  }
}

/** The links between processes that `findCommandProcesses` follows (and, when known, when each started). */
export type ProcessLinks = Pick<ProcessEntry, 'pid' | 'ppid' | 'pgid' | 'sid'> & { startTime?: number };

/** What ties a process to one command. */
export interface TreeRoots {
  /** The spawned process (also a group and session leader, since it was spawned detached). */
  rootPid: number;
  /** `NAME=value` set only in this command's environment; finds processes that left the tree. */
  marker?: string;
  /**
   * The root's start time (clock ticks, as in /proc): a process that started before it cannot be the command's,
   * so its environment is not read for the marker (most of the table: the browser, the workers, the services).
   */
  rootStartTime?: number;
}

/** Pids of every process of the command: descendants of the root, its group, its session, marked ones. */
export function findCommandProcesses(roots: TreeRoots, table: ProcessLinks[] = listProcesses()): number[] {
  const self = process.pid;
  const found = new Set<number>();
  // The root was reaped and its pid taken since: that pid, its group and its session are another process's. (While
  // a group or session of the command's lives, the kernel gives its id to no new process.)
  const rootReused = table.some((entry) => entry.pid === roots.rootPid && !isTheRoot(entry, roots));
  for (const entry of table) {
    if (entry.pid === self) continue;
    if (
      !rootReused &&
      (entry.pid === roots.rootPid || entry.pgid === roots.rootPid || entry.sid === roots.rootPid)
    ) {
      found.add(entry.pid);
    } else if (
      roots.marker &&
      !startedBefore(entry, roots.rootStartTime) &&
      hasMarker(entry.pid, roots.marker)
    ) {
      found.add(entry.pid);
    }
  }
  // Close over parent links: children of anything found (they may have changed group and session).
  const children = new Map<number, number[]>();
  for (const entry of table) {
    const list = children.get(entry.ppid) ?? [];
    list.push(entry.pid);
    children.set(entry.ppid, list);
  }
  const queue = [...found];
  while (queue.length > 0) {
    const pid = queue.pop() as number;
    for (const child of children.get(pid) ?? []) {
      if (child !== self && !found.has(child)) {
        found.add(child);
        queue.push(child);
      }
    }
  }
  return [...found];
}

function killPid(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(pid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * SIGKILLs the command's processes, re-scanning until none is left (a process may fork while we
 * kill), at most `rounds` times. Returns the pids signalled.
 */
export async function killCommandProcesses(roots: TreeRoots, rounds = 20): Promise<number[]> {
  const killed = new Set<number>();
  const root = readProcess(roots.rootPid);
  // Not the group of a process that took the reaped root's pid.
  if (root === undefined || isTheRoot(root, roots)) killPid(-roots.rootPid, 'SIGKILL');
  for (let round = 0; round < rounds; round++) {
    const pids = findCommandProcesses(roots).filter((pid) => isRunning(pid));
    if (pids.length === 0) break;
    for (const pid of pids) if (killPid(pid, 'SIGKILL')) killed.add(pid);
    await new Promise((resolve) => setTimeout(resolve, 10 * (round + 1)));
  }
  return [...killed];
}
