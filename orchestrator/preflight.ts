import type { ModelProvider, ProviderFailure } from '../agent/messages.js';
import { describeLifecycle, modelLifecycle } from '../agent/model-retirement.js';
import { closestKnownModel, type ResolvedModelSettings, resolveModelSettings } from '../agent/models.js';
import { parseModelId } from '../agent/providers/index.js';
import { InputError, NightshiftError } from '../core/errors.js';
import { moduleLogger } from '../core/log.js';
import { withRetries } from '../core/retry.js';
import type { RunConfig } from './config.js';

const log = moduleLogger('orchestrator/preflight');

/** What preflight needs: how to make providers, and whether to send each model a tiny request. */
export interface PreflightOptions {
  /** Makes a provider (throws an InputError naming the missing key or base URL). */
  createProvider(modelId: string, settings?: ResolvedModelSettings): ModelProvider;
  /** Send each distinct model one tiny request (default true; config `preflight.request`, `--no-preflight-request`). */
  request?: boolean;
  /** Waits between probe retries (tests). */
  sleep?: (ms: number) => Promise<void>;
  /** Models used besides the run's roles, by what uses them (e.g. `{ planner: 'anthropic:…' }` for `run --prompt`). */
  extraModels?: Record<string, string>;
  /** Today, for models that retire (default: the clock). */
  now?: Date;
}

/** What preflight found for one model. */
export interface PreflightModel {
  modelId: string;
  /** The roles (and other users, such as the planner) of this model. */
  roles: string[];
  settings: ResolvedModelSettings;
  /** `ok`, `skipped`, or a warning (rate limited or overloaded: the key and model are fine). */
  probe: string;
}

/** The models a run would use, checked. */
export interface PreflightReport {
  models: PreflightModel[];
  /** Things the user should know that do not stop the run (no price → token budget; a busy provider). */
  warnings: string[];
}

/** The tiny request: a few tokens in, a few out. */
const PROBE_MAX_TOKENS = 16;

/** Probe failures that still prove the key and model work: the provider is only busy. */
const BUSY: ReadonlySet<ProviderFailure['kind']> = new Set(['rate_limited', 'overloaded']);

/**
 * Checks a run's models before the run exists (nothing is written, no workspace is touched): every role's
 * provider is known and its key (or base URL) present, a model without a price is covered by a budget, and
 * — unless switched off — each distinct model answers one tiny request. Throws one InputError (exit 2)
 * listing every problem with its fix.
 */
export async function preflightRun(config: RunConfig, options: PreflightOptions): Promise<PreflightReport> {
  const { models, problems, warnings } = await checkRunModels(config, options);
  if (problems.length > 0) {
    throw new InputError(
      'PREFLIGHT_FAILED',
      `The run was not created:\n${problems.map((p) => `  - ${p}`).join('\n')}`,
      {
        hint: 'Fix what is listed (keys in the environment, model ids, prices or budgets), then run again; nothing was written.',
      },
    );
  }
  for (const warning of warnings) log.warn({ warning }, 'preflight');
  return { models, warnings };
}

/** What {@link checkRunModels} found: the models, what stops a run, and what it should know. */
export interface ModelCheck extends PreflightReport {
  problems: string[];
}

/**
 * The checks of {@link preflightRun}, returned instead of thrown (the dashboard's new-run form shows them as the
 * person chooses): one problem or warning per sentence, each naming the model and its roles.
 */
