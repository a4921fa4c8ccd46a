/**
 * The smallest real run, for the scale benchmark: a workspace with one feature and a one-line app; a
 * generator that writes one file and commits; an evaluator that opens the app (first snapshot) and passes
 * it. Two sessions per run, every harness step real (queue, lock, git, guard, app start, browser context).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { roleOf } from '../testkit/policies/demo.js';
import { sequence } from '../testkit/policies.js';
import type { Policy } from '../testkit/types.js';

/** The one feature of a tiny run. */
const FEATURE = {
  id: 'F-001',
  category: 'functional',
  description: 'The page shows the word ok',
  steps: ['Open the app', 'See "ok" on the page'],
  passes: false,
};

const APP = `const http = require('node:http');
http.createServer((req, res) => res.end('<!doctype html><title>tiny</title><h1>ok</h1><button>Go</button>')).listen(Number(process.env.PORT), '127.0.0.1');
`;

/** Writes a committed template workspace (git on `main`) that {@link copyTinyWorkspace} clones per run. */
export function createTinyTemplate(dir: string): void {
  fs.mkdirSync(dir, { recursive: true });
  const files: Record<string, string> = {
    'app_spec.md': '# Tiny\nA page that says ok.\n',
    'feature_list.json': `${JSON.stringify([FEATURE], null, 2)}\n`,
    'progress.md': '# Progress\n',
    'init.sh': '#!/usr/bin/env bash\nexec env PORT="$PORT" node app.js\n',
    'app.js': APP,
    '.gitignore': '*.log\n',
  };
  writeCommittedWorkspace(dir, files, 'tiny workspace');
}

/** Writes `files` into `dir` (init.sh executable) and commits them as a new git repository on `main`. */
export function writeCommittedWorkspace(dir: string, files: Record<string, string>, message: string): void {
  for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), content);
  fs.chmodSync(path.join(dir, 'init.sh'), 0o755);
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@localhost', ...args], {
      cwd: dir,
      stdio: 'ignore',
    });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', message);
}

/** A copy of the template for one run. */
export function copyTinyWorkspace(template: string, dir: string): void {
  fs.cpSync(template, dir, { recursive: true });
}

const generator = sequence([
  (conversation) => ({
    text: 'Writing the note and committing.',
    toolCalls: [
      {
        name: 'write',
        arguments: { path: 'note.txt', content: `done in request ${conversation.requestIndex}\n` },
      },
      { name: 'commit', arguments: { message: 'F-001: note' } },
    ],
  }),
  { text: 'F-001 done and committed.' },
]);

const evaluator = sequence([
  (conversation) => {
    const first = conversation.messages[0]?.content.find((block) => block.type === 'text');
    const url = /Evaluate the app at (\S+)/.exec(first?.type === 'text' ? first.text : '')?.[1] ?? '/';
    return { toolCalls: [{ name: 'browser_navigate', arguments: { url } }] };
  },
  {
    toolCalls: [
      {
        name: 'submit_verdict',
        arguments: {
          feature_id: 'F-001',
          verdict: 'pass',
          steps: [
            { step: 'Open the app', ok: true, evidence: 'the page loaded' },
            { step: 'See "ok" on the page', ok: true, evidence: 'heading "ok" in the snapshot' },
          ],
          issues: [],
        },
      },
    ],
  },
  { text: 'Verdict submitted.' },
]);

/** The tiny runs' model: each request answered after `latencyMs` (a fixed simulated model latency). */
export function tinyPolicy(latencyMs: number): Policy {
  return async (conversation) => {
    if (latencyMs > 0) await sleep(latencyMs);
    const role = roleOf(conversation);
    if (role === 'generator') return generator(conversation);
    if (role === 'evaluator') return evaluator(conversation);
    return { text: 'The tiny benchmark policy plays only the generator and the evaluator.' };
  };
}
