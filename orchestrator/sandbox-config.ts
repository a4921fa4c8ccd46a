/** The run's box settings: network policy, memory and file-size limits, per-role overrides; the app's start. */
import { z } from 'zod';
import { BOX_LIMIT_DEFAULTS } from '../box/limits.js';
import { AllowHost, NetworkMode, NpmRegistryUrl } from '../box/network-policy.js';

/**
 * A network policy: `none`, `registries` or `open` (box/network-policy.ts). The old boolean is
 * still accepted: `true` → `open` (public hosts, never this machine's services), `false` → `none`.
 */
export const NetworkSetting = z
  .union([z.boolean(), NetworkMode])
  .transform((value): NetworkMode => (value === true ? 'open' : value === false ? 'none' : value));
export type NetworkSetting = z.infer<typeof NetworkSetting>;

/**
 * Memory of one box in MiB: every process of a bash command (or of the app, init.sh included) together where
 * a memory cgroup can be made, each process alone otherwise (docs/security.md). Below 256 MiB npm and node
 * do not start reliably.
 */
export const MemoryMiB = z
  .number()
  .int()
  .min(256)
  .max(1024 * 1024);

/** Largest file a process of a box may write, in MiB (`ulimit -f`). */
export const FileSizeMiB = z
  .number()
  .int()
  .min(1)
  .max(1024 * 1024);

/** One role's override of the box: network policy (its `allowHosts` add to the global list) and limits. */
export const RoleSandbox = z.strictObject({
  network: NetworkSetting.optional(),
  allowHosts: z.array(AllowHost).optional(),
  memoryMiB: MemoryMiB.optional(),
  fileSizeMiB: FileSizeMiB.optional(),
});
export type RoleSandbox = z.infer<typeof RoleSandbox>;

/**
 * The box every workspace-controlled process runs in (bash, init.sh and the app): bubblewrap `auto` or
 * `required` (both: the box, refused where bubblewrap cannot run) or `off` (no box: only where the machine
 * or container is the boundary); the network policy (default `registries`), extra hosts, per-role overrides
 * (`app` is the evaluator's app), and an npm registry mirror every box's npm uses (`npmRegistry`).
 */
export const SandboxConfig = z.strictObject({
  network: NetworkSetting.default('registries'),
  allowHosts: z.array(AllowHost).default([]),
  npmRegistry: NpmRegistryUrl.optional(),
  bubblewrap: z.enum(['auto', 'required', 'off']).default('auto'),
  memoryMiB: MemoryMiB.default(BOX_LIMIT_DEFAULTS.maxMemoryBytes / 1024 ** 2),
  fileSizeMiB: FileSizeMiB.default(BOX_LIMIT_DEFAULTS.maxFileSizeBytes / 1024 ** 2),
  roles: z
    .strictObject({
      initializer: RoleSandbox.optional(),
      generator: RoleSandbox.optional(),
      app: RoleSandbox.optional(),
      planner: RoleSandbox.optional(),
    })
    .default({}),
});
export type SandboxConfig = z.infer<typeof SandboxConfig>;

/** The box of one role's sessions, as roles/ take it. */
export interface RoleSandboxSettings {
  sandbox: 'bubblewrap' | 'none';
  network: NetworkMode;
  allowHosts: string[];
  /** npm's registry in every box of the role (its host is allowed too), when the run names one. */
  npmRegistry?: string;
  /** Memory of each box of the role (bash commands; the evaluator's: the app's). */
  maxMemoryBytes: number;
  /** `ulimit -f` of each box of the role. */
  maxFileSizeBytes: number;
}

/** The settings of a role's box from the run's sandbox config: the evaluator's are its app's. */
export function sandboxForRole(
  config: SandboxConfig,
  role: 'initializer' | 'generator' | 'evaluator' | 'planner',
): RoleSandboxSettings {
  const override = config.roles[role === 'evaluator' ? 'app' : role];
  return {
    sandbox: config.bubblewrap === 'off' ? 'none' : 'bubblewrap',
    network: override?.network ?? config.network,
    allowHosts: [...config.allowHosts, ...(override?.allowHosts ?? [])],
    ...(config.npmRegistry ? { npmRegistry: config.npmRegistry } : {}),
    maxMemoryBytes: (override?.memoryMiB ?? config.memoryMiB) * 1024 ** 2,
    maxFileSizeBytes: (override?.fileSizeMiB ?? config.fileSizeMiB) * 1024 ** 2,
  };
}

/**
 * The app as the harness starts it (evaluations, replays, merge steps, the start after the initializer). The
 * readiness timeout covers `init.sh` from a clean checkout: a cold `npm install` (often 60–120 s in the box, through
 * the registry proxy) plus a dev server's first build, hence 180 s by default. `dependencyCache`: fresh app copies
 * get the dependencies the run's first install left (handoff/app-deps.ts), so a guarded init.sh skips `npm ci`.
 */
export const AppConfig = z.strictObject({
  readyTimeoutSeconds: z.number().positive().max(3_600).default(180),
  dependencyCache: z.boolean().default(true),
});
export type AppConfig = z.infer<typeof AppConfig>;

/** The app settings as evaluation/ takes them (its `AppStartInput` fields) from the run's `app` config. */
export function appStartSettings(app: AppConfig): { appReadyTimeoutMs: number; appDependencyCache: boolean } {
  return { appReadyTimeoutMs: app.readyTimeoutSeconds * 1000, appDependencyCache: app.dependencyCache };
}
