/**
 * `nightshift doctor`'s model checks: every base URL the configured roles use answers a real request (through the
 * provider's own SDK, as a run would call it), each role has a key its server accepts, and no model is retired or
 * about to be. A role without a usable key, a server that does not answer and a retired model fail (exit 1).
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { z } from 'zod';
import { describeLifecycle, modelLifecycle } from '../agent/model-retirement.js';
import { resolveModelSettings } from '../agent/models.js';
import { NO_KEY_PLACEHOLDER, parseModelId } from '../agent/providers/index.js';
import type { NightshiftConfig } from '../orchestrator/config.js';

/** One check: `ok`, `warn` (works, with a limitation) or `fail` (something will not work), and the fix. */
export const DoctorCheck = z.object({
  name: z.string(),
  status: z.enum(['ok', 'warn', 'fail']),
  detail: z.string(),
  /** How to fix it (null when ok). */
  fix: z.string().nullable(),
});
export type DoctorCheck = z.infer<typeof DoctorCheck>;

/** A check that passed. */
export const ok = (name: string, detail: string): DoctorCheck => ({ name, status: 'ok', detail, fix: null });
/** A check that works with a limitation. */
export const warn = (name: string, detail: string, fix: string): DoctorCheck => ({
  name,
  status: 'warn',
  detail,
  fix,
});
/** A check that failed. */
export const fail = (name: string, detail: string, fix: string): DoctorCheck => ({
  name,
  status: 'fail',
  detail,
  fix,
});

/** How long a model server has to answer the doctor. */
const SERVER_TIMEOUT_MS = 5_000;

/** Where the hosted APIs are when no base URL is set (the SDKs' own defaults). */
const DEFAULT_BASE_URLS = {
  anthropic: 'https://api.anthropic.com',
  openai: 'https://api.openai.com/v1',
} as const;

/** One server the configured models talk to: its base URL, the key it gets, and who uses it. */
interface Endpoint {
  provider: 'anthropic' | 'openai' | 'openai-compatible';
  baseURL: string;
  /** The variable holding its key; null for a compatible server that is given none. */
  keyVariable: string | null;
  /** Whether a run cannot work without the key (the hosted APIs; a compatible server with `apiKeyEnv`). */
  keyRequired: boolean;
  /** `model (roles)` labels of the models using it. */
  uses: string[];
}

/** What the server said to a real request. */
type Answer = { status: number } | { down: string };

/** The model checks: `api keys`, one `model server` per base URL, and `models` (retirement). */
export async function checkModels(
  env: NodeJS.ProcessEnv,
  config: NightshiftConfig | undefined,
  now: Date,
): Promise<DoctorCheck[]> {
  if (!config) {
    return [
      warn(
        'models',
        'not checked: the config is invalid (see above)',
        'Fix the config, then run doctor again.',
      ),
    ];
  }
  const roles = rolesByModel(config);
  const endpoints = new Map<string, Endpoint>();
  const missingServer: DoctorCheck[] = [];
  for (const [modelId, users] of roles) {
    const endpoint = endpointOf(modelId, env, config);
    if (!endpoint) {
      missingServer.push(noServer(modelId));
      continue;
    }
    const key = `${endpoint.provider} ${endpoint.baseURL} ${endpoint.keyVariable}`;
    const known = endpoints.get(key) ?? { ...endpoint, uses: [] };
    known.uses.push(`${modelId} (${users.join(', ')})`);
    endpoints.set(key, known);
  }
  const probed = await Promise.all(
    [...endpoints.values()].map(async (endpoint) => ({ endpoint, answer: await listModels(endpoint, env) })),
  );
  return [
    keysCheck(probed, env),
    ...missingServer,
    ...probed.map(({ endpoint, answer }) => serverCheck(endpoint, answer)),
    retirementCheck(roles, config, now),
  ];
}

/** Each configured model and the roles using it (the planner only when it has a model of its own). */
function rolesByModel(config: NightshiftConfig): Map<string, string[]> {
  const roles = new Map<string, string[]>();
  for (const [role, modelId] of Object.entries(config.run.models)) {
    if (modelId) roles.set(modelId, [...(roles.get(modelId) ?? []), role]);
  }
  return roles;
}

