/**
 * An optional pids cgroup per command: caps the number of processes (a fork bomb stops at the cap,
 * which `ulimit -u` cannot do for root) and lists every process of the command however it
 * detached, for a complete kill. Used when a writable pids controller exists (cgroup v1
 * `/sys/fs/cgroup/pids`, or a v2 hierarchy with `pids` delegated); otherwise nothing happens.
 */
import fs from 'node:fs';
import path from 'node:path';
import { moduleLogger } from '../../core/log.js';

const log = moduleLogger('agent/sandbox');

/** Where per-command cgroups may be created, most specific first. */
const CANDIDATE_BASES = ['/sys/fs/cgroup/pids', '/sys/fs/cgroup/unified', '/sys/fs/cgroup'];

let sequence = 0;
let usableBase: string | null | undefined;

/** One command's cgroup. */
export interface CommandCgroup {
  /** Directory of the cgroup. */
  dir: string;
  /** File a process writes its pid to in order to join. */
  procsFile: string;
}

function tryCreate(base: string, maxProcesses: number): CommandCgroup | undefined {
  const dir = path.join(base, `nightshift-${process.pid}-${++sequence}`);
  try {
    fs.mkdirSync(dir);
  } catch {
    return undefined;
  }
  try {
    // A cgroup directory comes with its control files; a plain directory (e.g. on a tmpfs) does not.
    if (!fs.existsSync(path.join(dir, 'cgroup.procs'))) throw new Error('not a cgroup');
    fs.writeFileSync(path.join(dir, 'pids.max'), String(maxProcesses), { flag: 'r+' });
    return { dir, procsFile: path.join(dir, 'cgroup.procs') };
  } catch {
    fs.rmdirSync(dir);
    return undefined;
  }
}

/** Creates a pids cgroup capped at `maxProcesses`, or returns undefined when none can be made. */
export function createCommandCgroup(maxProcesses: number): CommandCgroup | undefined {
  if (usableBase === null) return undefined;
  const bases = usableBase ? [usableBase] : CANDIDATE_BASES;
  for (const base of bases) {
    const group = tryCreate(base, maxProcesses);
    if (group) {
      usableBase = base;
      return group;
    }
  }
  if (usableBase === undefined) log.debug('no writable pids cgroup: process count relies on ulimit -u only');
  usableBase = null;
  return undefined;
}

/** Pids currently in the cgroup. */
export function cgroupPids(group: CommandCgroup): number[] {
  try {
    return fs
      .readFileSync(group.procsFile, 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => Number.parseInt(line, 10));
  } catch {
    return [];
  }
}

/** SIGKILLs everything in the cgroup until it is empty, then removes it. */
export async function destroyCommandCgroup(group: CommandCgroup, rounds = 50): Promise<void> {
  for (let round = 0; round < rounds; round++) {
    const pids = cgroupPids(group);
    if (pids.length === 0) break;
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 10 + round * 5));
  }
  try {
    fs.rmdirSync(group.dir);
  } catch (error) {
    log.warn({ dir: group.dir, error: (error as Error).message }, 'could not remove a command cgroup');
  }
}
