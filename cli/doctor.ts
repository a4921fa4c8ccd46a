/** `nightshift doctor`: checks what runs need (config, Node, Redis, Chromium, git, bubblewrap, data dir, API keys). */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { z } from 'zod';
import { sandboxInfo } from '../box/bubblewrap.js';
import { capsMemory, createCommandCgroup, destroyCommandCgroup } from '../box/cgroup.js';
import { BOX_LIMIT_DEFAULTS } from '../box/limits.js';
import { NightshiftError } from '../core/errors.js';
import { dataDir as defaultDataDir } from '../core/paths.js';
import type { NightshiftConfig, SandboxConfig } from '../orchestrator/config.js';
import { loadConfig } from '../orchestrator/config-load.js';
import { CHROMIUM_INSTALL_COMMAND, chromiumExecutable } from '../workers/chromium-path.js';
import { type CliDeps, resolveDeps } from './context.js';
import { checkModels, DoctorCheck, fail, ok, warn } from './doctor-models.js';
import { checkRedisTopology } from './doctor-topology.js';
import { findEmbeddedRedis, findRedisServer } from './embedded-redis.js';
import { DEFAULT_REDIS_URL, maskUrl, pingRedis } from './redis-probe.js';

/** Oldest Node major version nightshift supports. */
const MIN_NODE_MAJOR = 20;

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
  /** Today, for models that retire (default: the clock). */
  now?: Date;
}

/** The Redis URL the environment names (`NIGHTSHIFT_REDIS_URL` wins, as when the config loads). */
export function redisUrlFromEnvironment(env: NodeJS.ProcessEnv): string | undefined {
  return env.NIGHTSHIFT_REDIS_URL?.trim() || env.REDIS_URL?.trim() || undefined;
}

/** Runs every check (none throws) and reports them in a fixed order. */
export async function runDoctor(options: DoctorOptions): Promise<DoctorReport> {
  const { check: configCheck, config } = checkConfig(options);
  const dataDir = config?.dataDir ?? defaultDataDir(options.env);
  const checks = [
    configCheck,
    checkNode(process.versions.node),
    // A broken config file still has a Redis to check: the one REDIS_URL (or NIGHTSHIFT_REDIS_URL) names.
    await checkRedis(config?.redisUrl ?? redisUrlFromEnvironment(options.env), dataDir, options),
    ...[await checkRedisTopology(config?.redisUrl ?? redisUrlFromEnvironment(options.env))].filter(
      (check) => check !== undefined,
    ),
    await checkChromium(config?.chromiumPath ?? chromiumExecutable(options.env)),
    await checkGit(),
    await checkBubblewrap(config?.run.sandbox),
    await checkBoxMemory(config?.run.sandbox),
    checkDataDir(dataDir),
    ...(await checkModels(options.env, config, options.now ?? new Date())),
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
  const fix = `Install it (\`${CHROMIUM_INSTALL_COMMAND}\`) or set NIGHTSHIFT_CHROMIUM_PATH (chromiumPath) to a Chromium binary.`;
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

/** Whether a box's memory limit holds for all its processes together (a memory cgroup) or per process only. */
async function checkBoxMemory(sandbox: SandboxConfig | undefined): Promise<DoctorCheck> {
  const mib = sandbox?.memoryMiB ?? BOX_LIMIT_DEFAULTS.maxMemoryBytes / 1024 ** 2;
  const group = createCommandCgroup({
    maxProcesses: BOX_LIMIT_DEFAULTS.maxProcesses,
    maxMemoryBytes: mib * 1024 ** 2,
  });
  const total = capsMemory(group);
  if (group) await destroyCommandCgroup(group);
  if (total)
    return ok('box memory', `${mib} MiB per box, all its processes together (memory cgroup, no swap)`);
  return warn(
    'box memory',
    `${mib} MiB per process only (no writable memory cgroup): a box can use ${mib} MiB × ${BOX_LIMIT_DEFAULTS.maxProcesses} processes, and a host OOM may pick the worker, Chromium or Redis`,
    'Give the worker a writable memory controller (cgroup v2 delegation, or a container with its own memory limit); see docs/security.md, "which limits apply to which process".',
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

export { DoctorCheck } from './doctor-models.js';

/** Registers `doctor [--json] [--config FILE]`: exit 0 when nothing failed, 1 otherwise. */
export function registerDoctorCommand(program: Command, deps: CliDeps = {}): void {
  const resolved = resolveDeps(deps);
  program
    .command('doctor')
    .description('check Redis, Chromium, git, bubblewrap, API keys, model servers and models')
    .option('--json', 'print the report as one JSON document')
    .option('--config <file>', 'config file')
    .action(async (options: { json?: boolean; config?: string }) => {
      const report = await runDoctor({
        cwd: resolved.cwd(),
        env: resolved.env,
        configFile: options.config,
        defaultRedisUrl: resolved.redis?.defaultUrl,
        redisServerPath: resolved.redis?.redisServerPath,
        now: resolved.now(),
      });
      resolved.stdout.write(
        options.json ? `${JSON.stringify(report, null, 2)}\n` : `${formatDoctorReport(report)}\n`,
      );
      if (!report.ok) resolved.setExitCode(1);
    });
}
