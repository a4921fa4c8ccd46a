/**
 * The harness's own start of the app after the initializer: the same fresh-copy, boxed start the evaluator
 * gets. A failure is kept in `.nightshift/app-start.md` (committed, so the next initializer session reads it
 * in its brief) and ends the session `failed`; a start that works removes the note.
 */
import path from 'node:path';
import { moduleLogger } from '../core/log.js';
import { renderAppStartFailure } from '../handoff/feedback.js';
import { type AppStartFailure, WORKSPACE_FILES } from '../handoff/formats.js';
import { checkpoint, type WorkspaceRepo } from '../handoff/git.js';
import {
  readWorkspaceText,
  removeWorkspaceFile,
  UnsafeFileError,
  writeWorkspaceFile,
} from '../handoff/safe-fs.js';
import { startFreshApp } from './fresh-app.js';
import type { AppStartInput, SessionSandbox } from './session-box.js';

const log = moduleLogger('evaluation/app-check');

/** What the start after the initializer needs from the session's input. */
export interface AppCheckInput extends AppStartInput {
  /** The app's own box settings (the evaluator's app's); without them, `sandbox`. */
  startAppAfterInit?: { sandbox?: SessionSandbox };
  /** Told of the checkpoint that records the note. */
  onNotice?: (notice: { type: 'checkpoint'; sha: string; wip: boolean }) => void;
}

/** What the check found: the app answered, or why not (one line naming init.sh and the log) and the log tail. */
export type AppCheckResult = { ok: true } | { ok: false; reason: string; failure: AppStartFailure };

/**
 * Starts the app once from the workspace's head (the initializer's commit), stops it, and records the outcome
 * in the workspace: the note written and committed on failure, removed on success. The app runs in its own box
 * settings (`startAppAfterInit.sandbox`, the evaluator's app's), not the initializer's.
 */
export async function checkAppAfterInit(input: AppCheckInput, repo: WorkspaceRepo): Promise<AppCheckResult> {
  const sandbox = input.startAppAfterInit?.sandbox ?? input.sandbox;
  const started = await startFreshApp({ ...input, ...(sandbox ? { sandbox } : {}) }, repo, 'after-init');
  if (started.ok) {
    await started.app.stop();
    // A note the harness cannot reach safely (a linked `.nightshift/`) stays; the guard deals with the link.
    const removed = await removeWorkspaceFile(repo.dir, WORKSPACE_FILES.appStartNote).catch(
      (error: unknown) => {
        if (error instanceof UnsafeFileError) return false;
        throw error;
      },
    );
    if (removed) await commitNote(input, repo, 'the app starts: app-start note removed');
    return { ok: true };
  }
  const failure = started.failure ?? { exitCode: null, logTail: [], logFile: '' };
  const code = failure.exitCode === null ? 'did not answer in time' : `exited with code ${failure.exitCode}`;
  const reason = `the app did not start after the initializer: init.sh ${code}; app log: ${path.join(input.dataDir, failure.logFile)}`;
  log.info({ runId: input.runId, session: input.session, exitCode: failure.exitCode }, reason);
  const text = [
    `Session ${input.session} of run ${input.runId}: the harness started the app after the initializer, and it did not start.`,
    '',
    ...renderAppStartFailure(failure, '## What the harness saw'),
  ].join('\n');
  await writeWorkspaceFile(repo.dir, WORKSPACE_FILES.appStartNote, `${text}\n`);
  await commitNote(input, repo, 'the app did not start after the initializer');
  return { ok: false, reason, failure };
}

/** The note of the last failed start, for the initializer's brief (null when there is none). */
export async function readAppStartNote(repo: WorkspaceRepo): Promise<string | null> {
  try {
    return await readWorkspaceText(repo.dir, WORKSPACE_FILES.appStartNote, { maxBytes: 64 * 1024 });
  } catch (error) {
    if (error instanceof UnsafeFileError) return `[the app-start note was not read: ${error.message}]`;
    throw error;
  }
}

async function commitNote(input: AppCheckInput, repo: WorkspaceRepo, summary: string): Promise<void> {
  const sha = await checkpoint(repo, {
    role: 'harness',
    runId: input.runId,
    session: input.session,
    summary,
    paths: [WORKSPACE_FILES.appStartNote],
  });
  if (sha) input.onNotice?.({ type: 'checkpoint', sha, wip: false });
}
