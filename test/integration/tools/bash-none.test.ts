import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createBashTool } from '../../../agent/tools/bash.js';
import { contextFor, makeWorkspace, pidsWithToken, sleepToken, textOf, waitUntil } from './helpers.js';

// The weak fallback: no namespaces, only a scrubbed environment, the deny list and process cleanup.
describe('bash without bubblewrap (sandbox: none)', () => {
  let ws: ReturnType<typeof makeWorkspace>;
  const saved = process.env.ANTHROPIC_API_KEY;
  beforeAll(() => {
    process.env.ANTHROPIC_API_KEY = 'sk-ant-test-SECRET123';
  });
  afterAll(() => {
    if (saved === undefined) delete process.env.ANTHROPIC_API_KEY;
    else process.env.ANTHROPIC_API_KEY = saved;
  });
  beforeEach(() => {
    ws = makeWorkspace();
  });
  afterEach(() => ws.cleanup());

  const bash = (command: string, timeout_ms?: number) =>
    createBashTool({ sandbox: 'none' })
      .execute({ command, timeout_ms }, contextFor(ws.workspace))
      .then(textOf);

  it('runs in the workspace with a scrubbed environment and a private HOME', async () => {
    const out = await bash('pwd; env; echo "home=$HOME"; touch made.txt');
    expect(out).toContain(`stdout:\n${ws.workspace}\n`);
    expect(out).toContain('TERM=dumb');
    expect(out).not.toContain('SECRET123');
    expect(out).not.toContain('VITEST');
    const home = out.match(/home=(\S+)/)?.[1] ?? '';
    expect(home).toContain('nightshift-sh-');
    expect(fs.existsSync(home)).toBe(false); // removed after the call
    expect(fs.existsSync(path.join(ws.workspace, 'made.txt'))).toBe(true);
  });

  it('reports exit code and stderr', async () => {
    expect(await bash('echo oops >&2; exit 3')).toBe('exit code: 3\nstdout: (empty)\nstderr:\noops');
  });

  it('kills the whole tree at the timeout, including processes that left the group', async () => {
    const [a, b] = [sleepToken(), sleepToken()];
    const call = bash(`setsid sleep ${a} & sleep ${b}`, 1500);
    await waitUntil(() => pidsWithToken(a).length > 0 && pidsWithToken(b).length > 0);
    expect(await call).toContain('exit code: killed (timeout after 1.5 s');
    expect(pidsWithToken(a)).toEqual([]);
    expect(pidsWithToken(b)).toEqual([]);
  });

  it('kills background processes left when the command ends (nohup, setsid, double fork)', async () => {
    const tokens = [sleepToken(), sleepToken(), sleepToken(), sleepToken()];
    const command =
      `sleep ${tokens[0]} & nohup sleep ${tokens[1]} >/dev/null 2>&1 & disown; setsid sleep ${tokens[2]} >/dev/null 2>&1 & ` +
      `( setsid bash -c 'sleep ${tokens[3]} & ' & ) ; while [ ! -e go ]; do sleep 0.05; done; echo done`;
    const call = bash(command);
    await waitUntil(() => tokens.every((t) => pidsWithToken(t).length > 0));
    fs.writeFileSync(path.join(ws.workspace, 'go'), '');
    expect(await call).toContain('stdout:\ndone');
    for (const token of tokens) expect(pidsWithToken(token), token).toEqual([]);
  });

  it('truncates 10 MB of output', async () => {
    const out = await bash('yes | head -c 10000000');
    expect(out).toMatch(/bytes omitted: stdout exceeded the 30 KB limit/);
    expect(Buffer.byteLength(out)).toBeLessThan(32 * 1024);
  });
});
