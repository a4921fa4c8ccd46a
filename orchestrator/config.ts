import { z } from 'zod';
import { DEFAULT_PRICES, PriceTable } from '../agent/cost.js';
import { ModelSettingsTable } from '../agent/models.js';
import type { NetworkMode } from '../box/network-policy.js';
import { redisUrlProblem } from '../core/redis-url.js';
import { AffectedStrategy } from '../evaluation/affected-checks.js';
import { parseDuration, parseOrThrow } from './config-parse.js';
import { FailoverConfig } from './failover.js';
import { RedisWait } from './replica-ack.js';
import { AppConfig, SandboxConfig } from './sandbox-config.js';

export { indent, parseDuration, parseOrThrow } from './config-parse.js';
export {
  AppConfig,
  appStartSettings,
  FileSizeMiB,
  MemoryMiB,
  NetworkSetting,
  RoleSandbox,
  type RoleSandboxSettings,
  SandboxConfig,
  sandboxForRole,
} from './sandbox-config.js';

/** The model every role uses unless configured otherwise. */
export const DEFAULT_MODEL = 'anthropic:claude-sonnet-5-5';

/** A model id: `provider:model` (`anthropic:claude-sonnet-5-5`, `openai:gpt-5.1`, `openai-compatible:<name>`). */
export const ModelId = z
  .string()
  .regex(/^[a-z][a-z0-9-]*:\S+$/, `expected a model id, provider:model (e.g. ${DEFAULT_MODEL})`);
export type ModelId = z.infer<typeof ModelId>;

/** Models per role. */
export const RoleModels = z.strictObject({
  initializer: ModelId.default(DEFAULT_MODEL),
  generator: ModelId.default(DEFAULT_MODEL),
  evaluator: ModelId.default(DEFAULT_MODEL),
  /** The planner (`nightshift plan`, `run --prompt`); unset: the generator's model (see plannerModelId). */
  planner: ModelId.optional(),
});
export type RoleModels = z.infer<typeof RoleModels>;

/** Budgets and stop conditions of one run; all on by default. */
export const Budgets = z.strictObject({
  /** Pause `budget` once the run's known cost reaches this (USD); null = no cost cap (`--budget-usd none`). */
  maxCostUsd: z.number().positive().nullable().default(20),
  /**
   * Pause `budget` once sessions of models without a price have used this many tokens (input, output and
   * cache); null = no cap. Unknown prices are never read as $0: this budget stands in for the USD one.
   */
  maxUnpricedTokens: z.number().int().positive().nullable().default(20_000_000),
  /** Pause `budget` once this many sessions have finished. */
  maxSessions: z.number().int().positive().default(200),
  /** Pause `deadline` at the first safe point after this instant (ISO 8601). */
  deadline: z.iso.datetime({ offset: true }).optional(),
  /** Failed evaluations of one feature before it is blocked and skipped (also: regressions of one feature). */
  maxAttemptsPerFeature: z.number().int().positive().default(3),
  /** Evaluations in a row without a new pass before the run pauses `stuck`. */
  stuckAfterEvaluations: z.number().int().positive().default(6),
  /** `blocked` verdicts in a row (the check could not run) before a failing feature is blocked. */
  maxBlockedEvaluations: z.number().int().positive().default(3),
  /** Initializer sessions that may end without a feature list before the run fails. */
  maxInitializerAttempts: z.number().int().positive().default(3),
  /** Generator sessions on one feature in a row (checkpoints) before it is evaluated anyway. */
  maxGeneratorSessionsPerAttempt: z.number().int().positive().default(3),
  /** Fatal provider errors in a row (bad key, unknown model) before the run fails. */
  maxConsecutiveProviderErrors: z.number().int().positive().default(2),
  /** The same harness error on the same step that many times in a row pauses the run `harness-error`. */
  maxRepeatedHarnessErrors: z.number().int().positive().default(3),
  /**
   * Pause `no-progress` when sessions keep starting but no commit landed and no feature passed for this many
   * minutes (the run building; the clock restarts on resume); 0 = off.
   */
  noProgressMinutes: z.number().nonnegative().default(15),
});
export type Budgets = z.infer<typeof Budgets>;

/** Step and wall-clock limits of one role's sessions. */
export const RoleLimits = z.strictObject({
  maxSteps: z.number().int().positive(),
  maxMinutes: z.number().positive(),
});
export type RoleLimits = z.infer<typeof RoleLimits>;

const roleLimits = (maxSteps: number, maxMinutes: number) =>
  z.strictObject({
    maxSteps: z.number().int().positive().default(maxSteps),
    maxMinutes: z.number().positive().default(maxMinutes),
  });

