import path from 'node:path';
import type { Command } from 'commander';
import { z } from 'zod';
import { generateSpec, playwrightConfig, SPEC_DIR, specPath } from '../checks/codegen.js';
import type { RecordedCheck } from '../checks/format.js';
import type { ReplayResult } from '../checks/replay.js';
import { readCheckFile, SPEC_SUPPORT_PATH, writeSpecSupport } from '../checks/store.js';
import { InputError } from '../core/errors.js';
import { replayOnOneApp } from '../evaluation/check-sweep.js';
import { readFeatureList } from '../handoff/feature-list.js';
import { checkpoint, openRepo } from '../handoff/git.js';
import { assertWritableTarget, UnsafeFileError, writeWorkspaceFile } from '../handoff/safe-fs.js';
import { appStartSettings, sandboxForRole } from '../orchestrator/config.js';
import type { RunRecord } from '../orchestrator/run/index.js';
import { createBrowserPool } from '../workers/browser-pool.js';
import { chromiumExecutable } from '../workers/chromium-path.js';
import {
  type CliContext,
  type CliDeps,
  orchestratorOptions,
  type ResolvedDeps,
  resolveDeps,
  withOrchestrator,
} from './context.js';
import { oneLine } from './terminal-text.js';

/** The version of `@playwright/test` the exported suite is written for (the harness's playwright-core). */
export const PLAYWRIGHT_TEST_VERSION = '1.65.1';

interface ChecksOptions {
  json?: boolean;
  config?: string;
  feature?: string;
}

/** One row of `checks run`. */
export const CheckRunRow = z.object({
  featureId: z.string(),
  version: z.number().int().positive(),
  ok: z.boolean(),
  durationMs: z.number().int().nonnegative(),
  /** `expectation 2: text "Buy milk" is visible (no visible element shows this text)` when red. */
  failure: z.string().optional(),
  /** The page when it failed (absolute path). */
  screenshot: z.string().optional(),
});
export type CheckRunRow = z.infer<typeof CheckRunRow>;

/** The document `checks run --json` prints. */
export const CheckRunReport = z.object({
  runId: z.string(),
  green: z.number().int().nonnegative(),
  red: z.number().int().nonnegative(),
  results: z.array(CheckRunRow),
});
export type CheckRunReport = z.infer<typeof CheckRunReport>;

/** Registers `checks run [RUN] [--feature ID] [--json]` and `checks export [RUN]`. */
export function registerChecksCommand(program: Command, deps: CliDeps = {}): void {
  const resolved = resolveDeps(deps);
  const checks = program
    .command('checks')
    .description('recorded checks: replay them (run) or export them (export)');
  registerChecksRun(checks, resolved);
  registerChecksExport(checks, resolved);
}

/** `checks run [RUN]`: replays the recorded checks, prints a table or JSON, exits 1 on any red. */
function registerChecksRun(checks: Command, resolved: ResolvedDeps): void {
  checks
    .command('run')
    .description(
      'replay the recorded checks of a run against a freshly started app (no model): exit 0 all green, 1 any red',
    )
    .argument('[run]', 'run id (default: the newest run)')
    .option('--feature <id>', 'only this feature')
    .option('--json', 'print the results as one JSON document')
    .option('--config <file>', 'config file')
    .action((runId: string | undefined, options: ChecksOptions) =>
      withOrchestrator(orchestratorOptions(resolved, options.config), async (context) => {
        const run = await findRun(context.orchestrator.store, runId);
        const workspace = localWorkspace(run);
        const selected = await selectChecks(workspace, options.feature);
        const results = await replayChecks(context, run, workspace, selected);
        const rows = selected.map((check) => toRow(check, results.get(check.featureId)));
        const red = rows.filter((row) => !row.ok).length;
        if (options.json) {
          const report = CheckRunReport.parse({
            runId: run.id,
            green: rows.length - red,
            red,
            results: rows,
          });
          resolved.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
        } else resolved.stdout.write(`${formatCheckTable(rows)}\n`);
        resolved.setExitCode(red > 0 ? 1 : 0);
      }),
    );
}

