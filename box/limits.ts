/** Resource limits of a box when the caller sets none (config: `sandbox.memoryMiB`, `sandbox.fileSizeMiB`). */
export const BOX_LIMIT_DEFAULTS = {
  /** `ulimit -u`, and the pids cgroup's cap when one can be made. */
  maxProcesses: 512,
  /** `ulimit -f`: the largest file one process may write. */
  maxFileSizeBytes: 1024 ** 3,
  /** The memory cgroup's cap (all processes) when one can be made, and `ulimit -d` (each process). */
  maxMemoryBytes: 2 * 1024 ** 3,
} as const;
