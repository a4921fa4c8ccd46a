import { describe, expect, it } from 'vitest';
import { findCommandProcesses, parseStat } from '../../../agent/sandbox/process-tree.js';

describe('parseStat', () => {
  it('reads ppid, group and session after a command name with spaces and parentheses', () => {
    expect(parseStat('4242 (my (odd) name) S 100 4242 4242 0 -1 4194560')).toEqual({
      pid: 4242,
      ppid: 100,
      pgid: 4242,
      sid: 4242,
    });
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
});