/** Replays `selected` on one freshly started app of the run's workspace, in a browser pool of its own. */
async function replayChecks(
  context: CliContext,
  run: RunRecord,
  workspace: string,
  selected: RecordedCheck[],
): Promise<Map<string, ReplayResult>> {
  const pool = createBrowserPool(
    context.config.chromiumPath ? { executablePath: context.config.chromiumPath } : {},
  );
  try {
    const input = {
      runId: run.id,
      session: 0,
      dataDir: context.dataDir,
      sandbox: sandboxForRole(run.config.sandbox, 'evaluator'),
      ...appStartSettings(run.config.app),
    };
    return await replayOnOneApp(input, openRepo(workspace), pool, selected, 'cli');
  } finally {
    await pool.close();
  }
}

/** `checks export [RUN]`: writes and commits playwright.config.ts and the specs. */
function registerChecksExport(checks: Command, resolved: ResolvedDeps): void {
  checks
    .command('export')
    .description(
      'write playwright.config.ts beside the recorded specs (e2e/) so `npx playwright test` runs them',
    )
    .argument('[run]', 'run id (default: the newest run)')
    .option('--config <file>', 'config file')
    .action((runId: string | undefined, options: ChecksOptions) =>
      withOrchestrator(orchestratorOptions(resolved, options.config), async (context) => {
        const run = await findRun(context.orchestrator.store, runId);
        const workspace = localWorkspace(run);
        const specs = await exportChecks(workspace);
        // Committed, or the next session's clean start would remove them.
        await checkpoint(openRepo(workspace), {
          role: 'harness',
          runId: run.id,
          session: run.seq,
          summary: 'checks export: playwright.config.ts and the specs',
          paths: [PLAYWRIGHT_CONFIG, SPEC_SUPPORT_PATH, ...specs],
        });
        resolved.stdout.write(
          exportNotice(workspace, specs.length, context.config.chromiumPath ?? chromiumExecutable()),
        );
      }),
    );
}

/** The exported config's file name (in the workspace's root). */
const PLAYWRIGHT_CONFIG = 'playwright.config.ts';

/**
 * Writes the specs and the config: every target is checked first, and a link (or hard-linked file) at any of them
 * refuses the whole export before anything is written — the workspace is a model's, and a committed
 * `playwright.config.ts` linked to a host file would otherwise be written through (or, dangling, create it).
 */
async function exportChecks(workspace: string): Promise<string[]> {
  const specs = await currentSpecs(workspace);
  for (const target of [PLAYWRIGHT_CONFIG, SPEC_SUPPORT_PATH, ...specs.map((spec) => spec.path)]) {
    await assertWritableTarget(workspace, target).catch((error: unknown) => {
      throw error instanceof UnsafeFileError ? exportRefused(error) : error;
    });
  }
  for (const spec of specs) await writeWorkspaceFile(workspace, spec.path, spec.text, { links: 'refuse' });
  await writeWorkspaceFile(workspace, PLAYWRIGHT_CONFIG, playwrightConfig(), { links: 'refuse' });
  await writeSpecSupport(workspace, { links: 'refuse' });
  return specs.map((spec) => spec.path);
}

function exportRefused(error: UnsafeFileError): InputError {
  return new InputError('CHECKS_EXPORT_REFUSED', `checks export wrote nothing: ${error.message}.`, {
    hint: `The workspace was written by a model: find out why ${error.file} is not a regular file, remove it (git rm ${error.file}) and export again.`,
    cause: error,
  });
}

/**
 * What `checks export` prints: where the suite is, how to run it, and that its config runs init.sh unboxed.
 * `chromium` is the browser nightshift's workers use here, offered instead of one Playwright would download.
 */
export function exportNotice(workspace: string, specCount: number, chromium: string): string {
  return [
    `Wrote ${path.join(workspace, PLAYWRIGHT_CONFIG)} and ${specCount} spec(s) in ${SPEC_DIR}/ (committed). To run the recorded checks:`,
    `  cd ${workspace}`,
    `  npm install --save-dev @playwright/test@${PLAYWRIGHT_TEST_VERSION}   # the devDependency the suite needs`,
    `  npx playwright test            # or, with the Chromium nightshift uses: CHROMIUM_PATH=${chromium} npx playwright test`,
    '',
    `Careful: ${PLAYWRIGHT_CONFIG} starts \`bash init.sh\` ON THIS MACHINE, outside nightshift's box. init.sh, the app`,
    'and what they install were written by a model and run as you: your files, your environment (API keys',
    'included), your network. Read init.sh (and the app) before you run the suite, or run it in a container.',
    `The boxed way to run the same checks: nightshift checks run   # init.sh and the app in the box, no model`,
    '',
  ].join('\n');
}

