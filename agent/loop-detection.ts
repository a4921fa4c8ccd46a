import type { ToolCallBlock } from './messages.js';
import type { ToolOutput } from './tool.js';

/** Limits of the loop detector. */
export interface LoopDetectionOptions {
  /** The same call (name + arguments) this many times in a row is refused. Default 3. */
  repeatLimit?: number;
  /** Edits (`write`/`edit`) of one file past this count draw a warning; past twice the count, a refusal. Default 12. */
  editLimit?: number;
}

/** What the detector says about one call. */
export type LoopVerdict =
  | { kind: 'ok' }
  | { kind: 'warn'; detectedKind: 'file_churn'; detail: string }
  | { kind: 'deny'; detectedKind: 'repeated_call' | 'file_churn'; detail: string };

const FILE_EDIT_TOOLS = new Set(['write', 'edit']);

/** Stable text of a call's arguments, so key order does not hide a repeat. */
function signature(call: ToolCallBlock): string {
  const sortKeys = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(sortKeys);
    if (value && typeof value === 'object') {
      return Object.fromEntries(
        Object.entries(value as Record<string, unknown>)
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([k, v]) => [k, sortKeys(v)]),
      );
    }
    return value;
  };
  return `${call.name} ${JSON.stringify(sortKeys(call.arguments))}`;
}

/**
 * Notices a model going round in circles: the same call repeated, or one file rewritten over and over.
 * Stateful per session; feed it every call in order.
 */
export class LoopDetector {
  private readonly repeatLimit: number;
  private readonly editLimit: number;
  private lastSignature = '';
  private repeats = 0;
  private readonly edits = new Map<string, number>();

  constructor(options: LoopDetectionOptions = {}) {
    this.repeatLimit = options.repeatLimit ?? 3;
    this.editLimit = options.editLimit ?? 12;
  }

  /**
   * Learns from a call's result: a tool that reports `details.pageChanged: true` (the browser tools, when the
   * page differs from the last view) changed the world, so the same call next is not a repeat ("click + three times").
   */
  noteResult(output: ToolOutput): void {
    if (output.details?.pageChanged === true) this.repeats = 0;
  }

  /** Records the call and says whether it may run. */
  observe(call: ToolCallBlock): LoopVerdict {
    const current = signature(call);
    this.repeats = current === this.lastSignature ? this.repeats + 1 : 1;
    this.lastSignature = current;
    if (this.repeats >= this.repeatLimit) {
      return {
        kind: 'deny',
        detectedKind: 'repeated_call',
        detail: `${call.name} was called ${this.repeats} times in a row with the same arguments; the result will not change. Try a different approach.`,
      };
    }
    const path = call.arguments.path;
    if (FILE_EDIT_TOOLS.has(call.name) && typeof path === 'string') {
      const count = (this.edits.get(path) ?? 0) + 1;
      this.edits.set(path, count);
      if (count > this.editLimit * 2) {
        return {
          kind: 'deny',
          detectedKind: 'file_churn',
          detail: `${path} has been changed ${count - 1} times this session; further edits are refused. Commit what works and write a progress note.`,
        };
      }
      if (count === this.editLimit + 1) {
        return {
          kind: 'warn',
          detectedKind: 'file_churn',
          detail: `${path} has been changed ${this.editLimit} times this session. Step back: read the file whole and make one deliberate change.`,
        };
      }
    }
    return { kind: 'ok' };
  }
}
