import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { NightshiftError } from '../../../core/errors.js';
import {
  credentialsFromEnv,
  harnessRemoteCredentials,
  matchCredential,
  saveRemoteCredential,
} from '../../../handoff/remote-credentials.js';
import {
  credentialGitEnv,
  credentialSecrets,
  maskRemoteUrl,
  splitRemoteUrl,
  withoutCredentials,
} from '../../../handoff/remote-url.js';

describe('splitRemoteUrl', () => {
  it.each([
    [
      'https://user:tok3n-secret@github.com/o/r.git',
      'https://***@github.com/o/r.git',
      'https://github.com/o/r.git',
      { username: 'user', password: 'tok3n-secret' },
    ],
    [
      'https://ghp_tokenAsUser@github.com/o/r.git',
      'https://***@github.com/o/r.git',
      'https://github.com/o/r.git',
      { username: 'ghp_tokenAsUser', password: '' },
    ],
    // Percent-encoded userinfo is decoded for the header.
    [
      'http://me%40corp:p%3Ass%2Fw@127.0.0.1:8080/a.git',
      'http://***@127.0.0.1:8080/a.git',
      'http://127.0.0.1:8080/a.git',
      { username: 'me@corp', password: 'p:ss/w' },
    ],
    // The masked form (copied from status) holds no credential: it is looked up harness-side.
    ['https://***@github.com/o/r.git', 'https://***@github.com/o/r.git', 'https://github.com/o/r.git', null],
    ['https://github.com/o/r.git', 'https://github.com/o/r.git', 'https://github.com/o/r.git', null],
    // Not http: no credential git would send; left as it is.
    ['/srv/git/app.git', '/srv/git/app.git', '/srv/git/app.git', null],
    ['git@github.com:o/r.git', 'git@github.com:o/r.git', 'git@github.com:o/r.git', null],
    ['ssh://git@host/r.git', 'ssh://git@host/r.git', 'ssh://git@host/r.git', null],
  ])('%s', (url, shown, plain, credential) => {
    expect(splitRemoteUrl(url)).toEqual({ shown, plain, credential });
  });

  it('refuses a password in a URL git would not send it over (ssh), without showing it', () => {
    const error = (() => {
      try {
        splitRemoteUrl('ssh://git:hunter2-secret@host/r.git');
      } catch (caught) {
        return caught as NightshiftError;
      }
    })();
    expect(error?.code).toBe('REPO_URL_PASSWORD');
    expect(error?.describe()).not.toContain('hunter2');
  });
});

describe('masking and stripping', () => {
  it('masks every URL in a text, and strips userinfo for git', () => {
    const text = 'fatal: https://u:p4ssw0rd!@h/r.git and ftp://a:b@c/ and ssh://git@h/r and https://h/r';
    expect(maskRemoteUrl(text)).toBe(
      'fatal: https://***@h/r.git and ftp://a:***@c/ and ssh://git@h/r and https://h/r',
    );
    expect(withoutCredentials('https://u:p@h/r.git')).toBe('https://h/r.git');
    expect(withoutCredentials('ssh://git:pw@h/r')).toBe('ssh://h/r');
  });

  it('gives git the credential as a header in its environment, scoped to the URL', () => {
    const env = credentialGitEnv('https://h/r.git', { username: 'u', password: 'tok3n-secret' });
    expect(env).toEqual({
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: 'http.https://h/r.git.extraHeader',
      GIT_CONFIG_VALUE_0: `Authorization: Basic ${Buffer.from('u:tok3n-secret').toString('base64')}`,
    });
    expect(credentialSecrets({ username: 'u', password: 'tok3n-secret' })).toEqual([
      'tok3n-secret',
      Buffer.from('u:tok3n-secret').toString('base64'),
    ]);
    expect(credentialSecrets({ username: 'ghp_tokenAsUser', password: '' })[0]).toBe('ghp_tokenAsUser');
  });
});

describe('where the harness keeps credentials', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('matches the longest entry covering the URL, same origin and path below it only', () => {
    const entries = [
      { url: 'https://github.com/', username: 'host-wide', password: 'a' },
      { url: 'https://github.com/o/r.git', username: 'repo', password: 'b' },
    ];
    expect(matchCredential(entries, 'https://***@github.com/o/r.git')?.username).toBe('repo');
    expect(matchCredential(entries, 'https://github.com/o/other.git')?.username).toBe('host-wide');
    expect(matchCredential(entries, 'https://github.com.evil.example/o/r.git')).toBeNull();
    expect(matchCredential(entries, 'http://github.com/o/r.git')).toBeNull();
    expect(
      matchCredential([{ url: 'https://h/o', username: 'x', password: 'y' }], 'https://h/other'),
    ).toBeNull();
  });

  it('reads NIGHTSHIFT_GIT_CREDENTIALS (another machine) and refuses an entry without a credential', () => {
    const env = { NIGHTSHIFT_GIT_CREDENTIALS: 'https://a:tok1@h1/\n https://tok2@h2/o/r.git' };
    expect(credentialsFromEnv(env)).toEqual([
      { url: 'https://h1/', username: 'a', password: 'tok1' },
      { url: 'https://h2/o/r.git', username: 'tok2', password: '' },
    ]);
    expect(() => credentialsFromEnv({ NIGHTSHIFT_GIT_CREDENTIALS: 'https://h/ nope' })).toThrow(
      /entry 1 is not an https:\/\/ URL with a user and token/,
    );
  });

  it('keeps the data dir file 0600 in a 0700 directory, replacing the entry of the same URL; env wins', async () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'ns-creds-'));
    dirs.push(home);
    await saveRemoteCredential(home, 'https://old:secret-1@h/r.git', {
      username: 'old',
      password: 'secret-1',
    });
    await saveRemoteCredential(home, 'https://***@h/r.git', { username: 'new', password: 'secret-2' });
    const file = path.join(home, 'credentials', 'git.json');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    const held = harnessRemoteCredentials(home, {});
    expect(await held.find('https://***@h/r.git')).toEqual({ username: 'new', password: 'secret-2' });
    expect(await held.all()).toHaveLength(1);
    const fromEnv = harnessRemoteCredentials(home, { NIGHTSHIFT_GIT_CREDENTIALS: 'https://env:secret-3@h/' });
    expect(await fromEnv.find('https://h/r.git')).toEqual({ username: 'env', password: 'secret-3' });
  });
});
