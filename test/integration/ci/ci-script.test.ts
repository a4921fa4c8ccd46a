// .ci/run: static checks, CI mode for the sandbox suites, and exactly the README's Quick start — the last checked
// by scripts/check-readme.sh, which these tests run against the repository and against broken copies of it.
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const CI_RUN = readFileSync(path.join(ROOT, '.ci/run'), 'utf8');
const run = promisify(execFile);

async function checkReadme(root: string): Promise<{ code: number; stderr: string }> {
  try {
    const { stderr } = await run('bash', [path.join(root, 'scripts/check-readme.sh'), root]);
    return { code: 0, stderr };
  } catch (error) {
    const failed = error as { code: number; stderr: string };
    return { code: failed.code, stderr: failed.stderr };
  }
}

describe('.ci/run', () => {
  const copies: string[] = [];
  afterEach(() => {
    for (const dir of copies.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  /** A copy of what check-readme reads, with README.md or .ci/run changed by `edit`. */
  const brokenCopy = (file: 'README.md' | '.ci/run', edit: (text: string) => string) => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'ns-ci-'));
    copies.push(dir);
    for (const part of ['README.md', 'scripts', '.ci'])
      cpSync(path.join(ROOT, part), path.join(dir, part), { recursive: true });
    writeFileSync(path.join(dir, file), edit(readFileSync(path.join(ROOT, file), 'utf8')));
    return dir;
  };

  it('runs biome and tsc, in CI mode, and mentions only scripts that exist', () => {
    expect(CI_RUN).toMatch(/^npm run lint$/m);
    const lint = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts.lint as string;
    expect(lint).toMatch(/biome check \./);
    expect(lint).toMatch(/tsc --noEmit/);
    expect(CI_RUN).toMatch(/^export NIGHTSHIFT_CI=1$/m);
    // The chaos suite runs in CI too, after the README's commands, so a regression in recovery cannot land.
    expect(CI_RUN).toMatch(/^bash scripts\/readme-commands\.sh\n[\s\S]*^npm run test:chaos$/m);
    for (const [script] of CI_RUN.matchAll(/scripts\/[\w.-]+\.sh/g))
      expect(() => readFileSync(path.join(ROOT, script)), script).not.toThrow();
  });

  it("runs exactly the README's Quick start commands (scripts/check-readme.sh passes)", async () => {
    const result = await checkReadme(ROOT);
    expect(result.stderr).toMatch(/CI runs the README's 2 Quick start command\(s\)/);
    expect(result.code).toBe(0);
  });

  it('fails when a Quick start line would not run, or the block or the call is missing', async () => {
    const prose = brokenCopy('README.md', (t) =>
      t.replace('$ ./scripts/setup.sh && npm test', './scripts/setup.sh && npm test'),
    );
    expect((await checkReadme(prose)).stderr).toMatch(
      /not a `\$ command`, so CI would not run it: \.\/scripts\/setup\.sh && npm test/,
    );
    const unmarked = brokenCopy('README.md', (t) => t.replace('<!-- quickstart:start -->', ''));
    expect(await checkReadme(unmarked)).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/no <!-- quickstart:start -->/),
    });
    const skipped = brokenCopy('.ci/run', (t) =>
      t.replace(/^bash scripts\/readme-commands\.sh$/m, 'npm test'),
    );
    expect(await checkReadme(skipped)).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/does not run `bash scripts\/readme-commands.sh`/),
    });
  });
});
