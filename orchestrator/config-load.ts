import fs from 'node:fs';
import path from 'node:path';
import { InputError } from '../core/errors.js';
import { dataDir as defaultDataDir } from '../core/paths.js';
import { keyPrefixFor, parseRedisUrl } from '../core/redis-url.js';
import { formatZodIssues, issuePath } from '../core/zod-issues.js';
import { WORKSPACE_FILES } from '../handoff/formats.js';
import { indent, type LoadConfigOptions, type LoadedConfig, NightshiftConfig } from './config.js';

/** The config file looked for in the working directory. */
export const CONFIG_FILE_NAME = 'nightshift.config.json';

/** What makes a directory a nightshift workspace, whose files a model may have written. */
const WORKSPACE_MARKERS = [WORKSPACE_FILES.harnessDir, WORKSPACE_FILES.featureList];

/** Environment variables read into the global config: variable → field path, and whether the value is a number or a flag. */
const ENV_FIELDS: ReadonlyArray<{ variable: string; path: string[]; number?: boolean; flag?: boolean }> = [
  { variable: 'REDIS_URL', path: ['redisUrl'] },
  { variable: 'NIGHTSHIFT_REDIS_URL', path: ['redisUrl'] },
  { variable: 'NIGHTSHIFT_HOME', path: ['dataDir'] },
  { variable: 'NIGHTSHIFT_KEY_PREFIX', path: ['keyPrefix'] },
  { variable: 'NIGHTSHIFT_REDIS_WAIT_REPLICAS', path: ['redisWait', 'replicas'], number: true },
  { variable: 'NIGHTSHIFT_WORKER_CONCURRENCY', path: ['worker', 'concurrency'], number: true },
  { variable: 'NIGHTSHIFT_SHUTDOWN_GRACE_SECONDS', path: ['worker', 'shutdownGraceSeconds'], number: true },
  { variable: 'NIGHTSHIFT_DASHBOARD_HOST', path: ['dashboard', 'host'] },
  { variable: 'NIGHTSHIFT_DASHBOARD_PORT', path: ['dashboard', 'port'], number: true },
  { variable: 'NIGHTSHIFT_DASHBOARD_TOKEN', path: ['dashboard', 'token'] },
  { variable: 'NIGHTSHIFT_CHROMIUM_PATH', path: ['chromiumPath'] },
  { variable: 'NIGHTSHIFT_BUDGET_USD', path: ['run', 'budgets', 'maxCostUsd'], number: true },
  { variable: 'NIGHTSHIFT_MAX_SESSIONS', path: ['run', 'budgets', 'maxSessions'], number: true },
  { variable: 'NIGHTSHIFT_PREFLIGHT_REQUEST', path: ['preflight', 'request'], flag: true },
];

/** `1`/`true`/`yes`/`on` and `0`/`false`/`no`/`off` as booleans; anything else is left for the schema to reject. */
function flagValue(value: string): boolean | string {
  const normalized = value.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(normalized)) return true;
  if (['0', 'false', 'no', 'off'].includes(normalized)) return false;
  return value;
}

/**
 * Reads `nightshift.config.json` (explicit file, `$NIGHTSHIFT_CONFIG`, or `<cwd>/nightshift.config.json` when present),
 * overlays the environment (`REDIS_URL`, `NIGHTSHIFT_*`), applies defaults and validates. Throws an InputError whose
 * message names every bad field and where it came from.
 */
