import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAnthropicProvider } from '../../../agent/providers/anthropic.js';
import { requestOf, userText } from '../providers/helpers.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const MAIN = join(ROOT, 'testkit/main.ts');

let dir: string;
let child: ChildProcess | undefined;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'nightshift-testkit-main-'));
});
afterEach(() => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  child = undefined;
  rmSync(dir, { recursive: true, force: true });
});

function start(args: string[]): ChildProcess {
  child = spawn(process.execPath, ['--import', 'tsx', MAIN, ...args], {
    cwd: ROOT,
    env: { ...process.env, NIGHTSHIFT_LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return child;
}

function firstLine(process: ChildProcess): Promise<string> {
  return new Promise((resolveLine, reject) => {
    const lines = createInterface({ input: process.stdout! });
    lines.once('line', (line) => {
      lines.close();
      resolveLine(line);
    });
    process.once('exit', (code) => reject(new Error(`exited with ${code} before printing`)));
  });
}

function exitOf(process: ChildProcess): Promise<{ code: number | null; stderr: string }> {
  let stderr = '';
  process.stderr!.on('data', (chunk) => {
    stderr += String(chunk);
  });
  return new Promise((resolveExit) => process.once('exit', (code) => resolveExit({ code, stderr })));
}

describe('testkit/main.ts as a separate process', () => {
  it('prints its URL as JSON, serves the policy module, and stops on SIGTERM', async () => {
    const policy = join(dir, 'policy.mjs');
    writeFileSync(
      policy,
      "export default (conversation) => ({ text: 'policy saw ' + conversation.messages.length + ' message(s)' });\n",
    );
    const process = start([policy, '--latency-ms', '0']);
    const exited = exitOf(process);
    const printed = JSON.parse(await firstLine(process));
    expect(printed.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(printed.openaiBaseURL).toBe(`${printed.url}/v1`);
    expect((await fetch(`${printed.url}/health`)).status).toBe(200);

    const provider = createAnthropicProvider({
      model: 'm',
      apiKey: 'k',
      baseURL: printed.anthropicBaseURL,
      maxRetries: 0,
    });
    const result = await provider.complete(requestOf([userText('hi')]));
    expect(result.ok && result.response.content).toEqual([{ type: 'text', text: 'policy saw 1 message(s)' }]);

    process.kill('SIGTERM');
    expect((await exited).code).toBe(0);
  });

  it('exits 2 with a clear message when the module has no default policy', async () => {
    const policy = join(dir, 'nothing.mjs');
    writeFileSync(policy, 'export const notAPolicy = 1;\n');
    const { code, stderr } = await exitOf(start([policy]));
    expect(code).toBe(2);
    expect(stderr).toContain('no default export');
  });

  it('exits 2 when no module is given', async () => {
    const { code, stderr } = await exitOf(start([]));
    expect(code).toBe(2);
    expect(stderr).toContain('Usage');
  });
});
