import { WORKSPACE_FILES } from './formats.js';
import { chmodWorkspaceFile, readWorkspaceText, statWorkspaceFile, UnsafeFileError } from './safe-fs.js';

/**
 * The `init.sh` convention, as told to the initializer and checked by the harness:
 * - it lives at the workspace root and is executable;
 * - it is idempotent: running it again on a set-up workspace is quick and harmless;
 * - it installs what the app needs and starts the app listening on `$PORT` (given by the harness; never a fixed port)
 *   on 127.0.0.1;
 * - it either stays in the foreground with the app, or backgrounds the app and exits 0 while the app keeps answering;
 * - the harness runs it with `bash init.sh` in its own process group and stops that whole group afterwards.
 */
export const INIT_SCRIPT_CONVENTION = [
  '`init.sh` (at the workspace root, executable):',
  '- idempotent: safe and quick to run again on a workspace that is already set up;',
  '- installs dependencies and starts the app listening on 127.0.0.1:$PORT (the harness sets PORT; never hard-code a port);',
  '- stays in the foreground running the app, or starts it in the background and exits 0 while the app keeps answering HTTP;',
  '- the harness runs it as `bash init.sh` in its own process group and stops the whole group afterwards.',
].join('\n');

/** The problem reported for an `init.sh` that never mentions `$PORT` (adoption turns it into a generator's task). */
export const FIXED_PORT_PROBLEM =
  'init.sh does not use $PORT: the app must listen on the port the harness gives it';

/** What {@link checkInitScript} found. */
export interface InitScriptCheck {
  /** `init.sh` exists as a file. */
  present: boolean;
  /** It is executable (possibly after this check made it so). */
  executable: boolean;
  /** The check set the executable bits. */
  madeExecutable: boolean;
  /** It mentions `$PORT` / `${PORT}`. */
  usesPort: boolean;
  /** Human-readable problems; empty when the script follows the convention. */
  problems: string[];
}

/** Largest `init.sh` read (a setup script is a few KB). */
const MAX_INIT_SCRIPT_BYTES = 1024 * 1024;

/**
 * Checks `init.sh` against the convention; with `makeExecutable` (default true) sets missing execute bits.
 * Nothing is followed: a link, a FIFO or a hard-linked `init.sh` is reported as a problem, never opened.
 */
export async function checkInitScript(
  workspace: string,
  options: { makeExecutable?: boolean } = {},
): Promise<InitScriptCheck> {
  const file = WORKSPACE_FILES.initScript;
  let info: Awaited<ReturnType<typeof statWorkspaceFile>>;
  try {
    info = await statWorkspaceFile(workspace, file);
  } catch (error) {
    if (!(error instanceof UnsafeFileError)) throw error;
    return { ...missing(error.message), present: true };
  }
  if (info === null) return missing('init.sh is missing');
  const problems: string[] = [];
  let executable = (info.mode & 0o111) !== 0;
  let madeExecutable = false;
  if (!executable && (options.makeExecutable ?? true)) {
    await chmodWorkspaceFile(workspace, file, (info.mode & 0o7777) | 0o755);
    executable = true;
    madeExecutable = true;
  }
  if (!executable) problems.push('init.sh is not executable (chmod +x init.sh)');
  let text: string;
  try {
    text = (await readWorkspaceText(workspace, file, { maxBytes: MAX_INIT_SCRIPT_BYTES })) ?? '';
  } catch (error) {
    if (!(error instanceof UnsafeFileError)) throw error;
    return {
      present: true,
      executable,
      madeExecutable,
      usesPort: false,
      problems: [...problems, error.message],
    };
  }
  const usesPort = /\$\{?PORT\b/.test(text);
  if (!usesPort) problems.push(FIXED_PORT_PROBLEM);
  return { present: true, executable, madeExecutable, usesPort, problems };
}

function missing(problem: string): InitScriptCheck {
  return { present: false, executable: false, madeExecutable: false, usesPort: false, problems: [problem] };
}
