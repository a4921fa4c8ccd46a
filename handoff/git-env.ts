/**
 * What the harness's own git runs with: an environment built from scratch (no API key, no GIT_* variable of
 * the harness's, no global or system config, an empty HOME) and `-c` settings that switch off every program
 * git could be told to run on its own (hooks, fsmonitor, pager, editor, askpass, credential helpers, ssh
 * commands, the `ext::` transport). The repository's own `.git/config` is kept known-good by the guard
 * (handoff/git-guard.ts); together they make sure nothing the workspace wrote runs on the host.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** System directories on git's PATH (the harness's own PATH is not inherited). */
const SYSTEM_DIRS = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'];

/** Variables passed to remote commands only (clone, fetch, push): how the operator reaches their remotes. */
const REMOTE_PASSTHROUGH = [
  'SSH_AUTH_SOCK',
  'http_proxy',
  'https_proxy',
  'no_proxy',
  'all_proxy',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'ALL_PROXY',
];

/**
 * The operator's credential helper for remote commands (a `credential.helper` value, e.g.
 * `store --file=/home/me/.git-credentials`); the workspace's own config can never name one.
 */
export const CREDENTIAL_HELPER_VARIABLE = 'NIGHTSHIFT_GIT_CREDENTIAL_HELPER';

let cachedBinary: string | undefined;

/** Absolute path of the git binary (looked up once on the harness's PATH, then on the system directories). */
export function gitBinary(): string {
  if (cachedBinary) return cachedBinary;
  const dirs = [...(process.env.PATH ?? '').split(path.delimiter), ...SYSTEM_DIRS].filter((dir) =>
    path.isAbsolute(dir),
  );
  for (const dir of dirs) {
    const candidate = path.join(dir, 'git');
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      cachedBinary = fs.realpathSync(candidate);
      return cachedBinary;
    } catch {
      // Not here.
    }
  }
  cachedBinary = 'git';
  return cachedBinary;
}

let cachedHome: string | undefined;

/**
 * An empty directory owned by this user, HOME of harness git: nothing in it, so no `~/.gitconfig`,
 * `~/.config/git/attributes` or `ignore` of anyone's can apply. Made once per process (0700).
 */
export function emptyGitHome(): string {
  if (cachedHome && fs.existsSync(cachedHome)) return cachedHome;
  cachedHome = fs.mkdtempSync(path.join(os.tmpdir(), 'nightshift-git-home-'));
  fs.chmodSync(cachedHome, 0o700);
  return cachedHome;
}

/** Options of {@link harnessGitEnv}. */
export interface GitEnvOptions {
  /** A command that talks to a remote: the operator's SSH agent, proxies and real HOME (for ~/.netrc) are passed. */
  remote?: boolean;
  /** The harness's environment, for the few variables passed through (default `process.env`). */
  base?: NodeJS.ProcessEnv;
}

/** Git's environment, built from scratch: PATH, a C locale, an empty HOME, no global or system config. */
export function harnessGitEnv(options: GitEnvOptions = {}): Record<string, string> {
  const base = options.base ?? process.env;
  const home = emptyGitHome();
  const binDir = path.dirname(gitBinary());
  const env: Record<string, string> = {
    PATH: [...new Set([...(path.isAbsolute(binDir) ? [binDir] : []), ...SYSTEM_DIRS])].join(path.delimiter),
    LC_ALL: 'C',
    LANG: 'C',
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_ATTR_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
  };
  if (base.TZ) env.TZ = base.TZ;
  if (options.remote) {
    // ssh finds ~/.ssh through the password database, HTTPS ~/.netrc through HOME: the operator's own files.
    env.HOME = os.homedir();
    for (const name of REMOTE_PASSTHROUGH) {
      const value = base[name];
      if (value) env[name] = value;
    }
  }
  return env;
}

/** Options of {@link harnessGitConfig}. */
export interface GitConfigOptions {
  /** Author and committer of commits. */
  identity: { name: string; email: string };
  /** The directory git may trust (`safe.directory`): the work tree, or the git dir of a bare repository. */
  trusted: string;
  /** A remote command: the operator's credential helper, when set, is allowed. */
  remote?: boolean;
  base?: NodeJS.ProcessEnv;
}

/**
 * `-c` settings of every harness git command. Command-line settings win over the repository's config, so
 * these hold even before the guard has restored a tampered `.git/config`; the rest (filter, diff and merge
 * drivers, includes, url rewrites) cannot be switched off from the command line and is why the guard exists.
 */
export function harnessGitConfig(options: GitConfigOptions): string[] {
  const helper = options.remote ? (options.base ?? process.env)[CREDENTIAL_HELPER_VARIABLE] : undefined;
  return [
    `user.name=${options.identity.name}`,
    `user.email=${options.identity.email}`,
    `safe.directory=${options.trusted}`,
    'core.hooksPath=/dev/null',
    'core.fsmonitor=false',
    'core.pager=cat',
    'core.editor=:',
    'sequence.editor=:',
    'core.askPass=',
    'core.sshCommand=ssh',
    'core.attributesFile=/dev/null',
    // With the attribute override (handoff/git-attributes.ts): no end-of-line conversion from any config either.
    'core.autocrlf=false',
    'core.eol=lf',
    // An empty value empties the helper list (the repository's included); then the operator's, if any.
    'credential.helper=',
    ...(helper ? [`credential.helper=${helper}`] : []),
    'protocol.ext.allow=never',
    'commit.gpgSign=false',
    'tag.gpgSign=false',
    'gc.auto=0',
    'maintenance.auto=false',
    'submodule.recurse=false',
    'diff.ignoreSubmodules=all',
    'fetch.recurseSubmodules=false',
    'push.recurseSubmodules=no',
    'branch.autoSetupMerge=false',
  ];
}

/** The argument check (handoff/git-process.ts) refuses these `-c` keys unless told they are intended: ours, with safe values. */
export const HARNESS_GIT_UNSAFE = {
  allowUnsafeHooksPath: true,
  allowUnsafeFsMonitor: true,
  allowUnsafePager: true,
  allowUnsafeEditor: true,
  allowUnsafeAskPass: true,
  allowUnsafeSshCommand: true,
  allowUnsafeCredentialHelper: true,
  allowUnsafeProtocolOverride: true,
  allowUnsafeConfigPaths: true,
  allowUnsafeGpgProgram: true,
  // GIT_CONFIG_COUNT/KEY/VALUE carry a remote's credential header (handoff/remote-url.ts); git's environment is ours.
  allowUnsafeConfigEnvCount: true,
} as const;
