/** `nightshift doctor`: checks what runs need (config, Node, Redis, Chromium, git, bubblewrap, data dir, API keys). */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { z } from 'zod';
import { sandboxInfo } from '../agent/sandbox/bubblewrap.js';
import { NightshiftError } from '../core/errors.js';
import { dataDir as defaultDataDir } from '../core/paths.js';
import { loadConfig, type NightshiftConfig, type SandboxConfig } from '../orchestrator/config.js';
import { type CliDeps, resolveDeps } from './context.js';
import { findEmbeddedRedis, findRedisServer } from './embedded-redis.js';
import { DEFAULT_REDIS_URL, maskUrl, pingRedis } from './redis-probe.js';

/** Chromium used when neither the config nor NIGHTSHIFT_CHROMIUM names one. */
const DEFAULT_CHROMIUM = '/usr/bin/chromium';
/** Oldest Node major version nightshift supports. */
const MIN_NODE_MAJOR = 20;

/** One check: `ok`, `warn` (works, with a limitation) or `fail` (something will not work), and the fix. */
export const DoctorCheck = z.object({
  name: z.string(),
  status: z.enum(['ok', 'warn', 'fail']),
  detail: z.string(),
  /** How to fix it (null when ok). */
  fix: z.string().nullable(),
});
export type DoctorCheck = z.infer<typeof DoctorCheck>;

/** `nightshift doctor --json`. */
export const DoctorReport = z.object({
  /** False when any check failed. */
  ok: z.boolean(),
  checks: z.array(DoctorCheck),
});
export type DoctorReport = z.infer<typeof DoctorReport>;

/** Where the doctor looks. */
export interface DoctorOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  configFile?: string;
  /** Tried when no Redis URL is configured (default 127.0.0.1:6379). */
  defaultRedisUrl?: string;
  /** The redis-server binary (default: found on PATH). */
  redisServerPath?: string;
}

const ok = (name: string, detail: string): DoctorCheck => ({ name, status: 'ok', detail, fix: null });
const warn = (name: string, detail: string, fix: string): DoctorCheck => ({
  name,
  status: 'warn',
  detail,
  fix,
});
const fail = (name: string, detail: string, fix: string): DoctorCheck => ({
  name,
  status: 'fail',
  detail,
  fix,
});

/** Runs every check (none throws) and reports them in a fixed order. */
export async function runDoctor(options: DoctorOptions): Promise<DoctorReport> {
  const { check: configCheck, config } = checkConfig(options);
  const dataDir = config?.dataDir ?? defaultDataDir(options.env);
  const checks = [
    configCheck,
    checkNode(process.versions.node),
    await checkRedis(config?.redisUrl, dataDir, options),
    await checkChromium(config?.chromiumPath ?? options.env.NIGHTSHIFT_CHROMIUM ?? DEFAULT_CHROMIUM),
    await checkGit(),
    await checkBubblewrap(config?.run.sandbox),
    checkDataDir(dataDir),
    checkApiKeys(options.env, config),
    ...(await checkModelServers(options.env, config)),
  ];
  return { ok: checks.every((check) => check.status !== 'fail'), checks };
}

function checkConfig(options: DoctorOptions): { check: DoctorCheck; config?: NightshiftConfig } {
  try {
    const { config, source } = loadConfig({ cwd: options.cwd, env: options.env, file: options.configFile });
    return { check: ok('config', source ?? 'no config file: defaults and environment'), config };
  } catch (error) {
    const message = error instanceof NightshiftError ? error.message : String(error);
    return {
      check: fail('config', message, 'Fix the fields named (see docs/configuration.md).'),
    };
  }
}

/** The Node version check (exported for tests of old versions). */
export function checkNode(version: string): DoctorCheck {
  const major = Number(version.split('.')[0]);
  return major >= MIN_NODE_MAJOR
    ? ok('node', `v${version}`)
    : fail('node', `v${version} is too old`, `Install Node ${MIN_NODE_MAJOR} or newer.`);
}

async function checkRedis(
  configured: string | undefined,
  dataDir: string,
  options: DoctorOptions,
): Promise<DoctorCheck> {
  if (configured) {
    const probe = await pingRedis(configured);
    return probe.ok
      ? ok('redis', `${maskUrl(configured)} (Redis ${probe.version})`)
      : fail(
          'redis',
          `${maskUrl(configured)} does not answer: ${probe.error}`,
          'Start Redis there or fix REDIS_URL / redisUrl (host, port, password); unset it to use a local Redis.',
        );
  }
  const url = options.defaultRedisUrl ?? DEFAULT_REDIS_URL;
  const probe = await pingRedis(url);
  if (probe.ok) return ok('redis', `${maskUrl(url)} (Redis ${probe.version})`);
  const embedded = await findEmbeddedRedis(dataDir);
  if (embedded) {
    return ok(
      'redis',
      `private redis-server of ${dataDir} on 127.0.0.1:${embedded.port} (pid ${embedded.pid})`,
    );
  }
  const server = options.redisServerPath ?? findRedisServer(options.env);
  if (server && fs.existsSync(server)) {
    return warn(
      'redis',
      `nothing answers at ${maskUrl(url)}; nightshift will start a private redis-server (${server}) in ${path.join(dataDir, 'redis')}`,
      'Nothing to do; or set REDIS_URL to share one Redis between machines.',
    );
  }
  return fail(
    'redis',
    `nothing answers at ${maskUrl(url)} and redis-server is not installed`,
    'Install Redis (`apt-get install redis-server`) or set REDIS_URL=redis://host:port.',
  );
}

