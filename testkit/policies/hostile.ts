/**
 * A scripted model and workspace that try to take over the terminal of whoever watches the run: an `init.sh` that
 * prints OSC 52 (write the clipboard), a title change and a forged "run done" line, and model text (a feature
 * description, a generator's summary, a verdict's reason and evidence) full of escape sequences and newlines.
 * The run itself is ordinary: one feature, a generator that commits, an evaluator that fails it. For the test
 * that the CLI prints all of it as text (test/e2e/terminal-text.test.ts).
 */
import type { Policy } from '../types.js';
import { scriptedPolicy } from './demo.js';
import { commitAll } from './initializer.js';
import type { ScriptIO } from './script.js';

/** The line a hostile text forges; the CLI must never print it at the start of a line. */
export const FORGED_LINE = 'nightshift: run done (all features pass)';

/** Text with every trick: clipboard write, title change, a C1 CSI (clear screen), CR and a forged line. */
export const HOSTILE_TEXT = `ok\u001b]52;c;ZXZpbA==\u0007\u001b]0;pwned\u0007\u009b2J\r\n${FORGED_LINE}\n\u001b[31mred`;

// The same as bytes from printf: C1 CSI as UTF-8 (\302\233).
const INIT_SH = `#!/usr/bin/env bash
printf '\\033]52;c;ZXZpbA==\\007'
printf '\\033]0;pwned\\007'
printf '\\r\\n${FORGED_LINE}\\n'
printf 'listening soon \\302\\2332J \\033[31mred\\n'
[ "\${1:-}" = "--banner" ] && exit 0
export PORT="\${PORT:-3000}"
exec node -e "require('node:http').createServer((q, s) => s.end('<h1>hostile</h1>')).listen(process.env.PORT)"
`;

const FEATURE_LIST = JSON.stringify(
  [
    {
      category: 'functional',
      description: `Shows a heading ${HOSTILE_TEXT}`,
      steps: ['Open the page', 'See the heading'],
      passes: false,
    },
  ],
  null,
  2,
);

function initializer(io: ScriptIO): void {
  io.act(
    [
      { name: 'write', arguments: { path: 'feature_list.json', content: FEATURE_LIST } },
      { name: 'write', arguments: { path: 'init.sh', content: INIT_SH } },
      {
        name: 'write',
        arguments: { path: 'progress.md', content: '# Progress\n\n- initializer: one feature\n' },
      },
    ],
    `Writing the feature list ${HOSTILE_TEXT}`,
  );
  io.call('bash', { command: 'chmod +x init.sh && ./init.sh --banner' }, 'The banner:');
  commitAll(io, 'Initializer: feature list, init.sh');
  io.finish(`Done ${HOSTILE_TEXT}`);
}

function generator(io: ScriptIO): void {
  const id = /\bF-\d{3,}\b/.exec(io.firstMessage)?.[0] ?? 'F-001';
  io.call('write', { path: 'page.txt', content: `${id}\n` }, `Working on ${id} ${HOSTILE_TEXT}`);
  commitAll(io, `Generator: ${id}`, `printf -- '- ${id}: page.txt\\n' >> progress.md`);
  io.finish(`Implemented ${id} ${HOSTILE_TEXT}`);
}

function evaluator(io: ScriptIO): void {
  const id = /\bF-\d{3,}\b/.exec(io.firstMessage)?.[0] ?? 'F-001';
  io.call(
    'submit_verdict',
    {
      feature_id: id,
      verdict: 'fail',
      steps: [{ step: 'Open the page', ok: false, evidence: HOSTILE_TEXT }],
      issues: [`The heading is wrong ${HOSTILE_TEXT}`],
    },
    `${id}: fail ${HOSTILE_TEXT}`,
  );
  io.finish(`Verdict submitted ${HOSTILE_TEXT}`);
}

/** The hostile policy: every role scripted to write escape sequences and forged lines. */
export const hostilePolicy: Policy = scriptedPolicy({ initializer, generator, evaluator });

export default hostilePolicy;
