// `sandbox.npmRegistry`: the run's npm mirror reaches every box of a role (allowed, and npm's registry inside the
// box, named by the loopback alias when it is on this host), and a bad value is refused with what to write.
import { describe, expect, it } from 'vitest';
import { registryEnv } from '../../../box/env.js';
import { checkDestination, networkPolicy } from '../../../box/network-policy.js';
import { SandboxConfig, sandboxForRole } from '../../../orchestrator/sandbox-config.js';

describe('sandbox.npmRegistry', () => {
  it('puts a loopback registry on the allow list and names it by the alias inside the box', () => {
    const config = SandboxConfig.parse({ npmRegistry: 'http://127.0.0.1:4873' });
    const settings = sandboxForRole(config, 'evaluator');
    expect(settings.npmRegistry).toBe('http://127.0.0.1:4873/');
    const policy = networkPolicy(settings.network, settings.allowHosts, settings.npmRegistry);
    expect(policy.allowHosts).toContain('127.0.0.1:4873');
    expect(checkDestination(policy, '127.0.0.1', 4873).allowed).toBe(true);
    expect(checkDestination(policy, '127.0.0.1', 4874).allowed).toBe(false);
    expect(registryEnv(policy, true)).toEqual({
      npm_config_registry: 'http://host.nightshift.internal:4873/',
    });
    expect(registryEnv(policy, false)).toEqual({ npm_config_registry: 'http://127.0.0.1:4873/' });
  });

  it('keeps a public mirror as it is, on its default port', () => {
    const policy = networkPolicy('registries', [], 'https://npm.corp.test/repo/');
    expect(policy.allowHosts).toEqual(['npm.corp.test:443']);
    expect(registryEnv(policy, true)).toEqual({ npm_config_registry: 'https://npm.corp.test/repo/' });
  });

  it('gives a box without network no registry', () => {
    const policy = networkPolicy('none', [], 'http://127.0.0.1:4873/');
    expect(policy.allowHosts).toEqual([]);
    expect(registryEnv(policy, true)).toEqual({});
  });

  it('refuses a registry that is not an http(s) URL, saying what to write', () => {
    const parsed = SandboxConfig.safeParse({ npmRegistry: 'ftp://127.0.0.1:4873/' });
    expect(parsed.success).toBe(false);
    expect(JSON.stringify(parsed.error?.issues)).toMatch(/http\(s\) URL such as/);
  });
});