async function findRun(
  store: { getRun(id: string): Promise<RunRecord>; listRuns(o: { limit: number }): Promise<RunRecord[]> },
  runId?: string,
) {
  if (runId) return store.getRun(runId);
  const [newest] = await store.listRuns({ limit: 1 });
  if (!newest)
    throw new InputError('NO_RUNS', 'There are no runs yet.', {
      hint: 'Start one with `nightshift run SPEC`.',
    });
  return newest;
}

function localWorkspace(run: RunRecord): string {
  if (run.workspace.kind === 'local') return run.workspace.path;
  throw new InputError(
    'CHECKS_REMOTE_WORKSPACE',
    `Run ${run.id} works in a remote repository; its checks live there.`,
    {
      hint: 'Clone the run branch and run `npx playwright test` in it after `nightshift checks export`, or use a local run.',
    },
  );
}

/** The spec (`e2e/<id>.spec.ts`) of every feature's current check, to (re)write (one deleted or edited by hand comes back). */
async function currentSpecs(workspace: string): Promise<Array<{ path: string; text: string }>> {
  const features = await readFeatureList(workspace);
  const specs: Array<{ path: string; text: string }> = [];
  for (const feature of features) {
    const file = await readCheckFile(workspace, feature.id);
    if (file)
      specs.push({ path: specPath(feature.id), text: generateSpec(file.current, feature.description) });
  }
  return specs;
}

/** The current checks of the run's features (or of one), in feature-list order. */
async function selectChecks(workspace: string, featureId?: string): Promise<RecordedCheck[]> {
  const features = await readFeatureList(workspace);
  if (featureId && !features.some((feature) => feature.id === featureId)) {
    throw new InputError('UNKNOWN_FEATURE', `--feature ${featureId}: no such feature in feature_list.json.`, {
      hint: `Use one of ${features.map((f) => f.id).join(', ')}.`,
    });
  }
  const checks: RecordedCheck[] = [];
  for (const feature of features) {
    if (featureId && feature.id !== featureId) continue;
    const file = await readCheckFile(workspace, feature.id);
    if (file) checks.push(file.current);
  }
  if (featureId && checks.length === 0) {
    throw new InputError('NO_CHECK', `--feature ${featureId}: the feature has no recorded check yet.`, {
      hint: 'A check is recorded when the evaluator passes the feature.',
    });
  }
  return checks;
}

function toRow(check: RecordedCheck, result: ReplayResult | undefined): CheckRunRow {
  const failure = result?.failure;
  return {
    featureId: check.featureId,
    version: check.version,
    ok: result?.ok === true,
    durationMs: Math.round(result?.durationMs ?? 0),
    ...(failure
      ? { failure: `${failure.stage} ${failure.index + 1}: ${failure.description} (${failure.message})` }
      : {}),
    ...(result?.screenshot ? { screenshot: result.screenshot } : {}),
  };
}

/** The results as a text table, one feature a line, and a summary line. */
export function formatCheckTable(rows: readonly CheckRunRow[]): string {
  if (rows.length === 0)
    return 'No recorded checks yet: a check is recorded when the evaluator passes a feature.';
  const lines = rows.map(
    (row) =>
      `${row.featureId.padEnd(8)} v${String(row.version).padEnd(3)} ${row.ok ? 'green' : 'RED  '} ${`${row.durationMs} ms`.padStart(8)}${row.failure ? `  ${oneLine(row.failure, 300)}` : ''}`,
  );
  const red = rows.filter((row) => !row.ok).length;
  return [
    'FEATURE  CHECK RESULT     TIME  FAILURE',
    ...lines,
    `${rows.length - red} green, ${red} red (no model requests)`,
  ].join('\n');
}
