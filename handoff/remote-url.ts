/**
 * Credentials in a remote's URL (`https://user:token@host/repo.git`) stay in the harness. The URL is split at the
 * edge: the run record and every view keep it masked (`https://***@host/repo.git`), git is given it without any
 * userinfo, and the credential reaches harness git only as an `Authorization` header in the environment of the git
 * process that talks to the remote (`GIT_CONFIG_COUNT`/`KEY`/`VALUE`: never in argv, never in a `.git/config`,
 * never in the box). Where the credential is kept between commands: handoff/remote-credentials.ts.
 */
import { z } from 'zod';
import { InputError } from '../core/errors.js';

/** What the mask replaces a URL's userinfo with. */
export const CREDENTIAL_MASK = '***';

/** A user name and password (or token) for HTTP basic authentication. */
export const RemoteCredential = z.object({ username: z.string(), password: z.string() });
export type RemoteCredential = z.infer<typeof RemoteCredential>;

/** A remote URL taken apart. */
export interface SplitRemoteUrl {
  /** What the run record stores and what is shown: the userinfo replaced by `***` when there was any. */
  shown: string;
  /** What git is given: the URL without any userinfo. */
  plain: string;
  /** The credential the URL carried; null when none (or only the mask). */
  credential: RemoteCredential | null;
}

const HTTP_SCHEME = /^https?:\/\//i;
const ANY_SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;

/**
 * Splits a remote URL (anything `--repo` accepts: a path, `git@host:repo`, `ssh://`, `https://`). Only http(s)
 * URLs carry credentials git would send; a password in any other URL is refused, since nothing would use it and it
 * would only be stored.
 */
export function splitRemoteUrl(url: string): SplitRemoteUrl {
  if (!ANY_SCHEME.test(url)) return { shown: url, plain: url, credential: null };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { shown: url, plain: url, credential: null };
  }
  if (!HTTP_SCHEME.test(url)) {
    if (parsed.password !== '') {
      throw new InputError('REPO_URL_PASSWORD', `The remote URL ${maskRemoteUrl(url)} carries a password.`, {
        hint: 'Only https:// URLs take a user and token; for ssh:// use a key (ssh-agent or ~/.ssh), and remove the password from the URL.',
      });
    }
    return { shown: url, plain: url, credential: null };
  }
  if (parsed.username === '' && parsed.password === '') return { shown: url, plain: url, credential: null };
  const username = decodeURIComponent(parsed.username);
  const password = decodeURIComponent(parsed.password);
  const credential = username === CREDENTIAL_MASK && password === '' ? null : { username, password };
  parsed.username = '';
  parsed.password = '';
  const plain = parsed.href;
  return { shown: plain.replace(/^(https?:\/\/)/i, `$1${CREDENTIAL_MASK}@`), plain, credential };
}

/**
 * Every URL in `text` as it may be shown, logged or stored: the userinfo of http(s) URLs masked, the password of any
 * other URL masked (never throws; the rest of the text is left as it is).
 */
export function maskRemoteUrl(text: string): string {
  return text
    .replace(/\b(https?:\/\/)[^/@\s]+@/gi, `$1${CREDENTIAL_MASK}@`)
    .replace(/\b([a-z][a-z0-9+.-]*:\/\/[^/:@\s]*):[^/@\s]*@/gi, `$1:${CREDENTIAL_MASK}@`);
}

/** The URL without any secret userinfo (what harness git is given; never throws). */
export function withoutCredentials(url: string): string {
  try {
    return splitRemoteUrl(url).plain;
  } catch {
    return url.replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^/@\s]+@/gi, '$1');
  }
}

/**
 * The environment that gives harness git the credential for `plainUrl` only: an `http.<url>.extraHeader` with HTTP
 * basic authentication, as command-line-level configuration in the environment (not argv, not `.git/config`).
 */
export function credentialGitEnv(plainUrl: string, credential: RemoteCredential): Record<string, string> {
  const basic = Buffer.from(`${credential.username}:${credential.password}`, 'utf8').toString('base64');
  return {
    GIT_CONFIG_COUNT: '1',
    GIT_CONFIG_KEY_0: `http.${plainUrl}.extraHeader`,
    GIT_CONFIG_VALUE_0: `Authorization: Basic ${basic}`,
  };
}

/** The secret values a credential gives away (the password, or the user name when it is the token). */
export function credentialSecrets(credential: RemoteCredential): string[] {
  const values = credential.password !== '' ? [credential.password] : [credential.username];
  const basic = Buffer.from(`${credential.username}:${credential.password}`, 'utf8').toString('base64');
  return [...values, basic].filter((value) => value.length >= 8);
}
