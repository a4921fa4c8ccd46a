/**
 * Issue 24, "no harness write follows a link": a workspace whose committed `playwright.config.ts` (or `e2e/`) is a
 * link — to a host file, dangling, or a hard link — and `nightshift checks export` (a real child process, real
 * Redis and git). The export refuses before it writes anything, says why, and the host file is untouched; a clean
 * workspace exports with the notice that its config runs init.sh unboxed.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RecordedCheck } from '../../../checks/format.js';
import { writeCheck } from '../../../checks/store.js';
import { checkpoint, ensureRepo, openRepo, runGit } from '../../../handoff/git.js';
import { RunStore } from '../../../orchestrator/run/index.js';
import { chromiumExecutable } from '../../../workers/chromium-path.js';
import { cliEnv, deleteKeys, runCli, tempDir, uniquePrefix } from '../cli/helpers.js';
import { connect, newRun } from '../orchestrator/redis-helpers.js';

const CANARY = 'the operator’s own file\n';
let redis: Redis;
let store: RunStore;
let prefix: string;
let root: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  redis = connect();
  prefix = uniquePrefix();
  root = fs.realpathSync(tempDir('write-hostile'));
  env = cliEnv(path.join(root, 'home'), prefix);
  store = new RunStore(redis, { prefix });
});
afterAll(async () => {
  await deleteKeys(redis, prefix);
  await store?.close();
  redis?.disconnect();
  fs.rmSync(root, { recursive: true, force: true });
});

/** A run whose local workspace has one feature with a recorded check, and `plant` done to it (committed). */
async function workspaceWith(
  name: string,
  plant: (dir: string) => void,
): Promise<{ dir: string; runId: string }> {
  const dir = path.join(root, name);
  fs.mkdirSync(dir);
  fs.writeFileSync(
    path.join(dir, 'feature_list.json'),
    `${JSON.stringify([{ id: 'F-001', category: 'functional', description: 'Add a todo', steps: ['Add one'], passes: true }], null, 2)}\n`,
  );
  await ensureRepo(dir);
  const check = RecordedCheck.parse({
    featureId: 'F-001',
    version: 1,
    recordedAt: '2026-01-01T00:00:00.000Z',
    origin: { runId: name, session: 2, reason: 'evaluate' },
    actions: [{ kind: 'goto', path: '/' }],
    expectations: [{ kind: 'text', text: 'Todos' }],
  });
  await writeCheck(dir, check, { title: 'Add a todo', flaky: null });
  plant(dir);
  await checkpoint(openRepo(dir), {
    role: 'harness',
    runId: name,
    session: 2,
    summary: 'a check, and what a session left',
  });
  const runId = `r-${name}`;
  await store.createRun({ ...newRun({}, runId), workspace: { kind: 'local', path: dir } });
  return { dir, runId };
}

const commits = async (dir: string) => (await runGit(openRepo(dir), ['rev-list', '--count', 'HEAD'])).trim();

describe('nightshift checks export into a hostile workspace', () => {
  it('refuses a committed playwright.config.ts linked to a host file: the file is untouched, nothing is written', async () => {
    const host = path.join(root, 'host-file.ts');
    fs.writeFileSync(host, CANARY);
    const { dir, runId } = await workspaceWith('linked', (ws) => {
      fs.rmSync(path.join(ws, 'e2e'), { recursive: true });
      fs.symlinkSync(host, path.join(ws, 'playwright.config.ts'));
    });
    const before = await commits(dir);
    const out = await runCli(['checks', 'export', runId], { env, cwd: root });
    expect(out.code, out.stderr).toBe(2);
    expect(out.stderr).toContain('checks export wrote nothing: playwright.config.ts: is a symbolic link');
    expect(out.stderr).toContain(JSON.stringify(host));
    expect(out.stderr).toContain('git rm playwright.config.ts');
    expect(out.stdout).toBe('');
    expect(fs.readFileSync(host, 'utf8')).toBe(CANARY);
    expect(fs.lstatSync(path.join(dir, 'playwright.config.ts')).isSymbolicLink()).toBe(true);
    // Refused before the specs: e2e/ was not written again, nothing committed.
    expect(fs.existsSync(path.join(dir, 'e2e'))).toBe(false);
    expect(await commits(dir)).toBe(before);
  }, 60_000);

  it('refuses a dangling link (the export would have created the file it names) and a linked e2e/', async () => {
    const created = path.join(root, 'would-be-created.ts');
    const dangling = await workspaceWith('dangling', (ws) => {
      fs.symlinkSync(created, path.join(ws, 'playwright.config.ts'));
    });
    const out = await runCli(['checks', 'export', dangling.runId], { env, cwd: root });
    expect(out.code, out.stderr).toBe(2);
    expect(out.stderr).toContain('playwright.config.ts: is a symbolic link');
    expect(fs.existsSync(created)).toBe(false);

    const elsewhere = path.join(root, 'elsewhere');
    fs.mkdirSync(elsewhere);
    const linkedDir = await workspaceWith('linked-e2e', (ws) => {
      fs.rmSync(path.join(ws, 'e2e'), { recursive: true });
      fs.symlinkSync(elsewhere, path.join(ws, 'e2e'));
    });
    const second = await runCli(['checks', 'export', linkedDir.runId], { env, cwd: root });
    expect(second.code, second.stderr).toBe(2);
    // The first file the export would write under e2e/ is named (the fixtures module, then the specs).
    expect(second.stderr).toMatch(/e2e\/[\w.-]+\.ts: e2e is a symbolic link; links are not followed/);
    expect(fs.readdirSync(elsewhere)).toEqual([]);
    expect(fs.existsSync(path.join(linkedDir.dir, 'playwright.config.ts'))).toBe(false);
  }, 60_000);

  it('refuses a playwright.config.ts hard-linked to a host file', async () => {
    const host = path.join(root, 'hard-host.ts');
    fs.writeFileSync(host, CANARY);
    const { runId } = await workspaceWith('hard', (ws) => {
      fs.linkSync(host, path.join(ws, 'playwright.config.ts'));
    });
    const out = await runCli(['checks', 'export', runId], { env, cwd: root });
    expect(out.code, out.stderr).toBe(2);
    expect(out.stderr).toContain('playwright.config.ts: has 2 hard links');
    expect(fs.readFileSync(host, 'utf8')).toBe(CANARY);
  }, 60_000);

  it('exports a clean workspace and says that the config runs init.sh on this machine, unboxed', async () => {
    const { dir, runId } = await workspaceWith('clean', () => undefined);
    const out = await runCli(['checks', 'export', runId], { env, cwd: root });
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toContain('starts `bash init.sh` ON THIS MACHINE, outside nightshift');
    expect(out.stdout).toContain('API keys');
    expect(out.stdout).toContain('nightshift checks run   # init.sh and the app in the box');
    // The Chromium offered is the one the workers launch here, not a fixed path the machine may not have.
    expect(out.stdout).toContain(`CHROMIUM_PATH=${chromiumExecutable(env)} npx playwright test`);
    const config = fs.readFileSync(path.join(dir, 'playwright.config.ts'), 'utf8');
    expect(config).toContain("outside nightshift's box");
    expect(config).toContain('nightshift checks run');
  }, 60_000);
});
