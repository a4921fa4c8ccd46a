import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

describe('nightshift --help', () => {
  it('lists every command of DESIGN.md and exits 0', () => {
    const result = spawnSync(process.execPath, ['bin/nightshift.js', '--help'], { encoding: 'utf8' });
    expect(result.status).toBe(0);
    const commands = [...result.stdout.matchAll(/^ {2}(\w+)/gm)].map((match) => match[1]);
    for (const command of [
      'run',
      'plan',
      'worker',
      'dashboard',
      'status',
      'runs',
      'pause',
      'resume',
      'cancel',
      'schedule',
      'demo',
      'doctor',
      'prune',
    ]) {
      expect(commands).toContain(command);
    }
    expect(result.stdout).not.toContain('not built yet');
  });

  it('exits 2 on an unknown command, naming it', () => {
    const result = spawnSync(process.execPath, ['bin/nightshift.js', 'frobnicate'], { encoding: 'utf8' });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("unknown command 'frobnicate'");
  });
});