export async function checkRunModels(config: RunConfig, options: PreflightOptions): Promise<ModelCheck> {
  const byModel = new Map<string, string[]>();
  const uses = { ...config.models, ...options.extraModels } as Record<string, string | undefined>;
  for (const [role, modelId] of Object.entries(uses)) {
    if (modelId) byModel.set(modelId, [...(byModel.get(modelId) ?? []), role]);
  }
  const problems: string[] = [];
  const warnings: string[] = [];
  const checked: Array<{ entry: PreflightModel; provider: ModelProvider }> = [];
  for (const [modelId, roles] of byModel) {
    const label = `${modelId} (${roles.join(', ')})`;
    try {
      parseModelId(modelId);
      const settings = resolveModelSettings(modelId, {
        overrides: config.modelSettings,
        prices: config.prices,
      });
      const provider = options.createProvider(modelId, settings);
      checked.push({ entry: { modelId, roles, settings, probe: 'skipped' }, provider });
      // A retired model is refused (its provider no longer answers it), one about to retire is a warning.
      const lifecycle = modelLifecycle(settings, options.now ?? new Date());
      const retirement = describeLifecycle(label, lifecycle);
      if (retirement) (lifecycle.state === 'retired' ? problems : warnings).push(retirement);
      const unpriced = priceProblem(label, settings, config);
      if (unpriced?.refuse) problems.push(unpriced.text);
      else if (unpriced) warnings.push(unpriced.text);
    } catch (error) {
      problems.push(`${label}: ${describe(error)}`);
    }
  }
  if (problems.length === 0 && options.request !== false) {
    const probes = await Promise.all(checked.map(({ entry, provider }) => probe(entry, provider, options)));
    for (const [index, result] of probes.entries()) {
      const { entry } = checked[index] as (typeof checked)[number];
      entry.probe = result.ok ? 'ok' : result.text;
      if (result.ok) continue;
      if (result.busy) warnings.push(result.text);
      else problems.push(result.text);
    }
  }
  return { models: checked.map(({ entry }) => entry), problems, warnings };
}

/** Unknown prices are never $0: the token budget must stand in, or the user must say there is no cap. */
function priceProblem(
  label: string,
  settings: ResolvedModelSettings,
  config: RunConfig,
): { text: string; refuse: boolean } | undefined {
  if (settings.price) return undefined;
  const { maxCostUsd, maxUnpricedTokens } = config.budgets;
  if (maxUnpricedTokens !== null) {
    return {
      refuse: false,
      text: `${label} has no price: its cost is shown as unknown and its sessions count against the token budget of ${maxUnpricedTokens} tokens (budgets.maxUnpricedTokens)`,
    };
  }
  if (maxCostUsd === null) return undefined;
  return {
    refuse: true,
    text: `${label} has no price, so the $${maxCostUsd} budget cannot be enforced and no token budget is set: give it a price (modelSettings."${settings.modelId}".price), set budgets.maxUnpricedTokens, or pass --budget-usd none to run without a cap`,
  };
}

async function probe(
  entry: PreflightModel,
  provider: ModelProvider,
  options: PreflightOptions,
): Promise<{ ok: true } | { ok: false; busy: boolean; text: string }> {
  const outcome = await withRetries(
    async () => {
      const result = await provider.complete({
        system: '',
        messages: [{ role: 'user', content: [{ type: 'text', text: 'Reply with the word OK.' }] }],
        tools: [],
        maxTokens: PROBE_MAX_TOKENS,
        signal: AbortSignal.timeout(60_000),
      });
      if (result.ok) return { ok: true as const, value: undefined };
      return {
        ok: false as const,
        error: result.failure,
        retryable: result.failure.kind === 'retryable',
        retryAfterMs: result.failure.retryAfterMs,
      };
    },
    {
      policy: { maxRetries: 2, baseDelayMs: 1_000, maxDelayMs: 10_000 },
      ...(options.sleep ? { sleep: options.sleep } : {}),
    },
  );
  if (outcome.ok) return { ok: true };
  const failure = outcome.error;
  const label = `${entry.modelId} (${entry.roles.join(', ')})`;
  if (BUSY.has(failure.kind)) {
    return {
      ok: false,
      busy: true,
      text: `${label}: the provider is busy (${failure.message}); the run goes on`,
    };
  }
  // An unknown model is most often a slip of one letter: name the known model it is closest to.
  const closest = failure.kind === 'model_not_found' ? closestKnownModel(entry.modelId) : undefined;
  const meant = closest ? ` (did you mean "${closest}"?)` : '';
  return { ok: false, busy: false, text: `${label}: a test request failed: ${failure.message}${meant}` };
}

function describe(error: unknown): string {
  if (error instanceof NightshiftError)
    return error.hint ? `${error.message} (${error.hint})` : error.message;
  return error instanceof Error ? error.message : String(error);
}
