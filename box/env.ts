import path from 'node:path';
import { moduleLogger } from '../core/log.js';
import { isHarnessOrSecretVariable } from '../core/secrets.js';
import { type NetworkPolicy, registryUrlInBox } from './network-policy.js';

const log = moduleLogger('box');

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

/**
 * The variables that send a box's HTTP(S) traffic to its egress proxy on the box's own loopback: the
 * common `*_PROXY` names (curl, pip, cargo, go, git, most HTTP clients) and npm's own settings; local
 * traffic (the app's own port, forwards) stays direct. Node's built-in `fetch` ignores them before Node 24
 * (`NODE_USE_ENV_PROXY` asks newer ones to honour them).
 */
export function proxyEnv(port: number): Record<string, string> {
  const url = `http://127.0.0.1:${port}`;
  const noProxy = 'localhost,127.0.0.1,::1';
  return {
    HTTP_PROXY: url,
    HTTPS_PROXY: url,
    http_proxy: url,
    https_proxy: url,
    npm_config_proxy: url,
    npm_config_https_proxy: url,
    PIP_PROXY: url,
    CARGO_HTTP_PROXY: url,
    NO_PROXY: noProxy,
    no_proxy: noProxy,
    NODE_USE_ENV_PROXY: '1',
  };
}

/**
 * npm's registry for a box whose policy names one (`sandbox.npmRegistry`): set after the scrub that drops every
 * `npm_*` variable, because it comes from the run's config, not the workspace. `inBox`: the process runs in a
 * bubblewrap box, where this host's loopback has another name.
 */
export function registryEnv(policy: NetworkPolicy, inBox: boolean): Record<string, string> {
  if (policy.npmRegistry === undefined || policy.mode === 'none') return {};
  return { npm_config_registry: inBox ? registryUrlInBox(policy.npmRegistry) : policy.npmRegistry };
}
