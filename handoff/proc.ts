import { readdir, readFile, readlink } from 'node:fs/promises';

/** One process as seen in /proc. */
export interface ProcInfo {
  pid: number;
  ppid: number;
  /** Process group id. */
  pgid: number;
  /** One-letter state; `Z` is a zombie (dead, not yet reaped). */
  state: string;
  /** Start time in clock ticks since boot: with the pid, identifies a process across pid reuse. */
  startTime: number;
  /** Executable name as the kernel reports it (at most 15 characters). */
  comm: string;
}

/** Reads one process from /proc, or null when it does not exist (any more). */
export async function readProc(pid: number): Promise<ProcInfo | null> {
  let text: string;
  try {
    text = await readFile(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The name sits in parentheses and may itself contain spaces and parentheses.
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  const fields = text.slice(close + 2).split(' ');
  return {
    pid,
    comm: text.slice(open + 1, close),
    state: fields[0] ?? '?',
    ppid: Number(fields[1]),
    pgid: Number(fields[2]),
    startTime: Number(fields[19]),
  };
}

/** Every process currently in /proc. */
export async function listProcesses(): Promise<ProcInfo[]> {
  const names = await readdir('/proc');
  const infos = await Promise.all(names.filter((n) => /^\d+$/.test(n)).map((n) => readProc(Number(n))));
  return infos.filter((info): info is ProcInfo => info !== null);
}

/** The working directory of a process, or null when it cannot be read. */
export async function processCwd(pid: number): Promise<string | null> {
  try {
    return await readlink(`/proc/${pid}/cwd`);
  } catch {
    return null;
  }
}

/** True while the process exists and is not a zombie (and, given a start time, is still the same process). */
export async function isRunning(pid: number, startTime?: number): Promise<boolean> {
  const info = await readProc(pid);
  if (info === null || info.state === 'Z') return false;
  return startTime === undefined || info.startTime === startTime;
}

/** The processes descending from `rootPid` (children, grandchildren…), not including it. */
export function descendantsOf(rootPid: number, processes: ProcInfo[]): ProcInfo[] {
  const byParent = new Map<number, ProcInfo[]>();
  for (const p of processes) byParent.set(p.ppid, [...(byParent.get(p.ppid) ?? []), p]);
  const out: ProcInfo[] = [];
  const queue = [rootPid];
  while (queue.length > 0) {
    const pid = queue.shift()!;
    for (const child of byParent.get(pid) ?? []) {
      out.push(child);
      queue.push(child.pid);
    }
  }
  return out;
}
