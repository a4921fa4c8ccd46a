import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type BashToolOptions, createBashTool } from '../../../agent/tools/bash.js';
import { sandboxInfo } from '../../../box/bubblewrap.js';
import { createCommandCgroup, destroyCommandCgroup } from '../../../box/cgroup.js';
import { runSandboxed, type SandboxRunRequest } from '../../../box/run.js';
import { requirement } from '../../requirements.js';
import {
  boxRequest,
  contextFor,
  makeWorkspace,
  pidsWithToken,
  sleepToken,
  textOf,
  waitUntil,
} from './helpers.js';

const info = await sandboxInfo();
// ulimit -u does not bind root; the cap then needs a pids cgroup.
const probeGroup = createCommandCgroup({ maxProcesses: 10 });
if (probeGroup) await destroyCommandCgroup(probeGroup);
const processCapEnforced = process.getuid?.() !== 0 || probeGroup !== undefined;
const bubblewrap = requirement('bubblewrap', info.bubblewrap, info.reason ?? 'not found');
const pidsCap = requirement(
  'a pids cgroup (root is not bound by ulimit -u)',
  processCapEnforced,
  'no writable pids controller under /sys/fs/cgroup; run as a non-root user or give the container one',
);
const SECRET = 'sk-ant-test-SECRET123';
const OPENAI_SECRET = 'sk-openai-test-SECRET456';

