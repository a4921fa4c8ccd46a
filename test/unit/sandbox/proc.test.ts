import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { findCommandProcesses, isRunning, parseStat, readProcess } from '../../../box/proc.js';

describe('parseStat', () => {
  it('reads ppid, group, session, state and start time after a command name with spaces and parentheses', () => {
    const stat = '4242 (my (odd) name) Z 100 4242 4243 0 -1 4194560 1 2 3 4 5 6 7 8 20 0 1 0 987654 1000 200';
    expect(parseStat(stat)).toEqual({
      pid: 4242,
      ppid: 100,
      pgid: 4242,
      sid: 4243,
      state: 'Z',
      startTime: 987654,
      comm: 'my (odd) name',
    });
  });

  it('refuses a line without a command name', () => {
    expect(parseStat('garbage')).toBeUndefined();
  });
});

describe('readProcess and isRunning', () => {
  it('read this very process, and tell it from a reused pid by its start time', () => {
    const self = readProcess(process.pid);
    expect(self).toMatchObject({ pid: process.pid, ppid: process.ppid });
    expect(isRunning(process.pid)).toBe(true);
    expect(isRunning(process.pid, self?.startTime)).toBe(true);
    expect(isRunning(process.pid, (self?.startTime ?? 0) + 1)).toBe(false);
  });
});

describe('findCommandProcesses', () => {
  it('finds descendants by parent, group and session, and nothing else', () => {
    const table = [
      { pid: 10, ppid: 1, pgid: 10, sid: 10 }, // the command's shell
      { pid: 11, ppid: 10, pgid: 10, sid: 10 }, // a child
      { pid: 12, ppid: 1, pgid: 10, sid: 10 }, // orphaned, still in the group
      { pid: 13, ppid: 11, pgid: 13, sid: 13 }, // setsid child: found through its parent
      { pid: 14, ppid: 13, pgid: 13, sid: 13 }, // its child
      { pid: 20, ppid: 1, pgid: 20, sid: 20 }, // unrelated
    ];
    expect(findCommandProcesses({ rootPid: 10 }, table).sort()).toEqual([10, 11, 12, 13, 14]);
  });

  it('follows no link of a root pid that another process took since', () => {
    const table = [
      { pid: 10, ppid: 1, pgid: 10, sid: 10, startTime: 900 }, // pid 10 again, a process of someone else's
      { pid: 11, ppid: 10, pgid: 10, sid: 10, startTime: 901 }, // its child
      { pid: 12, ppid: 1, pgid: 12, sid: 12, startTime: 950 },
    ];
    expect(findCommandProcesses({ rootPid: 10, rootStartTime: 500 }, table)).toEqual([]);
    expect(findCommandProcesses({ rootPid: 10, rootStartTime: 900 }, table).sort()).toEqual([10, 11]);
  });

  it('finds a process that left the tree by its marker, unless it started before the root', async () => {
    // Its own group and session, parent not the root: only the marker ties it to the command.
    const marker = `SANDBOX_CALL_ID=proc-test-${process.pid}-${Date.now()}`;
    const stray = spawn('sleep', ['30'], {
      detached: true,
      stdio: 'ignore',
      env: { PATH: process.env.PATH ?? '', SANDBOX_CALL_ID: marker.split('=')[1] as string },
    });
    try {
      const pid = stray.pid as number;
      const startTime = readProcess(pid)?.startTime as number;
      const root = { rootPid: 2 ** 22 + 1, marker };
      expect(findCommandProcesses(root)).toEqual([pid]);
      expect(findCommandProcesses({ ...root, rootStartTime: startTime })).toEqual([pid]);
      // A process older than the command's root cannot be one of its processes: its environment is not read.
      expect(findCommandProcesses({ ...root, rootStartTime: startTime + 1 })).toEqual([]);
    } finally {
      stray.kill('SIGKILL');
    }
  });
});
