/** Base class of every error nightshift raises on purpose: says what happened and what to do about it. */
export class NightshiftError extends Error {
  /** Stable machine-readable code, e.g. `CONFIG_INVALID`. */
  readonly code: string;
  /** What the user can do about it. */
  readonly hint: string | undefined;
  /** Exit code the CLI uses when this error ends the process (2 = bad usage or bad input). */
  readonly exitCode: number;

  constructor(
    code: string,
    message: string,
    options: { hint?: string; exitCode?: number; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.hint = options.hint;
    this.exitCode = options.exitCode ?? 1;
  }

  /** One human-readable paragraph: the message and, when known, the fix. */
  describe(): string {
    return this.hint ? `${this.message}\n  → ${this.hint}` : this.message;
  }
}

/** Bad input from the user (config, spec, arguments, workspace): the CLI exits 2. */
export class InputError extends NightshiftError {
  constructor(code: string, message: string, options: { hint?: string; cause?: unknown } = {}) {
    super(code, message, { ...options, exitCode: 2 });
  }
}
