import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { runDataDir, sessionAppLogPath } from '../core/paths.js';
import { inSpan } from '../core/trace.js';
import { freshAppCopy } from '../handoff/app-copy.js';
import { dependencyCacheDir, useDependencyCache } from '../handoff/app-deps.js';
import { type RunningApp, startApp } from '../handoff/app-runner.js';
import type { AppStartFailure } from '../handoff/formats.js';
import type { WorkspaceRepo } from '../handoff/git.js';
import { type AppStartInput, boxOptions } from './session-box.js';

/** A started app and what stops it and removes its copy; or why it did not start (exit code, log tail). */
export type FreshAppResult =
  | { ok: true; app: RunningApp }
  /** `failure`: what init.sh did (absent when the start itself threw, e.g. a pre-started app's). */
  | { ok: false; reason: string; failure?: AppStartFailure };

/**
 * Starts the app from a clean copy of the workspace's head (`<data>/runs/<run>/app-copies/<session>-<label>-<random>`):
 * the evaluation and each replay of a recorded check see the app with no data left by earlier runs of it. The
 * random part keeps two deliveries of one session apart: a job whose lock lapsed under load is delivered again
 * while the first delivery is still stopping its app, and with one path per session and label the first one's
 * removal of its copy deleted the files under the second one's running app.
 * The app log of the session gets the output. `stop` stops the app and removes the copy. Unless
 * `appDependencyCache` is false, the copy gets the run's kept dependencies first, and the first copy that installed
 * its own leaves them for the next ones once its app has stopped (handoff/app-deps.ts).
 */
export async function startFreshApp(
  input: AppStartInput,
  repo: WorkspaceRepo,
  label: string,
): Promise<FreshAppResult> {
  const logFile = sessionAppLogPath(input.dataDir, input.runId, input.session);
  await mkdir(path.dirname(logFile), { recursive: true });
  const name = `${input.session}-${label}-${randomBytes(3).toString('hex')}`;
  const dir = path.join(runDataDir(input.dataDir, input.runId), 'app-copies', name);
  const { copy, dependencies } = await inSpan('app.copy', {}, async () => {
    const copy = await freshAppCopy(repo, dir);
    if (input.appDependencyCache === false) return { copy, dependencies: null };
    const dependencies = await useDependencyCache(copy, dependencyCacheDir(input.dataDir, input.runId)).catch(
      async (error: unknown) => {
        await copy.remove();
        throw error;
      },
    );
    return { copy, dependencies };
  });
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
        // The box is gone: nothing from the workspace can change the tree while it is checked and kept.
        await dependencies?.keep();
        await copy.remove();
      },
    },
  };
}

/** Fresh apps started one ahead of need: `take` hands out the started one and starts the next on demand. */
export interface AppsAhead {
  /** The pre-started app (or, after the first, a newly started one). */
  take(): Promise<FreshAppResult>;
  /** Stops the pre-started app if nobody took it. */
  dispose(): Promise<void>;
}

/**
 * Starts the first app at once, in the background: the pass gate's replay needs a fresh app only after the model
 * has acted, so starting it while the model works takes its start (a second or two in a box) off the session.
 */
export function appsAhead(start: (index: number) => Promise<FreshAppResult>): AppsAhead {
  let index = 1;
  let ahead: Promise<FreshAppResult> | undefined = start(index).catch((error: unknown) => ({
    ok: false as const,
    reason: error instanceof Error ? error.message : String(error),
  }));
  return {
    take() {
      const taken = ahead ?? start(++index);
      ahead = undefined;
      return taken;
    },
    async dispose() {
      const left = ahead;
      ahead = undefined;
      const result = await left;
      if (result?.ok) await result.app.stop();
    },
  };
}
