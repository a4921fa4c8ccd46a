/**
 * Harness git against a loopback smart-HTTP remote that requires basic authentication (git http-backend): the
 * credential reaches git only as a header in its environment, from the data dir's credential file or, on another
 * machine, from NIGHTSHIFT_GIT_CREDENTIALS. Clones (a run branch, a lane branch) and the backup mirror keep a URL
 * without userinfo; a missing or refused credential fails at once with what to do, never a prompt.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NightshiftError } from '../../../core/errors.js';
import { checkpoint, openRepo } from '../../../handoff/git.js';
import { backupRepo } from '../../../handoff/git-history.js';
import { pushFastForward, syncWorkspace } from '../../../handoff/git-remote.js';
import { harnessRemoteCredentials, saveRemoteCredential } from '../../../handoff/remote-credentials.js';
import { type GitHttpServer, startGitHttpServer } from '../security/git-http-server.js';
import { isolateGitConfig, tempDir } from './helpers.js';

const TOKEN = 'tok-remote-credentials-5e1f';
const BASIC = Buffer.from(`bot:${TOKEN}`).toString('base64');
let restoreConfig: () => void;
let root: string;
let cleanup: () => void;
let server: GitHttpServer;
let masked: string;

beforeAll(async () => {
  restoreConfig = isolateGitConfig();
  const temp = tempDir('ns-remote-creds-');
  cleanup = temp.cleanup;
  root = fs.realpathSync(temp.dir);
  server = await startGitHttpServer(path.join(root, 'served'), 'app', { username: 'bot', password: TOKEN });
  masked = server.url.replace('http://', 'http://***@');
});
afterAll(async () => {
  await server?.close();
  cleanup?.();
  restoreConfig?.();
});

/** Every `config` file under `dir` (clones' `.git/config`, a mirror's `config`), with its text. */
function gitConfigs(dir: string): Array<[string, string]> {
  return fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => path.basename(name) === 'config' && fs.statSync(path.join(dir, name)).isFile())
    .map((name) => [name, fs.readFileSync(path.join(dir, name), 'utf8')]);
}

async function failure(promise: Promise<unknown>): Promise<NightshiftError> {
  return (await promise.then(
    () => undefined,
    (error: unknown) => error,
  )) as NightshiftError;
}

describe('a remote that requires credentials', () => {
  it('syncs, pushes a run branch and a lane branch, and backs up, with the credential in no config', async () => {
    const home = path.join(root, 'home-a');
    await saveRemoteCredential(home, server.url, { username: 'bot', password: TOKEN });
    const credentials = harnessRemoteCredentials(home, {});
    const clones = path.join(home, 'clones');
    const run = await syncWorkspace({
      url: masked,
      branch: 'main',
      cacheDir: path.join(clones, 'run'),
      credentials,
    });
    fs.writeFileSync(path.join(run.repo.dir, 'a.txt'), 'a\n');
    await checkpoint(run.repo, { role: 'generator', runId: 'r', session: 1, summary: 'a' });
    await pushFastForward(run.repo, 'main');
    const lane = await syncWorkspace({
      url: masked,
      branch: 'nightshift/lane-1',
      baseBranch: 'main',
      cacheDir: path.join(clones, 'lane-1'),
      credentials,
    });
    expect(lane.createdBranch).toBe(true);
    expect(fs.readFileSync(path.join(lane.repo.dir, 'a.txt'), 'utf8')).toBe('a\n');
    await backupRepo(run.repo, path.join(home, 'backup.git'), { head: run.head });

    const configs = gitConfigs(home);
    expect(configs.map(([name]) => name).sort()).toEqual([
      'backup.git/config',
      'clones/lane-1/.git/config',
      'clones/run/.git/config',
    ]);
    for (const [name, text] of configs) {
      expect(text, name).not.toContain(TOKEN);
      expect(text, name).not.toContain(BASIC);
    }
    expect(configs.find(([name]) => name === 'clones/run/.git/config')?.[1]).toContain(`url = ${server.url}`);
    expect(
      execFileSync('git', ['--git-dir', server.bareDir, 'branch', '--list'], { encoding: 'utf8' }),
    ).toContain('nightshift/lane-1');
    expect(server.requests.length).toBeGreaterThan(4);
    expect(server.requests.filter((request) => !request.authorised)).toEqual([]);
  });

  it('works on another machine from NIGHTSHIFT_GIT_CREDENTIALS, and says what to do without one', async () => {
    const other = path.join(root, 'home-b');
    const fromEnv = harnessRemoteCredentials(other, {
      NIGHTSHIFT_GIT_CREDENTIALS: `http://bot:${TOKEN}@${new URL(server.url).host}/`,
    });
    const synced = await syncWorkspace({
      url: masked,
      branch: 'main',
      cacheDir: path.join(other, 'c1'),
      credentials: fromEnv,
    });
    expect(fs.existsSync(path.join(synced.repo.dir, 'a.txt'))).toBe(true);

    const none = await failure(
      syncWorkspace({
        url: masked,
        branch: 'main',
        cacheDir: path.join(other, 'c2'),
        credentials: harnessRemoteCredentials(other, {}),
      }),
    );
    expect(none.describe()).toContain(`the harness holds no credential for ${masked}`);
    expect(none.describe()).toContain('NIGHTSHIFT_GIT_CREDENTIALS="https://user:token@host/…"');

    const wrong = harnessRemoteCredentials(other, {
      NIGHTSHIFT_GIT_CREDENTIALS: `http://bot:not-the-token@${new URL(server.url).host}/`,
    });
    const refused = await failure(
      syncWorkspace({ url: masked, branch: 'main', cacheDir: path.join(other, 'c3'), credentials: wrong }),
    );
    expect(refused.describe()).toContain(`the remote refused the credential the harness holds for ${masked}`);
    expect(refused.describe()).not.toContain('not-the-token');
  });

  it('a workspace adopted with a credential in its origin: the backup mirror keeps the URL without it', async () => {
    const work = path.join(root, 'adopted');
    execFileSync('git', ['init', '-q', '-b', 'main', work]);
    execFileSync('git', [
      '-C',
      work,
      'remote',
      'add',
      'origin',
      `https://bot:${TOKEN}@example.invalid/app.git`,
    ]);
    execFileSync('git', [
      '-C',
      work,
      '-c',
      'user.name=t',
      '-c',
      'user.email=t@t',
      'commit',
      '-q',
      '--allow-empty',
      '-m',
      'x',
    ]);
    const mirror = path.join(root, 'adopted-backup.git');
    await backupRepo(openRepo(work), mirror);
    const config = fs.readFileSync(path.join(mirror, 'config'), 'utf8');
    expect(config).toContain('originurl = https://example.invalid/app.git');
    expect(config).not.toContain(TOKEN);
  });
});
