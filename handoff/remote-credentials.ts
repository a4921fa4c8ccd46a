/**
 * Where the harness keeps the credentials of its remotes, so the run record never holds one: the data dir's
 * `credentials/git.json` (mode 0600, written by the command that was given `--repo https://user:token@…`, read by
 * every worker sharing that data dir), and `NIGHTSHIFT_GIT_CREDENTIALS` in a process's environment (how a worker on
 * another machine gets them: `https://user:token@host/path` entries separated by spaces or newlines, each covering
 * the remotes under its path). Looked up by the URL without userinfo; the longest matching entry wins, the
 * environment before the file.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { InputError } from '../core/errors.js';
import { gitCredentialsFile } from '../core/paths.js';
import { RemoteCredential, splitRemoteUrl } from './remote-url.js';

/** The environment variable holding credentials for remotes (one or more URLs with userinfo). */
export const GIT_CREDENTIALS_VARIABLE = 'NIGHTSHIFT_GIT_CREDENTIALS';

/** One credential and the remote URL (without userinfo) it is for: that URL and every path below it. */
export const StoredCredential = RemoteCredential.extend({ url: z.string().min(1) });
export type StoredCredential = z.infer<typeof StoredCredential>;

/** `<data>/credentials/git.json`. */
export const CredentialFile = z.object({ version: z.literal(1), remotes: z.array(StoredCredential) });
export type CredentialFile = z.infer<typeof CredentialFile>;

/** The credentials the harness holds for its remotes. */
export interface RemoteCredentials {
  /** The credential for a remote URL (masked, plain or with userinfo), or null when none is held. */
  find(url: string): Promise<RemoteCredential | null>;
  /** Every credential held (the outgoing secret scan learns them). */
  all(): Promise<StoredCredential[]>;
}

/**
 * The credentials in `NIGHTSHIFT_GIT_CREDENTIALS`; throws {@link InputError} naming (masked) an entry that is not an
 * http(s) URL with a user or token.
 */
export function credentialsFromEnv(env: NodeJS.ProcessEnv = process.env): StoredCredential[] {
  const entries = (env[GIT_CREDENTIALS_VARIABLE] ?? '').split(/[\s,]+/).filter((entry) => entry !== '');
  return entries.map((entry, index) => {
    const split = /^https?:\/\//i.test(entry) ? splitRemoteUrl(entry) : undefined;
    if (!split?.credential) {
      throw new InputError(
        'GIT_CREDENTIALS_INVALID',
        `${GIT_CREDENTIALS_VARIABLE} entry ${index + 1} is not an https:// URL with a user and token.`,
        {
          hint: `Give entries like https://user:token@github.com/ (or …/owner/repo.git), separated by spaces.`,
        },
      );
    }
    return { url: split.plain, ...split.credential };
  });
}

/** The credentials kept in the data dir (none when the file is missing or unreadable). */
export async function storedCredentials(home: string): Promise<StoredCredential[]> {
  const text = await fs.readFile(gitCredentialsFile(home), 'utf8').catch(() => null);
  if (text === null) return [];
  try {
    return CredentialFile.parse(JSON.parse(text)).remotes;
  } catch {
    return [];
  }
}

/** Keeps a remote's credential in the data dir (replacing one for the same URL): 0600, in a 0700 directory. */
export async function saveRemoteCredential(
  home: string,
  url: string,
  credential: RemoteCredential,
): Promise<void> {
  const plain = splitRemoteUrl(url).plain;
  const file = gitCredentialsFile(home);
  await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  await fs.chmod(path.dirname(file), 0o700);
  const remotes = (await storedCredentials(home)).filter((entry) => entry.url !== plain);
  const content: CredentialFile = { version: 1, remotes: [...remotes, { url: plain, ...credential }] };
  const temp = `${file}.${process.pid}.tmp`;
  await fs.writeFile(temp, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600, flag: 'w' });
  await fs.chmod(temp, 0o600);
  await fs.rename(temp, file);
}

/** True when `entry` (a plain URL) covers `target` (a plain URL): same origin, and its path or one below it. */
function covers(entry: string, target: string): boolean {
  let a: URL;
  let b: URL;
  try {
    a = new URL(entry);
    b = new URL(target);
  } catch {
    return entry === target;
  }
  if (a.origin !== b.origin) return false;
  const base = a.pathname.replace(/\/+$/, '');
  const path = b.pathname.replace(/\/+$/, '');
  return base === '' || path === base || path.startsWith(`${base}/`);
}

/** The longest entry covering the URL, or null. */
export function matchCredential(entries: readonly StoredCredential[], url: string): RemoteCredential | null {
  const plain = splitRemoteUrl(url).plain;
  const matching = entries.filter((entry) => covers(entry.url, plain));
  const best = matching.sort((a, b) => b.url.length - a.url.length)[0];
  return best ? { username: best.username, password: best.password } : null;
}

/** The harness's credentials: `NIGHTSHIFT_GIT_CREDENTIALS` first, then the data dir's file. */
export function harnessRemoteCredentials(
  home: string,
  env: NodeJS.ProcessEnv = process.env,
): RemoteCredentials {
  const all = async () => [...credentialsFromEnv(env), ...(await storedCredentials(home))];
  return {
    all,
    find: async (url) =>
      matchCredential(credentialsFromEnv(env), url) ?? matchCredential(await storedCredentials(home), url),
  };
}
