import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { runDataDir, sessionAppLogPath } from '../core/paths.js';
import { freshAppCopy } from '../handoff/app-copy.js';
import { type RunningApp, startApp } from '../handoff/app-runner.js';
import type { AppStartFailure } from '../handoff/formats.js';
import type { WorkspaceRepo } from '../handoff/git.js';
import { type AppStartInput, boxOptions } from './sandbox.js';

/** A started app and what stops it and removes its copy; or why it did not start (exit code, log tail). */
export type FreshAppResult =
  | { ok: true; app: RunningApp }
  | { ok: false; reason: string; failure: AppStartFailure };

/**
 * Starts the app from a clean copy of the workspace's head (`<data>/runs/<run>/app-copies/<session>-<label>`):
 * the evaluation and each replay of a recorded check see the app with no data left by earlier runs of it.
 * The app log of the session gets the output. `stop` stops the app and removes the copy.
 */
export async function startFreshApp(
  input: AppStartInput,
  repo: WorkspaceRepo,
  label: string,
): Promise<FreshAppResult> {
  const logFile = sessionAppLogPath(input.dataDir, input.runId, input.session);
  await mkdir(path.dirname(logFile), { recursive: true });
  const dir = path.join(runDataDir(input.dataDir, input.runId), 'app-copies', `${input.session}-${label}`);
  const copy = await freshAppCopy(repo, dir);
  const started = await startApp({
    workspace: copy.dir,
    logFile,
    ...boxOptions(input, 'app'),
    ...(input.appReadyTimeoutMs ? { readyTimeoutMs: input.appReadyTimeoutMs } : {}),
  }).catch(async (error: unknown) => {
    await copy.remove();
    throw error;
  });
  if (!started.ok) {
    await copy.remove();
    return {
      ok: false,
      reason: started.reason,
      failure: {
        exitCode: started.exitCode,
        logTail: started.lastLines,
        logFile: path.relative(input.dataDir, logFile),
      },
    };
  }
  const app = started.app;
  return {
    ok: true,
    app: {
      ...app,
      stop: async () => {
        await app.stop();
        await copy.remove();
      },
    },
  };
}
