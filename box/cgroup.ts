/**
 * Optional cgroups per command: a pids cgroup caps the number of processes (a fork bomb stops at the cap,
 * which `ulimit -u` cannot do for root) and lists every process of the command however it detached, for a
 * complete kill; a memory cgroup caps the memory of all the command's processes together (the kernel's OOM
 * killer then picks inside the box, never the worker, Chromium or Redis). Each is used when a writable
 * controller exists — cgroup v1 (`/sys/fs/cgroup/pids`, `/sys/fs/cgroup/memory`) or a v2 hierarchy with the
 * controller delegated — otherwise that cgroup is simply not made and the per-process ulimits stand alone.
 */
import fs from 'node:fs';
import path from 'node:path';
import { moduleLogger } from '../core/log.js';

const log = moduleLogger('box');

/** The controllers a command cgroup may use. */
type Controller = 'pids' | 'memory';

/** Where per-command cgroups may be created for each controller, most specific (v1) first. */
const CANDIDATE_BASES: Record<Controller, readonly string[]> = {
  pids: ['/sys/fs/cgroup/pids', '/sys/fs/cgroup/unified', '/sys/fs/cgroup'],
  memory: ['/sys/fs/cgroup/memory', '/sys/fs/cgroup/unified', '/sys/fs/cgroup'],
};

/** What a command cgroup caps. */
export interface CgroupLimits {
  maxProcesses: number;
  /** Memory of all processes together (no swap); undefined = no memory cgroup. */
  maxMemoryBytes?: number;
}

/** One command's cgroups (one directory per hierarchy: one on v2, up to two on v1). */
export interface CommandCgroup {
  /** Directories of the cgroups. */
  dirs: string[];
  /** Files a process writes its pid to in order to join (all of them). */
  procsFiles: string[];
  /** The file counting OOM kills (`memory.events` on v2, `memory.oom_control` on v1), when memory is capped. */
  oomEventsFile?: string;
}

let sequence = 0;
const usableBase: Partial<Record<Controller, string | null>> = {};

/** The limit files of a controller as found in `dir` (v1 or v2 names); the first must be written. */
function limitWrites(dir: string, controller: Controller, limits: CgroupLimits): Array<[string, string]> {
  if (controller === 'pids') return [['pids.max', String(limits.maxProcesses)]];
  const bytes = String(limits.maxMemoryBytes);
  if (fs.existsSync(path.join(dir, 'memory.max'))) {
    return [
      ['memory.max', bytes],
      ['memory.swap.max', '0'],
    ];
  }
  // v1: memsw (memory + swap) can only be set once the memory limit is; it is absent without swap accounting.
  return [
    ['memory.limit_in_bytes', bytes],
    ['memory.memsw.limit_in_bytes', bytes],
  ];
}

/** Makes a cgroup under `base` with the limits of `controllers`, or undefined when this base cannot. */
function tryCreate(
  base: string,
  controllers: readonly Controller[],
  limits: CgroupLimits,
): string | undefined {
  const dir = path.join(base, `nightshift-${process.pid}-${++sequence}`);
  try {
    fs.mkdirSync(dir);
  } catch {
    return undefined;
  }
  try {
    // A cgroup directory comes with its control files; a plain directory (e.g. on a tmpfs) does not.
    if (!fs.existsSync(path.join(dir, 'cgroup.procs'))) throw new Error('not a cgroup');
    for (const controller of controllers) {
      const [required, ...optional] = limitWrites(dir, controller, limits);
      fs.writeFileSync(path.join(dir, required![0]), required![1], { flag: 'r+' });
      for (const [file, value] of optional) {
        try {
          fs.writeFileSync(path.join(dir, file), value, { flag: 'r+' });
        } catch {
          // No swap accounting here: nothing to cap.
        }
      }
    }
    return dir;
  } catch {
    fs.rmdirSync(dir);
    return undefined;
  }
}

/** The base where cgroups of `controller` can be made (found once per process by trying), or null. */
function baseFor(controller: Controller, limits: CgroupLimits): string | null {
  const known = usableBase[controller];
  if (known !== undefined) return known;
  for (const base of CANDIDATE_BASES[controller]) {
    const dir = tryCreate(base, [controller], limits);
    if (dir) {
      fs.rmdirSync(dir);
      usableBase[controller] = base;
      return base;
    }
  }
  log.debug({ controller }, 'no writable cgroup controller: the per-process ulimits stand alone');
  usableBase[controller] = null;
  return null;
}

/** The OOM-kill counter file of a memory cgroup directory. */
function oomFile(dir: string): string {
  const v2 = path.join(dir, 'memory.events');
  return fs.existsSync(v2) ? v2 : path.join(dir, 'memory.oom_control');
}

/**
 * Creates the command's cgroups: pids capped at `maxProcesses`, and memory capped at `maxMemoryBytes` when
 * given; returns undefined when neither can be made.
 */
export function createCommandCgroup(limits: CgroupLimits): CommandCgroup | undefined {
  const wanted: Controller[] = limits.maxMemoryBytes === undefined ? ['pids'] : ['pids', 'memory'];
  const byBase = new Map<string, Controller[]>();
  for (const controller of wanted) {
    const base = baseFor(controller, limits);
    if (base) byBase.set(base, [...(byBase.get(base) ?? []), controller]);
  }
  const group: CommandCgroup = { dirs: [], procsFiles: [] };
  for (const [base, controllers] of byBase) {
    const dir = tryCreate(base, controllers, limits);
    if (!dir) {
      log.warn(
        { base, controllers },
        'could not create a command cgroup: the per-process ulimits stand alone',
      );
      continue;
    }
    group.dirs.push(dir);
    group.procsFiles.push(path.join(dir, 'cgroup.procs'));
    if (controllers.includes('memory')) group.oomEventsFile = oomFile(dir);
  }
  return group.dirs.length > 0 ? group : undefined;
}

/** Whether the command's memory is capped by a cgroup (the whole box), not only per process. */
export function capsMemory(group: CommandCgroup | undefined): boolean {
  return group?.oomEventsFile !== undefined;
}

/** How many processes the kernel killed for exceeding the memory cgroup's limit so far (0 without one). */
export function memoryKills(group: CommandCgroup | undefined): number {
  if (!group?.oomEventsFile) return 0;
  try {
    const text = fs.readFileSync(group.oomEventsFile, 'utf8');
    return Number(/^oom_kill (\d+)$/m.exec(text)?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** Pids currently in the cgroups. */
export function cgroupPids(group: CommandCgroup): number[] {
  const pids = new Set<number>();
  for (const file of group.procsFiles) {
    try {
      for (const line of fs.readFileSync(file, 'utf8').split('\n'))
        if (line.trim() !== '') pids.add(Number.parseInt(line, 10));
    } catch {
      // Removed already.
    }
  }
  return [...pids];
}

/** SIGKILLs everything in the cgroups until they are empty, then removes them. */
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
  for (const dir of group.dirs) {
    try {
      fs.rmdirSync(dir);
    } catch (error) {
      log.warn({ dir, error: (error as Error).message }, 'could not remove a command cgroup');
    }
  }
}