describe.skipIf(bubblewrap.skip)('bash under bubblewrap', () => {
  let ws: ReturnType<typeof makeWorkspace>;
  const saved = { anthropic: process.env.ANTHROPIC_API_KEY, openai: process.env.OPENAI_API_KEY };

  beforeAll(() => {
    bubblewrap.check();
    process.env.ANTHROPIC_API_KEY = SECRET;
    process.env.OPENAI_API_KEY = OPENAI_SECRET;
  });
  afterAll(() => {
    for (const [name, value] of [
      ['ANTHROPIC_API_KEY', saved.anthropic],
      ['OPENAI_API_KEY', saved.openai],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });
  beforeEach(() => {
    ws = makeWorkspace();
  });
  afterEach(() => ws.cleanup());

  const bash = (command: string, options: BashToolOptions = {}, timeout_ms?: number, signal?: AbortSignal) =>
    createBashTool({ sandbox: 'bubblewrap', ...options }).execute(
      { command, timeout_ms },
      contextFor(ws.workspace, [], signal),
    );

  /** Runs below the tool, without the deny list: this is the sandbox boundary itself. */
  const raw = (command: string, extra: Partial<SandboxRunRequest> = {}) =>
    runSandboxed(boxRequest(info, ws.workspace, command, extra));

  it('cannot reveal an API key from the harness environment', async () => {
    expect(process.env.ANTHROPIC_API_KEY).toBe(SECRET);
    const commands = [
      'env',
      'printenv',
      'cat /proc/self/environ',
      'cat /proc/$PPID/environ',
      'cat /proc/1/environ',
      'ps eww',
      'ps auxeww',
      'for p in /proc/[0-9]*; do cat $p/environ; echo; done',
      'cat /proc/*/cmdline',
    ];
    for (const command of commands) {
      const result = await raw(command);
      const all = result.stdout.text + result.stderr.text;
      expect(all, command).not.toContain('SECRET123');
      expect(all, command).not.toContain('SECRET456');
    }
    // The commands do read environments (the assertion above could fail): the sandbox's own is there.
    expect((await raw('cat /proc/self/environ')).stdout.text).toContain('HOME=/tmp/home');
    expect((await raw('for p in /proc/[0-9]*; do cat $p/environ; done')).stdout.text).toContain('TERM=dumb');
    const viaTool = textOf(await bash('env; for p in /proc/[0-9]*; do cat $p/environ; done'));
    expect(viaTool).toContain('PATH=');
    expect(viaTool).not.toContain('SECRET123');
  });

  it('drops secret and harness variables even when configured, keeps the others', async () => {
    const out = textOf(
      await bash('env', {
        env: { OPENAI_API_KEY: OPENAI_SECRET, NIGHTSHIFT_HOME: '/x', PORT: '4000', DB_PASSWORD: 'p' },
      }),
    );
    expect(out).toContain('PORT=4000');
    expect(out).not.toContain('SECRET456');
    expect(out).not.toContain('NIGHTSHIFT_HOME');
    expect(out).not.toContain('DB_PASSWORD');
  });

  it('refuses denied commands with the reason', async () => {
    await expect(bash('cat /proc/1/environ')).rejects.toThrow(
      /command refused by policy: reading process environments/,
    );
    await expect(bash(':(){ :|:& };:')).rejects.toThrow(/fork bomb/);
  });

  it('kills the command and its children at the timeout', async () => {
    const [a, b] = [sleepToken(), sleepToken()];
    const call = bash(`sleep ${a} & sleep ${b}`, {}, 1500);
    await waitUntil(() => pidsWithToken(a).length > 0 && pidsWithToken(b).length > 0);
    const seen = [...pidsWithToken(a), ...pidsWithToken(b)];
    const output = await call;
    expect(textOf(output)).toContain('exit code: killed (timeout after 1.5 s');
    expect(pidsWithToken(a)).toEqual([]);
    expect(pidsWithToken(b)).toEqual([]);
    for (const pid of seen)
      expect(
        fs.existsSync(`/proc/${pid}/cmdline`) ? fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8') : '',
      ).not.toContain('1000.');
  });

  it('kills background processes left running when the command ends', async () => {
    const tokens = [sleepToken(), sleepToken(), sleepToken()];
    const command =
      `sleep ${tokens[0]} & nohup sleep ${tokens[1]} >/dev/null 2>&1 & disown; setsid sleep ${tokens[2]} & ` +
      'node -e "require(\'http\').createServer().listen(0)" & ' +
      'while [ ! -e go ]; do sleep 0.05; done; echo done';
    const call = bash(command);
    await waitUntil(() => tokens.every((t) => pidsWithToken(t).length > 0));
    fs.writeFileSync(path.join(ws.workspace, 'go'), '');
    const out = textOf(await call);
    expect(out).toMatch(/^exit code: 0\nstdout:\ndone/);
    for (const token of tokens) expect(pidsWithToken(token), token).toEqual([]);
  });

  it('kills everything when the session is aborted', async () => {
    const token = sleepToken();
    const controller = new AbortController();
    const call = bash(`setsid sleep ${token} & sleep ${sleepToken()}`, {}, undefined, controller.signal);
    await waitUntil(() => pidsWithToken(token).length > 0);
    controller.abort();
    expect(textOf(await call)).toContain('exit code: killed (the session was stopped');
    expect(pidsWithToken(token)).toEqual([]);
  });

  it('truncates 10 MB of output head and tail with a note', async () => {
    const output = await bash('yes | head -c 10000000; echo LAST-LINE');
    const text = textOf(output);
    expect(text).toMatch(/\[\.\.\. [\d,]+ bytes omitted: stdout exceeded the 30 KB limit \.\.\.\]/);
    expect(text).toContain('LAST-LINE');
    expect(Buffer.byteLength(text)).toBeLessThan(32 * 1024);
    expect(typeof output === 'object' && output.details?.stdoutBytes).toBe(10_000_010);
  });

  it('hides home and data directories, keeps the workspace writable and /tmp private', async () => {
    const dataDir = fs.mkdtempSync(path.join('/var/tmp', 'ns-data-'));
    fs.writeFileSync(path.join(dataDir, 'transcript.jsonl'), 'private\n');
    const homeMarker = path.join(os.homedir(), `.ns-test-${process.pid}`);
    fs.writeFileSync(homeMarker, 'home secret\n');
    const tmpName = `ns-private-${process.pid}-${Date.now()}`;
    try {
      const out = textOf(
        await bash(
          `cat ${dataDir}/transcript.jsonl; echo rc=$?; cat ${homeMarker}; echo rc=$?; ls -A /root | wc -l; ` +
            `echo made > made.txt; echo tmp > /tmp/${tmpName}; cat /tmp/${tmpName}; touch /usr/x; echo rc=$?`,
          { hiddenPaths: [dataDir] },
        ),
      );
      expect(out).not.toContain('private');
      expect(out).not.toContain('home secret');
      expect(out).toMatch(/stdout:\nrc=1\nrc=1\n0\ntmp\nrc=1/);
      expect(fs.readFileSync(path.join(ws.workspace, 'made.txt'), 'utf8')).toBe('made\n');
      expect(fs.existsSync(path.join('/tmp', tmpName))).toBe(false);
      // The hidden data dir is readable outside: the hiding is the sandbox's doing.
      expect(fs.readFileSync(path.join(dataDir, 'transcript.jsonl'), 'utf8')).toBe('private\n');
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
      fs.rmSync(homeMarker, { force: true });
    }
  });

  it('binds read-only paths read-only', async () => {
    fs.writeFileSync(path.join(ws.workspace, 'feature_list.json'), '[]\n');
    const out = textOf(
      await bash('echo x > feature_list.json; echo rc=$?; echo ok > other.txt', {
        readOnlyPaths: ['feature_list.json'],
      }),
    );
    expect(out).toContain('rc=1');
    expect(out).toContain('Read-only file system');
    expect(fs.readFileSync(path.join(ws.workspace, 'feature_list.json'), 'utf8')).toBe('[]\n');
    expect(fs.readFileSync(path.join(ws.workspace, 'other.txt'), 'utf8')).toBe('ok\n');
  });

  it('has no network when it is off; open still never reaches this host, except a port listed explicitly', async () => {
    let hits = 0;
    const server = http.createServer((_req, res) => {
      hits++;
      res.end('reached');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const url = `http://127.0.0.1:${port}/`;
    try {
      const direct =
        `curl -s -m 5 ${url}; echo " curl=$?"; ` +
        `node -e "fetch('${url}').then(r => r.text()).then(t => console.log('fetched', t), e => console.log('fetch failed', e.cause?.code))"`;
      const off = textOf(await bash(direct));
      expect(off).not.toContain('reached');
      expect(off).toContain('curl=7');
      expect(off).toContain('fetch failed ECONNREFUSED');
      // 127.0.0.1 inside the box is the box's own; this host's loopback has a name, judged as 127.0.0.1.
      const viaProxy = `curl -s -m 5 http://host.nightshift.internal:${port}/; echo " curl=$?"`;
      const open = textOf(await bash(`${direct}; ${viaProxy}`, { network: 'open' }));
      expect(open).not.toContain('reached');
      expect(open).toContain('resolves only to non-public addresses: 127.0.0.1 (loopback)');
      expect(open).toContain(`listed explicitly in sandbox.allowHosts (e.g. "127.0.0.1:${port}")`);
      expect(open).toContain('network refused by the sandbox (1)');
      expect(hits).toBe(0);
      const listed = textOf(await bash(viaProxy, { network: 'open', allowHosts: [`127.0.0.1:${port}`] }));
      expect(listed).toContain('reached curl=0');
      expect(hits).toBe(1);
    } finally {
      server.close();
    }
  });

  it('limits the size of files a command writes', async () => {
    const out = textOf(
      await bash('head -c 3000000 /dev/zero > big.bin; echo rc=$?', { maxFileSizeBytes: 1024 * 1024 }),
    );
    expect(out).not.toContain('rc=0');
    expect(fs.statSync(path.join(ws.workspace, 'big.bin')).size).toBeLessThanOrEqual(1024 * 1024);
  });

  it.skipIf(pidsCap.skip)('caps the number of processes (contains fork bombs)', async () => {
    pidsCap.check();
    const out = textOf(await bash('for i in $(seq 60); do sleep 5 & done; wait', { maxProcesses: 20 }, 4000));
    expect(out).toMatch(/fork|Resource temporarily unavailable/);
  });
});
