import path from 'node:path';
import { moduleLogger } from '../../core/log.js';
import { isHarnessOrSecretVariable } from '../../core/secrets.js';

const log = moduleLogger('agent/sandbox');

/** System directories on PATH inside the sandbox (the harness's own PATH is not inherited). */
export const SYSTEM_PATH = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'];

/** Inputs of `buildSandboxEnv`. */
export interface SandboxEnvInput {
  /** HOME inside the sandbox: a private, throwaway directory. */
  home: string;
  /** TMPDIR inside the sandbox. */
  tmpdir: string;
  /** Extra variables allowed by configuration; harness and secret variables among them are dropped. */
  extra?: Record<string, string>;
  /** Directory of the node binary, put first on PATH so `node`/`npm` match the harness's version. */
  nodeBinDir?: string;
}

/**
 * The environment of a sandboxed command, built from scratch (nothing inherited from the harness):
 * PATH, locale, TERM, HOME, TMPDIR and the allowed extras. A variable matching
 * `isHarnessOrSecretVariable` never gets in, even when configuration asks for it.
 */
export function buildSandboxEnv(input: SandboxEnvInput): Record<string, string> {
  const pathDirs = [...(input.nodeBinDir ? [input.nodeBinDir] : []), ...SYSTEM_PATH];
  const env: Record<string, string> = {
    PATH: [...new Set(pathDirs)].join(path.delimiter),
    LANG: 'C.UTF-8',
    LC_ALL: 'C.UTF-8',
    TERM: 'dumb',
    NO_COLOR: '1',
    PAGER: 'cat',
    HOME: input.home,
    TMPDIR: input.tmpdir,
  };
  for (const [name, value] of Object.entries(input.extra ?? {})) {
    if (isHarnessOrSecretVariable(name)) {
      log.warn({ variable: name }, 'dropped a harness or secret variable from the sandbox environment');
      continue;
    }
    if (typeof value === 'string') env[name] = value;
  }
  return env;
}
