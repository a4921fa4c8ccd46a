import { describe, expect, it } from 'vitest';
import { InputError } from '../../../core/errors.js';
import { buildRunConfig, RunConfig, SandboxConfig, sandboxForRole } from '../../../orchestrator/config.js';

const NOW = new Date('2026-01-01T00:00:00Z');

describe('sandbox configuration', () => {
  it('defaults to the box with registries for every role', () => {
    const config = SandboxConfig.parse({});
    for (const role of ['initializer', 'generator', 'evaluator', 'planner'] as const) {
      expect(sandboxForRole(config, role)).toEqual({
        sandbox: 'bubblewrap',
        network: 'registries',
        allowHosts: [],
        maxMemoryBytes: 2048 * 1024 ** 2,
        maxFileSizeBytes: 1024 ** 3,
      });
    }
  });

  it('still reads the old boolean: true is open, false is none; re-parsing a stored config changes nothing', () => {
    expect(SandboxConfig.parse({ network: true }).network).toBe('open');
    expect(SandboxConfig.parse({ network: false }).network).toBe('none');
    const stored = RunConfig.parse({ sandbox: { network: false, bubblewrap: 'off' } });
    expect(stored.sandbox).toMatchObject({ network: 'none', bubblewrap: 'off' });
    expect(RunConfig.parse(JSON.parse(JSON.stringify(stored)))).toEqual(stored);
  });

  it('off means no box; auto and required both mean the box', () => {
    expect(sandboxForRole(SandboxConfig.parse({ bubblewrap: 'off' }), 'generator').sandbox).toBe('none');
    expect(sandboxForRole(SandboxConfig.parse({ bubblewrap: 'required' }), 'generator').sandbox).toBe(
      'bubblewrap',
    );
  });

  it('per-role overrides: the evaluator takes the app’s, hosts add to the global list', () => {
    const config = SandboxConfig.parse({
      network: 'registries',
      allowHosts: ['mirror.corp.test'],
      roles: { app: { network: 'none' }, generator: { network: true, allowHosts: ['api.example.com:8443'] } },
    });
    expect(sandboxForRole(config, 'evaluator')).toMatchObject({
      sandbox: 'bubblewrap',
      network: 'none',
      allowHosts: ['mirror.corp.test'],
    });
    expect(sandboxForRole(config, 'generator')).toMatchObject({
      sandbox: 'bubblewrap',
      network: 'open',
      allowHosts: ['mirror.corp.test', 'api.example.com:8443'],
    });
    expect(sandboxForRole(config, 'initializer').network).toBe('registries');
  });

  it('refuses malformed hosts and modes, naming the field', () => {
    expect(() => buildRunConfig({ sandbox: { allowHosts: ['http://x.test/'] } }, {}, NOW)).toThrow(
      'sandbox.allowHosts[0]: must be host, host:port, *.domain, an IP address or [IPv6]:port, not "http://x.test/"',
    );
    expect(() =>
      buildRunConfig({ sandbox: { roles: { app: { network: 'wide' as never } } } }, {}, NOW),
    ).toThrow(/sandbox\.roles\.app\.network/);
    expect(() => buildRunConfig({}, { network: 'everything' }, NOW)).toThrow(InputError);
  });

  it('--network and --allow-host override the defaults for one run', () => {
    const config = buildRunConfig(
      { sandbox: { allowHosts: ['a.test'] } },
      { network: 'open', allowHosts: ['127.0.0.1:4873'] },
      NOW,
    );
    expect(config.sandbox.network).toBe('open');
    expect(config.sandbox.allowHosts).toEqual(['a.test', '127.0.0.1:4873']);
  });

  it('memory and file size: global settings, per-role overrides (the evaluator takes the app’s)', () => {
    const config = SandboxConfig.parse({
      memoryMiB: 4096,
      fileSizeMiB: 512,
      roles: { generator: { memoryMiB: 3072 }, app: { memoryMiB: 1024, fileSizeMiB: 64 } },
    });
    expect(sandboxForRole(config, 'generator')).toMatchObject({
      maxMemoryBytes: 3072 * 1024 ** 2,
      maxFileSizeBytes: 512 * 1024 ** 2,
    });
    expect(sandboxForRole(config, 'evaluator')).toMatchObject({
      maxMemoryBytes: 1024 * 1024 ** 2,
      maxFileSizeBytes: 64 * 1024 ** 2,
    });
    expect(sandboxForRole(config, 'initializer').maxMemoryBytes).toBe(4096 * 1024 ** 2);
  });

  it('refuses a memory limit too small for node, fractional or not a number, naming the field', () => {
    expect(() => buildRunConfig({ sandbox: { memoryMiB: 100 } }, {}, NOW)).toThrow(
      'sandbox.memoryMiB: must be at least 256, not 100',
    );
    expect(() => buildRunConfig({ sandbox: { roles: { generator: { memoryMiB: 1.5 } } } }, {}, NOW)).toThrow(
      'sandbox.roles.generator.memoryMiB: must be an int, not 1.5',
    );
    expect(() => buildRunConfig({ sandbox: { memoryMiB: '2G' as never } }, {}, NOW)).toThrow(
      'sandbox.memoryMiB: must be a number, not "2G" (e.g. 2048, the default)',
    );
    expect(() => buildRunConfig({ sandbox: { fileSizeMiB: 0 } }, {}, NOW)).toThrow(InputError);
  });
});