/** The server a model id talks to, as the provider factory resolves it; undefined when it has none. */
function endpointOf(
  modelId: string,
  env: NodeJS.ProcessEnv,
  config: NightshiftConfig,
): Omit<Endpoint, 'uses'> | undefined {
  const set = (variable: string) => env[variable]?.trim() || undefined;
  const { provider, model } = parseModelId(modelId);
  if (provider === 'anthropic') {
    const baseURL = set('ANTHROPIC_BASE_URL') ?? DEFAULT_BASE_URLS.anthropic;
    return { provider, baseURL, keyVariable: 'ANTHROPIC_API_KEY', keyRequired: true };
  }
  if (provider === 'openai') {
    const baseURL = set('OPENAI_BASE_URL') ?? DEFAULT_BASE_URLS.openai;
    return { provider, baseURL, keyVariable: 'OPENAI_API_KEY', keyRequired: true };
  }
  const server = config.openaiCompatible[model];
  const baseURL = server?.baseURL ?? set('OPENAI_BASE_URL');
  if (!baseURL) return undefined;
  if (server?.apiKeyEnv) return { provider, baseURL, keyVariable: server.apiKeyEnv, keyRequired: true };
  return {
    provider,
    baseURL,
    keyVariable: set('OPENAI_API_KEY') ? 'OPENAI_API_KEY' : null,
    keyRequired: false,
  };
}

function noServer(modelId: string): DoctorCheck {
  const name = modelId.slice(modelId.indexOf(':') + 1);
  return fail(
    'model server',
    `${modelId} has no server: neither openaiCompatible.${name} in the config nor OPENAI_BASE_URL`,
    'Set OPENAI_BASE_URL (e.g. http://127.0.0.1:11434/v1 for Ollama) or add the server under openaiCompatible.',
  );
}

/** One real request: the model list, through the provider's SDK (no retries, a short timeout). */
async function listModels(endpoint: Endpoint, env: NodeJS.ProcessEnv): Promise<Answer> {
  const apiKey = (endpoint.keyVariable && env[endpoint.keyVariable]?.trim()) || NO_KEY_PLACEHOLDER;
  const common = { apiKey, baseURL: endpoint.baseURL, maxRetries: 0, timeout: SERVER_TIMEOUT_MS };
  try {
    if (endpoint.provider === 'anthropic')
      await new Anthropic({ ...common, authToken: null }).models.list({ limit: 1 });
    else await new OpenAI(common).models.list();
    return { status: 200 };
  } catch (error) {
    const status = (error as { status?: unknown }).status;
    if (typeof status === 'number') return { status };
    return { down: errorCode(error) ?? (error as Error).message };
  }
}

/** The system error code (`ECONNREFUSED`, `ENOTFOUND`…) somewhere down an error's causes (the SDKs wrap fetch's). */
function errorCode(error: unknown): string | undefined {
  for (let at: unknown = error, depth = 0; at && depth < 5; depth++) {
    const { code, cause } = at as { code?: unknown; cause?: unknown };
    if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) return code;
    at = cause;
  }
  return undefined;
}

/** Whether the key of an endpoint is missing, refused or fine (null: not checked, the server did not answer). */
function keyState(
  endpoint: Endpoint,
  answer: Answer,
  env: NodeJS.ProcessEnv,
): 'missing' | 'refused' | 'ok' | null {
  const present = Boolean(endpoint.keyVariable && env[endpoint.keyVariable]?.trim());
  if (!present && endpoint.keyRequired) return 'missing';
  if ('status' in answer && (answer.status === 401 || answer.status === 403)) return 'refused';
  return 'down' in answer ? null : 'ok';
}

