import { InputError, NightshiftError } from '../core/errors.js';

/** A workspace file (feature list, verdict record…) that does not match its schema. */
export class FormatError extends InputError {
  /** Workspace-relative file name, e.g. `feature_list.json`. */
  readonly file: string;
  /** One line per problem, each naming the field path (`[3].steps: …`). */
  readonly issues: string[];

  constructor(file: string, issues: string[], options: { hint?: string; cause?: unknown } = {}) {
    super('FORMAT_INVALID', `${file}: ${issues.join('; ')}`, options);
    this.file = file;
    this.issues = issues;
  }
}

/** A git command failed in a way the harness cannot repair by itself. */
export class GitError extends NightshiftError {
  /** The git arguments that failed. */
  readonly args: string[];

  constructor(args: string[], message: string, options: { hint?: string; cause?: unknown } = {}) {
    super('GIT_FAILED', `git ${args.join(' ')}: ${message}`, options);
    this.args = args;
  }
}

/** The remote refused a push because it is not a fast-forward (another worker pushed first). Never forced. */
export class PushRejectedError extends NightshiftError {
  /** The branch that was pushed. */
  readonly branch: string;

  constructor(branch: string, detail: string, options: { cause?: unknown } = {}) {
    super('PUSH_REJECTED', `push of ${branch} was rejected (not a fast-forward): ${detail}`, {
      hint: 'sync the workspace again (fetch + reset to the remote branch) and redo the session; pushes are never forced',
      ...options,
    });
    this.branch = branch;
  }
}
