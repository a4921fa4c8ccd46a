import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type BashToolOptions, createBashTool } from '../../../agent/tools/bash.js';
import { sandboxInfo } from '../../../box/bubblewrap.js';
import { capsMemory, createCommandCgroup, destroyCommandCgroup } from '../../../box/cgroup.js';
import { startApp } from '../../../handoff/app-runner.js';
import { SandboxConfig, sandboxForRole } from '../../../orchestrator/config.js';
import { requirement } from '../../requirements.js';
import { contextFor, makeWorkspace, textOf } from './helpers.js';

const MiB = 1024 ** 2;
const info = await sandboxInfo();
const probe = createCommandCgroup({ maxProcesses: 10, maxMemoryBytes: 512 * MiB });
const memoryCgroup = capsMemory(probe);
if (probe) await destroyCommandCgroup(probe);
const bubblewrap = requirement('bubblewrap', info.bubblewrap, info.reason ?? 'not found');
const cgroup = requirement(
  'a memory cgroup (the limit over all processes of a box)',
  memoryCgroup,
  'no writable memory controller under /sys/fs/cgroup; give the container one (cgroup v2 delegation or v1 rw)',
);

/** Two node processes of `mib` each, the first holding its memory while the second allocates. */
function twoHolders(mib: number): string {
  const hold = `b=Buffer.alloc(${mib}*2**20,1); require("fs").writeFileSync("held",""); setInterval(()=>{},1000)`;
  const second = `b=Buffer.alloc(${mib}*2**20,1); console.log("second allocated")`;
  return `node -e '${hold}' & while [ ! -e held ]; do sleep 0.05; done; node -e '${second}'; kill $! 2>/dev/null; wait; echo end`;
}

describe.skipIf(bubblewrap.skip)('memory limit of the box', () => {
  let ws: ReturnType<typeof makeWorkspace>;
  let sentinel: ChildProcess;

  beforeAll(() => {
    bubblewrap.check();
    // A host process outside every box: the OOM killer must never pick it.
    sentinel = spawn('sleep', ['3600'], { stdio: 'ignore' });
  });
  afterAll(() => {
    sentinel.kill('SIGKILL');
  });
  beforeEach(() => {
    ws = makeWorkspace();
  });
  afterEach(() => ws.cleanup());

  const bash = async (command: string, options: BashToolOptions = {}) =>
    textOf(
      await createBashTool({ sandbox: 'bubblewrap', ...options }).execute(
        { command, timeout_ms: 60_000 },
        contextFor(ws.workspace),
      ),
    );
  const hostUntouched = () => {
    expect(sentinel.exitCode).toBeNull();
    expect(sentinel.signalCode).toBeNull();
    expect(() => process.kill(sentinel.pid!, 0)).not.toThrow();
  };

  it('3 GiB in one process fails with the clear error under the default; the host is untouched', async () => {
    const out = await bash(`python3 -c 'b = bytearray(3 * 1024**3); print("allocated")'`);
    expect(out).not.toContain('allocated');
    expect(out).toMatch(/^exit code: (?!0\b)/);
    expect(out).toContain("memory: the command ran out of memory: the box's memory limit is 2048 MiB");
    expect(out).toContain('(sandbox.memoryMiB');
    hostUntouched();
  }, 90_000);

  it('node and npm keep working under the default, with a 256 MiB buffer', async () => {
    const out = await bash(
      `node -e 'console.log("buffer", Buffer.alloc(256 * 2**20, 1).length)' && npm --version && node -e 'require("node:child_process").execSync("true"); console.log("child ok")'`,
    );
    expect(out).toMatch(/^exit code: 0\n/);
    expect(out).toContain('buffer 268435456');
    expect(out).toMatch(/\n\d+\.\d+\.\d+\n/);
    expect(out).toContain('child ok');
    expect(out).not.toContain('memory:');
  }, 90_000);

  it('the per-role setting reaches the box: 700 MiB fails for the generator (512), passes for the initializer', async () => {
    const config = SandboxConfig.parse({ roles: { generator: { memoryMiB: 512 } } });
    const command = `node -e 'console.log("got", Buffer.alloc(700 * 2**20, 1).length)'`;
    const generator = await bash(command, sandboxForRole(config, 'generator'));
    expect(generator).toContain("the box's memory limit is 512 MiB");
    expect(generator).not.toContain('got 734003200');
    const initializer = await bash(command, sandboxForRole(config, 'initializer'));
    expect(initializer).toMatch(/^exit code: 0\n/);
    expect(initializer).toContain('got 734003200');
  }, 90_000);

  it.skipIf(cgroup.skip)(
    'the limit covers all processes together: the kernel kills inside the box',
    async () => {
      cgroup.check();
      // 2 × 300 MiB: each process is under the 512 MiB per-process limit, together they are over it.
      const out = await bash(twoHolders(300), { maxMemoryBytes: 512 * MiB });
      // The kernel kills one of the pair, or both when the second is still allocating as the first is reaped.
      expect(out).toMatch(
        /memory: the command exceeded the box's memory limit of 512 MiB \(sandbox\.memoryMiB, for all processes of the command together\): the kernel killed [12] of its processes/,
      );
      hostUntouched();
      // Under the limit, the same pair runs to the end with no memory note.
      const fits = await bash(twoHolders(100), { maxMemoryBytes: 512 * MiB });
      expect(fits).toContain('second allocated');
      expect(fits).not.toContain('memory:');
    },
    90_000,
  );

  it.skipIf(cgroup.skip)(
    'the app box has the limit too: init.sh over it is blocked with the reason',
    async () => {
      cgroup.check();
      fs.writeFileSync(path.join(ws.workspace, 'init.sh'), `${twoHolders(300)}\nexit 3\n`);
      const started = await startApp({
        workspace: ws.workspace,
        logFile: path.join(ws.outside, 'app.log'),
        sandbox: 'bubblewrap',
        network: 'none',
        maxMemoryBytes: 512 * MiB,
        readyTimeoutMs: 60_000,
      });
      expect(started.ok).toBe(false);
      if (started.ok) return;
      // One or both of the pair, as above.
      expect(started.reason).toMatch(
        /^the app's box exceeded its memory limit of 512 MiB \(sandbox\.roles\.app\.memoryMiB or sandbox\.memoryMiB\): the kernel killed [12] of its processes; init\.sh exited with code 3/,
      );
      expect(fs.readFileSync(path.join(ws.outside, 'app.log'), 'utf8')).toContain(
        "[nightshift: the app's box exceeded its memory limit of 512 MiB",
      );
      hostUntouched();
    },
    90_000,
  );
});
