import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { durationMs } from '../../../cli/options.js';
import { registerRunCommand } from '../../../cli/run.js';
import { InputError } from '../../../core/errors.js';
import { buildRunConfig, RunConfig } from '../../../orchestrator/config.js';

const T0 = new Date('2026-01-01T00:00:00Z');

/** `nightshift run …` parsed on a bare program: option parsers run before the action (no Redis reached). */
async function parseRun(args: string[]): Promise<unknown> {
  const program = new Command('nightshift').exitOverride().configureOutput({ writeErr: () => undefined });
  registerRunCommand(program, {});
  return program.parseAsync(['node', 'nightshift', 'run', ...args]).then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe('the app readiness timeout of a run', () => {
  it('defaults to 180 s, also for a stored run from before the key existed', () => {
    expect(RunConfig.parse({}).app.readyTimeoutSeconds).toBe(180);
    expect(buildRunConfig({}, {}, T0).app.readyTimeoutSeconds).toBe(180);
  });

  it('comes from the config file, and --app-ready-timeout overrides it', () => {
    const base = { app: { readyTimeoutSeconds: 240 } };
    expect(buildRunConfig(base, {}, T0).app.readyTimeoutSeconds).toBe(240);
    const parse = durationMs('--app-ready-timeout');
    expect(buildRunConfig(base, { appReadyTimeoutMs: parse('5m') }, T0).app.readyTimeoutSeconds).toBe(300);
    expect(buildRunConfig(base, { appReadyTimeoutMs: parse('90s') }, T0).app.readyTimeoutSeconds).toBe(90);
  });

  it('refuses a value that is not a duration, naming the option', async () => {
    const error = await parseRun(['spec.md', '--app-ready-timeout', 'soon']);
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).message).toBe('--app-ready-timeout must be a duration, not "soon".');
    expect((error as InputError).describe()).toMatch(/e\.g\. --app-ready-timeout 5m/);
  });

  it('refuses a timeout out of range in the config, naming the key', () => {
    expect(() => buildRunConfig({ app: { readyTimeoutSeconds: 0 } }, {}, T0)).toThrow(
      /app\.readyTimeoutSeconds/,
    );
    expect(() => buildRunConfig({}, { appReadyTimeoutMs: 2 * 3_600_000 }, T0)).toThrow(
      /app\.readyTimeoutSeconds: must be at most 3600, not 7200/,
    );
  });
});