/** Limits per role. */
export const Limits = z.strictObject({
  initializer: roleLimits(150, 30).prefault({}),
  generator: roleLimits(200, 45).prefault({}),
  evaluator: roleLimits(80, 15).prefault({}),
  /** The planner's minutes include the time the user takes to answer its questions. */
  planner: roleLimits(12, 30).prefault({}),
});
export type Limits = z.infer<typeof Limits>;

/** The run events a webhook can be sent for. */
export const NotificationEvent = z.enum([
  'run.finished',
  'run.paused',
  'run.failed',
  'feature.regressed',
  'nightly.summary',
  'question.asked',
  'question.answered',
]);
export type NotificationEvent = z.infer<typeof NotificationEvent>;

/** One webhook: generic JSON or Slack-compatible text; `events` omitted = all. */
export const Webhook = z.strictObject({
  url: z.url({ protocol: /^https?$/ }),
  format: z.enum(['json', 'slack']).default('json'),
  events: z.array(NotificationEvent).min(1).optional(),
});
export type Webhook = z.infer<typeof Webhook>;

/** The provider a bare model name most likely meant, for the fix in the error message. */
export function guessProvider(name: string): string {
  if (/^claude/i.test(name)) return 'anthropic';
  if (/^(gpt|o\d|chatgpt)/i.test(name)) return 'openai';
  return 'openai-compatible';
}

/** Keys of a table by model id must be `provider:model`: a bare name would never match and be ignored. */
function modelKeyed<T extends z.ZodType>(table: T, field: string) {
  return table.superRefine((value, ctx) => {
    for (const key of Object.keys(value as Record<string, unknown>)) {
      if (key.includes(':')) continue;
      ctx.addIssue({
        code: 'custom',
        path: [key],
        message: `"${key}" is not a model id: ${field} are keyed by provider:model, e.g. "${guessProvider(key)}:${key}"`,
      });
    }
  });
}

/** How sessions may ask a person (`ask_human`) and how long the run waits for answers. */
export const Questions = z.strictObject({
  /** Open questions at once per run; past that `ask_human` answers "decide yourself". 0: no questions at all. */
  maxOpen: z.number().int().min(0).max(50).default(3),
  /** A question unanswered this long is answered "decide yourself…" by the harness (0: never). */
  answerTimeoutMinutes: z.number().min(0).default(120),
  /** A run with only waiting features left pauses this long after the last question (reason: the questions). */
  pauseAfterHours: z.number().positive().default(8),
});
export type Questions = z.infer<typeof Questions>;

/** Everything that shapes one run; stored with the run. Parse `{}` to get the defaults. */
export const RunConfig = z.strictObject({
  models: RoleModels.prefault({}),
  budgets: Budgets.prefault({}),
  /** A regression sweep after this many new passes (and always before finishing). */
  regressEvery: z.number().int().positive().default(5),
  /** Features re-checked per regression session. */
  regressBatchSize: z.number().int().positive().default(10),
  /**
   * Features in flight at once, each on its own branch, merged by the merge queue (1 = one session at a time, the
   * serial loop). See docs/lanes.md for the measurements behind the default.
   */
  lanes: z.number().int().min(1).max(8).default(1),
  /**
   * Lanes mode: which checks a merge replays (`lines`: the ones the lanes' changes can affect, and their own; `all`:
   * every passing feature's), and when every check is replayed anyway (docs/configuration.md, "Merge queue").
   */
  mergeChecks: z
    .strictObject({
      affected: AffectedStrategy.default('lines'),
      /** A full sweep after this many merges since the last one. */
      fullSweepEveryMerges: z.number().int().positive().default(8),
      /** A full sweep once this many minutes passed since the last one (with a merge since). */
      fullSweepEveryMinutes: z.number().positive().default(20),
      /**
       * At most this share of the time goes to full sweeps due by merges: after a sweep that took D, the next waits
       * at least D × (1 − share) / share, however many merges came (`fullSweepEveryMinutes` still applies).
       */
      fullSweepMaxShare: z.number().gt(0).max(1).default(0.25),
    })
    .prefault({}),
  limits: Limits.prefault({}),
  /** How many features the initializer should write. */
  featureCount: z
    .strictObject({ min: z.number().int().positive(), max: z.number().int().positive() })
    .refine((range) => range.min <= range.max, 'min must not exceed max')
    .optional(),
  /** Price overrides (USD per million tokens); merged over DEFAULT_PRICES. */
  prices: PriceTable.default({}).transform((prices) => ({ ...DEFAULT_PRICES, ...prices })),
  /**
   * Per-model settings by model id (dated ids match by prefix): contextWindow, maxOutputTokens, vision,
   * streaming, reasoning, price — each overrides the defaults in agent/models.ts (see docs/models.md).
   */
  modelSettings: ModelSettingsTable.default({}),
  sandbox: SandboxConfig.prefault({}),
  /** The app as the harness starts it: readiness timeout, dependency cache (sandbox-config.ts). */
  app: AppConfig.prefault({}),
  notifications: z.strictObject({ webhooks: z.array(Webhook).default([]) }).prefault({}),
  questions: Questions.prefault({}),
});
export type RunConfig = z.infer<typeof RunConfig>;

