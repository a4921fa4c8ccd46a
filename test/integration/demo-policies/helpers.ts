import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createAnthropicProvider, createOpenAIProvider } from '../../../agent/providers/index.js';
import type { BrowserSource } from '../../../evaluation/browser-source.js';
import { freePort } from '../../../handoff/app-runner.js';
import { checkpoint, ensureRepo } from '../../../handoff/git.js';
import { runRoleSession } from '../../../roles/session.js';
import type { RoleSessionInput } from '../../../roles/types.js';
import type { ModelServer } from '../../../testkit/types.js';

/** A temp root holding a git workspace with the given files committed, and a data dir beside it. */
export async function makeWorkspace(
  files: Record<string, string>,
): Promise<{ workspace: string; dataDir: string }> {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ns-demo-policies-')));
  const workspace = path.join(root, 'ws');
  const dataDir = path.join(root, 'data');
  fs.mkdirSync(workspace);
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(workspace, name)), { recursive: true });
    fs.writeFileSync(path.join(workspace, name), content);
  }
  const repo = await ensureRepo(workspace);
  await checkpoint(repo, { role: 'harness', runId: 'demo-test', session: 0, summary: 'workspace created' });
  return { workspace, dataDir };
}

/** Removes what {@link makeWorkspace} made. */
export function removeWorkspace(workspace: string): void {
  fs.rmSync(path.dirname(workspace), { recursive: true, force: true });
}

/** Runs sessions of one run against the scripted server, numbering them; evaluators talk OpenAI, the rest Anthropic. */
export function sessionRunner(
  server: ModelServer,
  base: { workspace: string; dataDir: string; browser?: BrowserSource },
) {
  let session = 0;
  return (role: RoleSessionInput['role'], featureIds: string[], extra: Partial<RoleSessionInput> = {}) => {
    session += 1;
    const provider =
      role === 'evaluator'
        ? createOpenAIProvider({
            model: 'scripted',
            apiKey: 'sk-test-000000',
            baseURL: server.openaiBaseURL,
            maxRetries: 0,
            providerName: 'openai',
          })
        : createAnthropicProvider({
            model: 'scripted',
            apiKey: 'sk-ant-test-000000',
            baseURL: server.anthropicBaseURL,
            maxRetries: 0,
          });
    return runRoleSession({
      role,
      runId: 'demo-test',
      session,
      featureIds,
      provider,
      // Room for an 8-feature regression sweep on a starved machine: its careful second looks add steps and
      // minutes, and a session cut off by these limits blocks the features it did not reach (not what is tested).
      limits: { maxSteps: 120, maxMinutes: 10 },
      ...base,
      ...extra,
    });
  };
}

/** An app started with the workspace's own `./init.sh` on a free port. */
export interface StartedApp {
  base: string;
  output: () => string;
  stop(): Promise<void>;
}

/** Starts `./init.sh` as a person would and waits until the page answers. */
export async function startWithInitScript(workspace: string): Promise<StartedApp> {
  const port = await freePort();
  const child: ChildProcess = spawn('./init.sh', [], {
    cwd: workspace,
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      process.kill(-(child.pid as number), 'SIGTERM');
    });
  const base = `http://127.0.0.1:${port}`;
  for (let attempt = 0; attempt < 200; attempt += 1) {
    if (child.exitCode !== null) throw new Error(`init.sh exited (${child.exitCode}): ${output}`);
    if (
      await fetch(`${base}/`).then(
        (res) => res.ok,
        () => false,
      )
    )
      return { base, output: () => output, stop };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await stop();
  throw new Error(`the app did not answer on ${base}: ${output}`);
}

/** JSON request against a started app. */
export async function callApi(base: string, method: string, pathname: string, body?: unknown) {
  const res = await fetch(`${base}${pathname}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as unknown };
}