async function checkChromium(executable: string): Promise<DoctorCheck> {
  const fix =
    'Install it (`apt-get install chromium`) or set NIGHTSHIFT_CHROMIUM_PATH (chromiumPath) to a Chromium binary.';
  if (!fs.existsSync(executable)) return fail('chromium', `no executable at ${executable}`, fix);
  const result = await runVersion(executable, ['--version']);
  return result.ok
    ? ok('chromium', `${result.output} (${executable})`)
    : fail('chromium', `${executable} --version failed: ${result.output}`, fix);
}

async function checkGit(): Promise<DoctorCheck> {
  const result = await runVersion('git', ['--version']);
  return result.ok
    ? ok('git', result.output)
    : fail('git', `git did not run: ${result.output}`, 'Install git (`apt-get install git`).');
}

/** The box: which mode is in effect, with which network, and what happens when it cannot run. */
async function checkBubblewrap(sandbox: SandboxConfig | undefined): Promise<DoctorCheck> {
  const mode = sandbox?.bubblewrap ?? 'auto';
  const network = sandbox?.network ?? 'registries';
  if (mode === 'off')
    return warn(
      'bubblewrap',
      'off (sandbox.bubblewrap: off): no box — bash, init.sh and the app run on this machine with a scrubbed ' +
        'environment and a private HOME/TMPDIR only, on the host network',
      'Only where the machine or container is itself the boundary; otherwise set sandbox.bubblewrap to auto.',
    );
  const info = await sandboxInfo();
  if (info.bubblewrap) {
    const hosts = sandbox?.allowHosts.length ? ` + ${sandbox.allowHosts.length} allowed host(s)` : '';
    return ok(
      'bubblewrap',
      `the box (${mode}): ${info.version ?? 'bwrap'}${info.userNamespace ? '' : ' without a user namespace'}; ` +
        `bash, init.sh and the app inside; network ${network}${hosts}`,
    );
  }
  return fail(
    'bubblewrap',
    `${info.reason ?? 'not usable'}; with sandbox.bubblewrap ${mode} every bash command and app start is refused`,
    'Install bubblewrap (`apt-get install bubblewrap`) and allow unprivileged user namespaces ' +
      '(sysctl kernel.unprivileged_userns_clone=1; in a container: a seccomp profile allowing clone/unshare), ' +
      'or — only where the machine or container is the boundary — set sandbox.bubblewrap to "off".',
  );
}

function checkDataDir(dataDir: string): DoctorCheck {
  const probe = path.join(dataDir, `.doctor-${process.pid}`);
  try {
    fs.mkdirSync(dataDir, { recursive: true });
    fs.writeFileSync(probe, 'ok');
    fs.rmSync(probe);
    return ok('data dir', `${dataDir} is writable`);
  } catch (error) {
    return fail(
      'data dir',
      `${dataDir} is not writable: ${(error as Error).message}`,
      'Set NIGHTSHIFT_HOME to a writable directory, or fix its permissions.',
    );
  }
}

/** API keys: present or not (never their values); none at all is a warning, since the demo needs none. */
export function checkApiKeys(env: NodeJS.ProcessEnv, config: NightshiftConfig | undefined): DoctorCheck {
  const keys = { anthropic: 'ANTHROPIC_API_KEY', openai: 'OPENAI_API_KEY' } as const;
  const set = (variable: string) => Boolean(env[variable]?.trim());
  const detail = Object.values(keys)
    .map((variable) => `${variable} ${set(variable) ? 'set' : 'not set'}`)
    .join(', ');
  const providers = new Set(Object.values(config?.run.models ?? {}).map((model) => model.split(':')[0]));
  const missing = [...providers]
    .filter((provider): provider is keyof typeof keys => provider === 'anthropic' || provider === 'openai')
    .filter((provider) => !set(keys[provider]))
    .map((provider) => keys[provider]);
  const none = !Object.values(keys).some(set);
  if (missing.length === 0 && none && !config) {
    return warn(
      'api keys',
      `${detail} (the demo needs none)`,
      'Export ANTHROPIC_API_KEY or OPENAI_API_KEY for real runs.',
    );
  }
  if (missing.length === 0) {
    return ok('api keys', providers.size ? `${detail}; the configured models need no other key` : detail);
  }
  return warn(
    'api keys',
    `${detail}${none ? ' (the demo needs none)' : ''}; the configured models need ${missing.join(' and ')}`,
    `Export ${missing.join(' / ')}, or choose other models (--model, run.models in nightshift.config.json).`,
  );
}