/**
 * A run config as a user writes it (config file, command line): RunConfig, and tables keyed by model id must use
 * `provider:model` keys. Stored runs are read with RunConfig, so an older run is never made unreadable.
 */
export const UserRunConfig = RunConfig.extend({
  prices: modelKeyed(PriceTable, 'prices')
    .default({})
    .transform((prices) => ({ ...DEFAULT_PRICES, ...prices })),
  modelSettings: modelKeyed(ModelSettingsTable, 'modelSettings').default({}),
});
/** What a user may write for a run config (every field optional). */
export type RunConfigInput = z.input<typeof RunConfig>;

/** Options from the command line that override a run's config. */
export interface RunOverrides {
  /** `--model`: every role. */
  model?: string;
  modelInitializer?: string;
  modelGenerator?: string;
  modelEvaluator?: string;
  modelPlanner?: string;
  /** `--budget-usd N`, or null for `--budget-usd none` (no cost cap). */
  budgetUsd?: number | null;
  maxSessions?: number;
  /** `--for 6h`: the deadline is now + this duration. */
  forDuration?: string;
  /** `--network MODE`: the network policy of every role. */
  network?: string;
  /** `--allow-host HOST`: added to `sandbox.allowHosts`. */
  allowHosts?: string[];
  /** `--app-ready-timeout 180s`: how long the app may take to answer after init.sh starts (ms). */
  appReadyTimeoutMs?: number;
  /** `--lanes N`: features worked on at once (and sessions at once); up to N more may wait for the merge queue. */
  lanes?: number;
  /** `--webhook URL` / `--slack-webhook URL`: added to `notifications.webhooks` of this run. */
  webhooks?: Array<{ url: string; format: 'json' | 'slack' }>;
}

/** The run config from config-file defaults plus command-line overrides; throws InputError naming bad fields. */
export function buildRunConfig(base: RunConfigInput, overrides: RunOverrides, now: Date): RunConfig {
  const models = { ...(base.models ?? {}) };
  if (overrides.model)
    Object.assign(models, {
      initializer: overrides.model,
      generator: overrides.model,
      evaluator: overrides.model,
      planner: overrides.model,
    });
  if (overrides.modelPlanner) models.planner = overrides.modelPlanner;
  if (overrides.modelInitializer) models.initializer = overrides.modelInitializer;
  if (overrides.modelGenerator) models.generator = overrides.modelGenerator;
  if (overrides.modelEvaluator) models.evaluator = overrides.modelEvaluator;
  const budgets = { ...(base.budgets ?? {}) };
  if (overrides.budgetUsd !== undefined) budgets.maxCostUsd = overrides.budgetUsd;
  if (overrides.maxSessions !== undefined) budgets.maxSessions = overrides.maxSessions;
  if (overrides.forDuration !== undefined) {
    budgets.deadline = new Date(now.getTime() + parseDuration(overrides.forDuration)).toISOString();
  }
  const sandbox = { ...(base.sandbox ?? {}) };
  if (overrides.network !== undefined) sandbox.network = overrides.network as NetworkMode;
  if (overrides.allowHosts?.length)
    sandbox.allowHosts = [...(sandbox.allowHosts ?? []), ...overrides.allowHosts];
  const notifications = {
    ...(base.notifications ?? {}),
    webhooks: [...(base.notifications?.webhooks ?? []), ...(overrides.webhooks ?? [])],
  };
  const app = { ...(base.app ?? {}) };
  if (overrides.appReadyTimeoutMs !== undefined) app.readyTimeoutSeconds = overrides.appReadyTimeoutMs / 1000;
  return parseOrThrow(
    UserRunConfig,
    {
      ...base,
      models,
      budgets,
      sandbox,
      app,
      notifications,
      ...(overrides.lanes === undefined ? {} : { lanes: overrides.lanes }),
    },
    'run options',
  );
}

