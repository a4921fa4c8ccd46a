/**
 * What was worked out from a file, kept while the file stays the same (same size and modification time, to the
 * nanosecond), so a step that reads every file of the app each time (the merge queue's selection of checks: every
 * source file's imports, every passing feature's check) reads only the files that changed since the last time.
 */
import { lstat } from 'node:fs/promises';

/** Values per absolute path, each valid while its file's size and modification time are unchanged. */
export class FileMemo<T> {
  private readonly entries = new Map<string, { stamp: string; value: T }>();

  /** `limit`: most files kept; past it the memo starts over (a bound, not a cache policy: apps are smaller). */
  constructor(private readonly limit = 50_000) {}

  /**
   * The value for `file`: the kept one while the file is unchanged, else `compute()`'s (kept for next time). A file
   * that is not a regular one or cannot be looked at (gone, a link) is computed every time and not kept.
   */
  async get(file: string, compute: () => Promise<T>): Promise<T> {
    const info = await lstat(file, { bigint: true }).catch(() => undefined);
    // A link's own times say nothing of its target: only regular files are kept.
    if (!info?.isFile()) return compute();
    const stamp = `${info.size}:${info.mtimeNs}:${info.ino}`;
    const kept = this.entries.get(file);
    if (kept?.stamp === stamp) return kept.value;
    const value = await compute();
    if (this.entries.size >= this.limit) this.entries.clear();
    this.entries.set(file, { stamp, value });
    return value;
  }
}