/** `api keys`: fails when a configured role has no key, or its server refuses the key it has. */
function keysCheck(
  probed: Array<{ endpoint: Endpoint; answer: Answer }>,
  env: NodeJS.ProcessEnv,
): DoctorCheck {
  const lines: string[] = [];
  const bad: string[] = [];
  for (const { endpoint, answer } of probed) {
    const state = keyState(endpoint, answer, env);
    const variable = endpoint.keyVariable ?? 'no key';
    const uses = endpoint.uses.join(', ');
    if (state === 'missing') bad.push(`${variable} is not set (${uses} need it)`);
    else if (state === 'refused') {
      const status = (answer as { status: number }).status;
      bad.push(
        endpoint.keyVariable
          ? `${variable} was refused by ${endpoint.baseURL} (HTTP ${status}) (${uses})`
          : `${endpoint.baseURL} wants a key (HTTP ${status}) and none is configured (${uses})`,
      );
    } else if (endpoint.keyVariable) {
      lines.push(
        `${variable} ${state === 'ok' ? 'set and accepted' : 'set (not checked: the server did not answer)'}`,
      );
    }
  }
  if (bad.length) {
    return fail(
      'api keys',
      [...bad, ...lines].join('; '),
      'Export a valid key in the variable named (or name one in openaiCompatible.<name>.apiKeyEnv), or choose ' +
        'other models (--model, run.models in nightshift.config.json); `nightshift demo` needs no key.',
    );
  }
  return ok('api keys', lines.length ? [...new Set(lines)].join('; ') : 'no configured model needs a key');
}

/** `model server`: the base URL answered the request (any answer but a 404 proves it), or how to fix it. */
function serverCheck(endpoint: Endpoint, answer: Answer): DoctorCheck {
  const uses = endpoint.uses.join(', ');
  const variable =
    endpoint.provider === 'anthropic'
      ? 'ANTHROPIC_BASE_URL'
      : endpoint.provider === 'openai'
        ? 'OPENAI_BASE_URL'
        : 'OPENAI_BASE_URL or openaiCompatible.<name>.baseURL';
  if ('down' in answer) {
    return fail(
      'model server',
      `${endpoint.baseURL} does not answer (${answer.down}) for ${uses}`,
      endpoint.provider === 'openai-compatible'
        ? 'Start the server (e.g. `ollama serve`) or fix its base URL (OPENAI_BASE_URL or openaiCompatible.<name>.baseURL); it must include the /v1 path.'
        : `Check the network (a proxy, a firewall) or fix ${variable}.`,
    );
  }
  if (answer.status === 404) {
    const api = endpoint.provider === 'anthropic' ? 'the Anthropic API' : 'an OpenAI-compatible API';
    return fail(
      'model server',
      `${endpoint.baseURL} answers, but not as ${api} (HTTP 404 for its model list) for ${uses}`,
      endpoint.provider === 'anthropic'
        ? 'Fix ANTHROPIC_BASE_URL: the API root without /v1, e.g. https://api.anthropic.com.'
        : 'Fix the base URL: it must include the API path, e.g. http://127.0.0.1:11434/v1 (not …:11434).',
    );
  }
  if (answer.status >= 500 || answer.status === 429) {
    return warn(
      'model server',
      `${endpoint.baseURL} answers, busy or failing (HTTP ${answer.status}) for ${uses}`,
      'Try again in a while; a run retries and pauses on a rate limit.',
    );
  }
  return ok('model server', `${endpoint.baseURL} answers (HTTP ${answer.status}) for ${uses}`);
}

/** `models`: a retired model fails, one retiring within 30 days warns; both name the replacement. */
function retirementCheck(roles: Map<string, string[]>, config: NightshiftConfig, now: Date): DoctorCheck {
  const sentences = { retired: [] as string[], retiring: [] as string[] };
  for (const [modelId, users] of roles) {
    const settings = resolveModelSettings(modelId, {
      overrides: config.run.modelSettings,
      prices: config.run.prices,
    });
    const lifecycle = modelLifecycle(settings, now);
    const sentence = describeLifecycle(`${modelId} (${users.join(', ')})`, lifecycle);
    if (sentence && lifecycle.state !== 'current') sentences[lifecycle.state].push(sentence);
  }
  const fix =
    'Change run.models in nightshift.config.json (or pass --model to run) to the replacement named.';
  if (sentences.retired.length)
    return fail('models', [...sentences.retired, ...sentences.retiring].join('; '), fix);
  if (sentences.retiring.length) return warn('models', sentences.retiring.join('; '), fix);
  return ok('models', `${[...roles.keys()].join(', ')}: none retired or retiring within 30 days`);
}