/**
 * The planner's model: an explicit choice (`--model`), else `models.planner`, else the generator's model.
 * The one place the planner's model is resolved (a preflight can call it too).
 */
export function plannerModelId(models: Pick<RoleModels, 'planner' | 'generator'>, override?: string): string {
  return override ?? models.planner ?? models.generator;
}

/** Global configuration: `nightshift.config.json` merged with the environment. */
export const NightshiftConfig = z.strictObject({
  /**
   * `redis://`, `rediss://`, `redis+sentinel://…/masterName` or `redis+cluster://…` URL (core/redis-url.ts); when
   * absent the CLI tries 127.0.0.1:6379, then an embedded redis-server.
   */
  redisUrl: z
    .string()
    .superRefine((url, context) => {
      const problem = redisUrlProblem(url);
      if (problem) context.addIssue({ code: 'custom', message: problem });
    })
    .optional(),
  /** Prefix of every Redis key (and BullMQ prefix); `{…}` makes it a Cluster hash tag (added for redis+cluster). */
  keyPrefix: z
    .string()
    .regex(
      /^(?:\{[A-Za-z0-9_.:-]+\})?[A-Za-z0-9_.:-]*:$/,
      'expected letters, digits, _ . - :, an optional leading {hash tag} and a trailing colon (e.g. nightshift:, team:nightshift: or {nightshift}:)',
    )
    .refine((prefix) => prefix !== ':', 'expected a name before the colon (e.g. nightshift:)')
    .default('nightshift:'),
  /** Sentinel only: replicas a session's result waits for (WAIT) before the worker goes on (replica-ack.ts). */
  redisWait: RedisWait.prefault({}),
  /** Transcripts, evidence, worker clones, embedded Redis data. */
  dataDir: z.string().min(1),
  worker: z
    .strictObject({
      concurrency: z.number().int().positive().default(1),
      /**
       * SIGTERM drain: how long sessions in flight get to finish before they are told to checkpoint and are released
       * to another worker (`NIGHTSHIFT_SHUTDOWN_GRACE_SECONDS`). Keep a container's stop timeout above it.
       */
      shutdownGraceSeconds: z.number().positive().default(60),
      /** Job and run lock timing: how soon a killed worker's session moves to another worker. */
      failover: FailoverConfig.prefault({}),
    })
    .prefault({}),
  dashboard: z
    .strictObject({
      host: z.string().min(1).default('127.0.0.1'),
      port: z.number().int().min(0).max(65535).default(7070),
      /** Required when the dashboard binds anything but loopback. */
      token: z.string().min(16).optional(),
    })
    .prefault({}),
  /** Chromium for the evaluator; default `$NIGHTSHIFT_CHROMIUM`, then the headless shell or Chromium (workers/chromium-path.ts). */
  chromiumPath: z.string().min(1).optional(),
  /** OpenAI-compatible servers by name, used as `openai-compatible:<name>`. */
  openaiCompatible: z
    .record(
      z.string().regex(/^[A-Za-z0-9_.-]+$/, 'names use letters, digits, _ . -'),
      z.strictObject({
        baseURL: z.url({ protocol: /^https?$/ }),
        /** The environment variable holding its API key, if it needs one. */
        apiKeyEnv: z.string().optional(),
        /** The model name sent to the server (default: the name). */
        model: z.string().optional(),
      }),
    )
    .default({}),
  /** Bound of each run's event stream (entries, approximate). */
  eventLogMaxLength: z.number().int().positive().default(10_000),
  /** Checks before a run is created (orchestrator/preflight.ts). */
  preflight: z
    .strictObject({
      /** One tiny request per distinct model (a few tokens each) to prove key and model id work. */
      request: z.boolean().default(true),
    })
    .prefault({}),
  /** Defaults for new runs. */
  run: UserRunConfig.prefault({}),
  /** Tidying finished runs (orchestrator/housekeeping.ts; `nightshift prune` for the rest). */
  housekeeping: z
    .strictObject({
      /** Remove a run's lane branches and this machine's worker clones of it when it finishes. */
      removeOnFinish: z.boolean().default(true),
    })
    .prefault({}),
});
export type NightshiftConfig = z.infer<typeof NightshiftConfig>;

/** Where loadConfig looks and what it reads. */
export interface LoadConfigOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** An explicit config file (must exist); otherwise `$NIGHTSHIFT_CONFIG`, then `<cwd>/nightshift.config.json` if present. */
  file?: string;
}

/** The validated global configuration and the file it came from (null = none). */
export interface LoadedConfig {
  config: NightshiftConfig;
  source: string | null;
}