export function loadConfig(options: LoadConfigOptions): LoadedConfig {
  const source = findConfigFile(options);
  const raw: Record<string, unknown> = source ? withoutComments(readJsonFile(source)) : {};
  if (typeof raw.dataDir === 'string' && source)
    raw.dataDir = path.resolve(path.dirname(source), raw.dataDir);

  const fromEnv = new Map<string, string>();
  for (const field of ENV_FIELDS) {
    const value = options.env[field.variable];
    if (value === undefined || value === '') continue;
    const numeric = field.flag
      ? flagValue(value)
      : field.number && /^\s*-?\d+(\.\d+)?\s*$/.test(value)
        ? Number(value)
        : value;
    setPath(
      raw,
      field.path,
      field.variable === 'NIGHTSHIFT_HOME' ? path.resolve(options.cwd, value) : numeric,
    );
    fromEnv.set(field.path.join('.'), field.variable);
  }
  if (raw.dataDir === undefined) raw.dataDir = defaultDataDir(options.env);

  const result = NightshiftConfig.safeParse(raw);
  if (result.success) {
    // On a Cluster every key shares one hash-tagged prefix (core/redis-url.ts keyPrefixFor).
    const topology = result.data.redisUrl ? parseRedisUrl(result.data.redisUrl) : undefined;
    return { config: { ...result.data, keyPrefix: keyPrefixFor(result.data.keyPrefix, topology) }, source };
  }
  const lines = formatZodIssues(result.error.issues, {
    input: raw,
    schema: NightshiftConfig,
    label: (at) => {
      const variable = fromEnv.get(issuePath(at));
      return `${issuePath(at)}${variable ? ` (from $${variable})` : ''}`;
    },
  });
  // Name only the sources a bad field came from (a REDIS_URL that is fine does not make the file's error the environment's).
  const fromEnvironment = result.error.issues.some((issue) => fromEnv.has(issuePath(issue.path)));
  const fromFile = result.error.issues.some((issue) => !fromEnv.has(issuePath(issue.path)));
  const where =
    [fromFile ? source : null, fromEnvironment ? 'the environment' : null].filter(Boolean).join(' and ') ||
    'the defaults';
  throw new InputError('CONFIG_INVALID', `Invalid configuration in ${where}:\n${indent(lines)}`, {
    hint: `Fix the fields named above${source ? ` in ${source}` : ''}.`,
  });
}

function findConfigFile(options: LoadConfigOptions): string | null {
  const explicit = options.file ?? options.env.NIGHTSHIFT_CONFIG;
  if (explicit) {
    const file = path.resolve(options.cwd, explicit);
    if (!fs.existsSync(file)) {
      throw new InputError('CONFIG_NOT_FOUND', `Config file ${file} does not exist.`, {
        hint: 'Check the path given with --config or $NIGHTSHIFT_CONFIG.',
      });
    }
    return file;
  }
  const candidate = path.join(options.cwd, CONFIG_FILE_NAME);
  if (!fs.existsSync(candidate)) return null;
  const marker = WORKSPACE_MARKERS.find((name) => fs.existsSync(path.join(options.cwd, name)));
  if (marker) {
    // A model writes files in a workspace: read here, its config could name a program the worker runs on the
    // host (chromiumPath), switch the box off for new runs or move the data dir.
    throw new InputError(
      'CONFIG_IN_WORKSPACE',
      `${candidate} was not read: ${options.cwd} is a nightshift workspace (it has ${marker}), where the model writes files.`,
      {
        hint: 'Keep the config outside the workspace, or check this file and name it with --config (or $NIGHTSHIFT_CONFIG).',
      },
    );
  }
  return candidate;
}

function readJsonFile(file: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw new InputError(
      'CONFIG_INVALID',
      `Config file ${file} is not valid JSON: ${(error as Error).message}`,
      {
        hint: 'Fix the JSON syntax (no comments or trailing commas).',
        cause: error,
      },
    );
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new InputError('CONFIG_INVALID', `Config file ${file} must hold a JSON object.`, {
      hint: 'Wrap the settings in { … }.',
    });
  }
  return parsed as Record<string, unknown>;
}

/** Key of a comment in the config file (JSON has none): `"//": "why"` anywhere in an object is ignored. */
export const COMMENT_KEY = '//';

/** The object without its `//` comment keys, at every depth. */
export function withoutComments<T>(value: T): T {
  if (Array.isArray(value)) return value.map(withoutComments) as T;
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key !== COMMENT_KEY)
      .map(([key, inner]) => [key, withoutComments(inner)]),
  ) as T;
}

function setPath(target: Record<string, unknown>, keys: string[], value: unknown): void {
  let node = target;
  for (const key of keys.slice(0, -1)) {
    const next = node[key];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[keys[keys.length - 1] as string] = value;
}
