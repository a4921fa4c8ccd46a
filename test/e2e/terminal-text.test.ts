import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FORGED_LINE } from '../../testkit/policies/hostile.js';
import {
  cliEnv,
  createE2eContext,
  type E2eContext,
  ROOT,
  runCliOnce,
  startScriptedServer,
  writeConfig,
} from './helpers.js';

// A hostile workspace and model (testkit/policies/hostile.ts) against the real CLI: init.sh prints OSC 52, a title
// change and a forged "run done" line; the feature description, the generator's text and the verdict carry escape
// sequences and newlines. Whatever the CLI prints about the run, it prints as text.
let context: E2eContext;
beforeAll(() => {
  context = createE2eContext('terminal');
});
afterAll(() => context.close());

// What a terminal could obey: C0 but tab and newline (CR included), DEL, C1.
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
// Our own lines may carry a timestamp (stderr in a log) before the text.
const FORGED_AT_LINE_START = new RegExp(
  `^(\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ )?${FORGED_LINE.replace(/[()]/g, '\\$&')}`,
  'm',
);

/** The problems of one command's output: raw control characters, a forged line at a line start. */
function hostileProblems(label: string, out: { stdout: string; stderr: string }): string[] {
  const problems: string[] = [];
  for (const [stream, text] of Object.entries({ stdout: out.stdout, stderr: out.stderr })) {
    const raw = RAW_CONTROL.exec(text);
    if (raw) {
      const around = JSON.stringify(text.slice(Math.max(0, raw.index - 60), raw.index + 20));
      problems.push(
        `${label} ${stream}: raw U+${raw[0].charCodeAt(0).toString(16).padStart(4, '0')} in ${around}`,
      );
    }
    const forged = FORGED_AT_LINE_START.exec(text);
    if (forged)
      problems.push(`${label} ${stream}: forged line at a line start: ${JSON.stringify(forged[0])}`);
  }
  return problems;
}

describe('terminals show text, not commands', () => {
  it('a hostile run, its status, runs, logs and transcripts print escaped, with no forged line', async () => {
    const server = await startScriptedServer(context, path.join(ROOT, 'testkit/policies/hostile.ts'));
    const configFile = writeConfig(context, {
      budgets: { maxAttemptsPerFeature: 1, maxInitializerAttempts: 1 },
    });
    const env = cliEnv(context, {
      home: path.join(context.root, 'home'),
      configFile,
      anthropicBaseURL: server.anthropicBaseURL,
    });
    const spec = path.join(context.root, 'app_spec.md');
    fs.writeFileSync(spec, '# Hostile\n\nA page with a heading.\n');
    const workspace = path.join(context.root, 'hostile');

    const run = await runCliOnce(['run', spec, '--workspace', workspace], env);
    const runId = /run (r-[A-Za-z0-9_-]+): workspace/.exec(run.stderr)?.[1] as string;
    expect(runId, run.stderr.slice(-3_000)).toBeDefined();
    // The hostile text did reach the output (the test is not vacuous), shown as text on one line.
    expect(run.stderr).toMatch(
      /run incomplete: .*last issues: The heading is wrong ok\\x1b\]52;c;ZXZpbA==\\x07/,
    );
    expect(run.stderr).toContain(`\\x1b]0;pwned\\x07\\u009b2J ${FORGED_LINE}`);

    const outputs: Record<string, { code: number; stdout: string; stderr: string }> = { run };
    for (const args of [
      ['status', runId],
      ['status', runId, '--json'],
      ['runs'],
      ['logs', runId],
      ['logs', runId, '--session', '1'],
      ['logs', runId, '--session', '2'],
      ['logs', runId, '--session', '3'],
    ]) {
      outputs[args.join(' ')] = await runCliOnce(args, env);
    }
    for (const [label, out] of Object.entries(outputs)) {
      expect(out.code, `${label}: ${out.stderr.slice(-2_000)}`).toBeLessThanOrEqual(1);
    }
    const problems = Object.entries(outputs).flatMap(([label, out]) => hostileProblems(label, out));
    expect(problems).toEqual([]);

    // init.sh's own output (run by the initializer) reaches the transcript as text.
    const transcript = outputs[`logs ${runId} --session 1`]?.stdout ?? '';
    expect(transcript).toContain('\\x1b]52;c;ZXZpbA==\\x07');
    // status --json stays JSON and means the same text: the blocked reason with its escape sequences.
    const json = JSON.parse(outputs[`status ${runId} --json`]?.stdout ?? '') as {
      blocked: Array<{ featureId: string; reason: string }>;
    };
    expect(json.blocked[0]?.reason).toContain('\u001b]0;pwned\u0007\u009b2J');
  }, 600_000);
});