/** How long an OpenAI-compatible server has to answer the doctor. */
const SERVER_TIMEOUT_MS = 5_000;

/**
 * Each OpenAI-compatible server the configured models use (a named server's baseURL, else OPENAI_BASE_URL)
 * must answer `GET <base>/models`: any HTTP answer counts (a 401 still proves the URL), no answer fails.
 */
export async function checkModelServers(
  env: NodeJS.ProcessEnv,
  config: NightshiftConfig | undefined,
): Promise<DoctorCheck[]> {
  const models = Object.values(config?.run.models ?? {}).filter((id) => id.startsWith('openai-compatible:'));
  const urls = new Map<string, string>();
  for (const id of models) {
    const name = id.slice('openai-compatible:'.length);
    const base = config?.openaiCompatible[name]?.baseURL ?? env.OPENAI_BASE_URL?.trim();
    if (!base) {
      return [
        fail(
          'model server',
          `${id} has no server: neither openaiCompatible.${name} in the config nor OPENAI_BASE_URL`,
          'Set OPENAI_BASE_URL (e.g. http://127.0.0.1:11434/v1 for Ollama) or add the server under openaiCompatible.',
        ),
      ];
    }
    urls.set(base, id);
  }
  return Promise.all([...urls].map(([base, id]) => probeServer(base, id)));
}

async function probeServer(base: string, modelId: string): Promise<DoctorCheck> {
  const url = `${base.replace(/\/+$/, '')}/models`;
  let status: number;
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(SERVER_TIMEOUT_MS) });
    status = response.status;
    await response.body?.cancel();
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
    return fail(
      'model server',
      `${base} does not answer (${cause}) for ${modelId}`,
      'Start the server (e.g. `ollama serve`) or fix its base URL (OPENAI_BASE_URL or openaiCompatible.<name>.baseURL); it must include the /v1 path.',
    );
  }
  // 401/403 still prove the URL (the key is checked by the preflight request); a 404 is a server without the API there.
  if (status === 404) {
    return fail(
      'model server',
      `${base} answers, but not as an OpenAI-compatible API (HTTP 404 for ${url}) for ${modelId}`,
      'Fix the base URL: it must include the API path, e.g. http://127.0.0.1:11434/v1 (not …:11434).',
    );
  }
  return ok('model server', `${base} answers (HTTP ${status}) for ${modelId}`);
}

function runVersion(file: string, args: string[]): Promise<{ ok: boolean; output: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { timeout: 15_000 }, (error, stdout, stderr) => {
      const firstLine = (text: string) => text.trim().split('\n')[0] ?? '';
      resolve(
        error
          ? { ok: false, output: firstLine(`${error.message}`) }
          : { ok: true, output: firstLine(stdout) || firstLine(stderr) },
      );
    });
  });
}

const MARKS = { ok: 'ok  ', warn: 'warn', fail: 'FAIL' } as const;

/** The human report: one line per check, the fix under each warning or failure, a summary line. */
export function formatDoctorReport(report: DoctorReport): string {
  const width = Math.max(...report.checks.map((check) => check.name.length));
  const lines = report.checks.flatMap((check) => [
    `${MARKS[check.status]}  ${check.name.padEnd(width)}  ${check.detail}`,
    ...(check.fix ? [`      ${' '.repeat(width)}  → ${check.fix}`] : []),
  ]);
  const count = (status: DoctorCheck['status']) =>
    report.checks.filter((check) => check.status === status).length;
  lines.push('', `${count('fail')} failed, ${count('warn')} warning(s), ${count('ok')} ok`);
  return lines.join('\n');
}

/** Registers `doctor [--json] [--config FILE]`: exit 0 when nothing failed, 1 otherwise. */
export function registerDoctorCommand(program: Command, deps: CliDeps = {}): void {
  const resolved = resolveDeps(deps);
  program
    .command('doctor')
    .description('check Redis, Chromium, git, bubblewrap and API keys')
    .option('--json', 'print the report as one JSON document')
    .option('--config <file>', 'config file')
    .action(async (options: { json?: boolean; config?: string }) => {
      const report = await runDoctor({
        cwd: resolved.cwd(),
        env: resolved.env,
        configFile: options.config,
        defaultRedisUrl: resolved.redis?.defaultUrl,
        redisServerPath: resolved.redis?.redisServerPath,
      });
      resolved.stdout.write(
        options.json ? `${JSON.stringify(report, null, 2)}\n` : `${formatDoctorReport(report)}\n`,
      );
      if (!report.ok) resolved.setExitCode(1);
    });
}
