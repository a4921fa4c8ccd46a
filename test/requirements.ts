// What a suite does when something it needs from the machine is missing (bubblewrap, a pids cgroup, …): on a
// developer's machine it is skipped with a warning; on CI (`CI` or `NIGHTSHIFT_CI`, which .ci/run sets) it fails
// with the reason, because a suite that skips there proves nothing.

/** True on CI: `.ci/run` sets NIGHTSHIFT_CI=1, CI services set CI=true. */
export function onCi(env: NodeJS.ProcessEnv = process.env): boolean {
  return [env.CI, env.NIGHTSHIFT_CI].some(
    (value) => value !== undefined && value !== '' && value !== 'false' && value !== '0',
  );
}

/** A requirement of a suite: whether to skip it here, and a check that fails it on CI when the requirement is missing. */
export interface Requirement {
  /** Pass to `describe.skipIf` / `it.skipIf`. */
  skip: boolean;
  /** Call first in the suite (`beforeAll`) or test: throws on CI when the requirement is missing. */
  check(): void;
}

/** Declares that a suite needs `what`; `why` says why it is missing and how to get it. */
export function requirement(
  what: string,
  available: boolean,
  why: string,
  env: NodeJS.ProcessEnv = process.env,
): Requirement {
  if (available) return { skip: false, check: () => undefined };
  if (!onCi(env)) {
    process.stderr.write(`skipping tests that need ${what}: ${why}\n`);
    return { skip: true, check: () => undefined };
  }
  return {
    skip: false,
    check: () => {
      throw new Error(`${what} is required on CI and missing: ${why}`);
    },
  };
}
