import { describe, expect, it } from 'vitest';
import type { ProviderFailure } from '../../../agent/messages.js';
import type { ResolvedModelSettings } from '../../../agent/models.js';
import { InputError } from '../../../core/errors.js';
import { RunConfig, type RunConfigInput } from '../../../orchestrator/config.js';
import { preflightRun } from '../../../orchestrator/preflight.js';
import { createFakeProvider, type FakeProvider } from '../../../testkit/fake-provider.js';

function setup(answers: Record<string, ProviderFailure | 'ok' | 'no key'> = {}) {
  const made: FakeProvider[] = [];
  const createProvider = (id: string, settings?: ResolvedModelSettings) => {
    if (answers[id] === 'no key') {
      throw new InputError('MODEL_KEY_MISSING', `OPENAI_API_KEY is not set, and model ${id} needs it`, {
        hint: 'Export OPENAI_API_KEY',
      });
    }
    const answer = answers[id] ?? 'ok';
    const provider = createFakeProvider(
      () => (answer === 'ok' ? { text: 'OK' } : { failure: answer as ProviderFailure }),
      {
        id,
        ...(settings ? { settings } : {}),
      },
    );
    made.push(provider);
    return provider;
  };
  return { createProvider, made, sleep: async () => undefined };
}

const config = (input: RunConfigInput = {}) => RunConfig.parse(input);

describe('preflightRun', () => {
  it('sends one tiny request per distinct model and reports the roles using it', async () => {
    const deps = setup();
    const report = await preflightRun(
      config({ models: { initializer: 'anthropic:claude-sonnet-5-5', evaluator: 'openai:gpt-5-mini' } }),
      deps,
    );
    expect(report.models.map((model) => [model.modelId, model.roles, model.probe])).toEqual([
      ['anthropic:claude-sonnet-5-5', ['initializer', 'generator'], 'ok'],
      ['openai:gpt-5-mini', ['evaluator'], 'ok'],
    ]);
    expect(deps.made.map((provider) => provider.requests.length)).toEqual([1, 1]);
    expect(deps.made[0]?.requests[0]).toMatchObject({ maxTokens: 16, tools: [] });
    expect(report.warnings).toEqual([]);
  });

  it('refuses, listing every problem with its fix: unknown provider, missing key, failed request', async () => {
    const deps = setup({
      'openai:gpt-5': 'no key',
      'anthropic:claude-nope': {
        kind: 'model_not_found',
        status: 404,
        message: 'anthropic:claude-nope: not found (404 model: claude-nope); check the model name',
      },
    });
    const refused = preflightRun(
      config({
        models: {
          initializer: 'foo:bar',
          generator: 'openai:gpt-5',
          evaluator: 'anthropic:claude-sonnet-5-5',
        },
      }),
      deps,
    );
    await expect(refused).rejects.toThrow(InputError);
    await expect(refused).rejects.toThrow(
      /foo:bar \(initializer\): Model id "foo:bar" names an unknown provider/,
    );
    await expect(refused).rejects.toThrow(
      /openai:gpt-5 \(generator\): OPENAI_API_KEY is not set.*\(Export OPENAI_API_KEY\)/,
    );
    // Nothing was probed while a model could not even be made.
    expect(deps.made.every((provider) => provider.requests.length === 0)).toBe(true);
    const probe = preflightRun(config({ models: { generator: 'anthropic:claude-nope' } }), deps);
    await expect(probe).rejects.toThrow(
      /anthropic:claude-nope \(generator\): a test request failed: .*404 model: claude-nope\); check the model name$/,
    );
    // A slip of a letter names the known model it was meant to be.
    const slip = setup({
      'anthropic:claude-sonet-5-5': { kind: 'model_not_found', status: 404, message: 'not found (404)' },
    });
    await expect(
      preflightRun(config({ models: { generator: 'anthropic:claude-sonet-5-5' } }), slip),
    ).rejects.toThrow(/not found \(404\) \(did you mean "anthropic:claude-sonnet-5-5"\?\)/);
  });

  it('only warns about a busy provider, and retries a transient failure', async () => {
    const busy = setup({
      'anthropic:claude-sonnet-5-5': { kind: 'overloaded', status: 529, message: '529 Overloaded' },
    });
    const report = await preflightRun(config(), busy);
    expect(report.warnings).toEqual([
      expect.stringMatching(/the provider is busy \(529 Overloaded\); the run goes on/),
    ]);
    const flaky = setup({
      'anthropic:claude-sonnet-5-5': { kind: 'retryable', status: 500, message: '500 boom' },
    });
    await expect(preflightRun(config(), flaky)).rejects.toThrow(/a test request failed: 500 boom/);
    expect(flaky.made[0]?.requests).toHaveLength(3);
  });

  it('skips the request when told to, checking keys and prices still', async () => {
    const deps = setup();
    const report = await preflightRun(config(), { ...deps, request: false });
    expect(report.models[0]?.probe).toBe('skipped');
    expect(deps.made[0]?.requests).toHaveLength(0);
  });

  it('covers a model without a price with the token budget, or refuses without one', async () => {
    const unpriced = {
      models: {
        initializer: 'openai-compatible:qwen',
        generator: 'openai-compatible:qwen',
        evaluator: 'openai-compatible:qwen',
      },
    };
    const report = await preflightRun(config(unpriced), { ...setup(), request: false });
    expect(report.warnings).toEqual([
      expect.stringMatching(
        /openai-compatible:qwen \(initializer, generator, evaluator\) has no price: .* token budget of 20000000 tokens/,
      ),
    ]);
    await expect(
      preflightRun(config({ ...unpriced, budgets: { maxUnpricedTokens: null } }), {
        ...setup(),
        request: false,
      }),
    ).rejects.toThrow(/has no price, so the \$20 budget cannot be enforced .* --budget-usd none/);
    const uncapped = await preflightRun(
      config({ ...unpriced, budgets: { maxUnpricedTokens: null, maxCostUsd: null } }),
      {
        ...setup(),
        request: false,
      },
    );
    expect(uncapped.warnings).toEqual([]);
  });

  it('refuses a retired model naming its replacement, and warns 30 days before a retirement', async () => {
    const now = new Date('2026-12-01T09:00:00Z');
    const retired = preflightRun(config({ models: { generator: 'anthropic:claude-sonnet-4-5-20250929' } }), {
      ...setup(),
      now,
    });
    await expect(retired).rejects.toThrow(
      /anthropic:claude-sonnet-4-5-20250929 \(generator\) was retired on 2026-11-30 .*use anthropic:claude-sonnet-5-5 instead \(--model anthropic:claude-sonnet-5-5/,
    );
    // Opus 4.5 retires on 2027-01-22: quiet 52 days ahead, a warning from 30 days ahead.
    const opus = config({ models: { generator: 'anthropic:claude-opus-4-5' } });
    expect((await preflightRun(opus, { ...setup(), now })).warnings).toEqual([]);
    const soon = await preflightRun(opus, { ...setup(), now: new Date('2027-01-01T00:00:00Z') });
    expect(soon.warnings).toEqual([
      expect.stringMatching(
        /anthropic:claude-opus-4-5 \(generator\) retires on 2027-01-22 \(in 21 days\).*use anthropic:claude-opus-5-5 instead/,
      ),
    ]);
    // A date set in modelSettings counts like a built-in one (an OpenAI-compatible model the user tracks).
    const local = config({
      models: { evaluator: 'openai-compatible:qwen' },
      modelSettings: { 'openai-compatible:qwen': { retiresOn: '2026-11-01', price: null } },
      budgets: { maxCostUsd: null, maxUnpricedTokens: null },
    });
    await expect(preflightRun(local, { ...setup(), now, request: false })).rejects.toThrow(
      /openai-compatible:qwen \(evaluator\) was retired on 2026-11-01 .*choose another model/,
    );
  });
});
