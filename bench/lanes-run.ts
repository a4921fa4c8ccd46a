/**
 * The lanes benchmark's workspace and model: 24 independent features of a one-page app. Each generator writes its
 * feature's own file and commits; every fourth (or every one, in the shared-file variant) also adds its line to one
 * shared route table at the same place, so lanes that run together conflict: the harness merges such additions
 * mechanically (handoff/merge-rules.ts), and a generator resolves any conflict left on its lane. Each evaluator opens the app and passes its feature
 * (its recorded check replays on every merged head). Every request waits a fixed simulated model latency.
 */
import fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { roleOf } from '../testkit/policies/demo.js';
import { conflictedFiles, keepBothSides } from '../testkit/policies/generator.js';
import { fileTextOfRead } from '../testkit/policies/script.js';
import { lastToolResults, turnIndex } from '../testkit/policies.js';
import type { Policy, PolicyReply, ScriptedConversation } from '../testkit/types.js';
import { writeCommittedWorkspace } from './tiny-run.js';

const APP = `const http = require('node:http');
http.createServer((req, res) => res.end('<!doctype html><title>lanes</title><h1>ok</h1>')).listen(Number(process.env.PORT), '127.0.0.1');
`;

/** The shared file (a route table) some features add a line to, all at the same place: above its closing line. */
const SHARED = 'routes.js';
const SHARED_END = '];';

/** Writes a committed workspace (git on `main`) with `count` independent features F-001…. */
export function createLanesWorkspace(dir: string, count: number): void {
  fs.mkdirSync(dir, { recursive: true });
  const features = Array.from({ length: count }, (_, index) => ({
    id: `F-${String(index + 1).padStart(3, '0')}`,
    category: 'functional',
    description: `Feature ${index + 1}: the page shows the word ok`,
    steps: ['Open the app', 'See "ok" on the page'],
    passes: false,
  }));
  const files: Record<string, string> = {
    'app_spec.md': `# Lanes\nA page that says ok, and ${count} independent features.\n`,
    'feature_list.json': `${JSON.stringify(features, null, 2)}\n`,
    'progress.md': '# Progress\n',
    'init.sh': '#!/usr/bin/env bash\nexec env PORT="$PORT" node app.js\n',
    'app.js': APP,
    [SHARED]: `const routes = [\n  '/',\n${SHARED_END}\nmodule.exports = routes;\n`,
    '.gitignore': '*.log\n',
  };
  writeCommittedWorkspace(dir, files, 'lanes workspace');
}

function firstText(conversation: ScriptedConversation): string {
  const first = conversation.messages[0]?.content.find((block) => block.type === 'text');
  return first?.type === 'text' ? first.text : '';
}

function featureOf(conversation: ScriptedConversation): string {
  return /F-\d{3}/.exec(firstText(conversation))?.[0] ?? 'F-001';
}

function generator(conversation: ScriptedConversation, sharedEvery: number): PolicyReply {
  const featureId = featureOf(conversation);
  const turn = turnIndex(conversation);
  const conflicted = conflictedFiles(firstText(conversation));
  if (conflicted.length > 0) {
    if (turn === 0)
      return { toolCalls: conflicted.map((file) => ({ name: 'read', arguments: { path: file } })) };
    if (turn === 1) {
      const reads = lastToolResults(conversation);
      return {
        toolCalls: [
          ...conflicted.map((file, index) => ({
            name: 'write',
            arguments: { path: file, content: `${keepBothSides(fileTextOfRead(blockText(reads[index])))}\n` },
          })),
          { name: 'commit', arguments: { message: `${featureId}: resolve merge conflicts` } },
        ],
      };
    }
    return { text: `${featureId}: conflicts resolved and committed.` };
  }
  if (turn > 0) return { text: `${featureId} done and committed.` };
  const shares = Number(featureId.slice(2)) % sharedEvery === 0;
  return {
    text: `Implementing ${featureId}.`,
    toolCalls: [
      { name: 'write', arguments: { path: `features/${featureId}.txt`, content: `${featureId} is done\n` } },
      ...(shares
        ? [
            {
              name: 'bash',
              arguments: { command: `sed -i "s|^${SHARED_END}$|  '/${featureId}',\\n&|" ${SHARED}` },
            },
          ]
        : []),
      { name: 'commit', arguments: { message: `${featureId}: its file` } },
    ],
  };
}

function blockText(block: { content: unknown } | undefined): string {
  const content = block?.content;
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content
      .map((part) => (part && typeof part === 'object' && 'text' in part ? String(part.text) : ''))
      .join('');
  return '';
}

function evaluator(conversation: ScriptedConversation): PolicyReply {
  const turn = turnIndex(conversation);
  const featureId = featureOf(conversation);
  if (turn === 0) {
    const url = /Evaluate the app at (\S+)/.exec(firstText(conversation))?.[1] ?? '/';
    return { toolCalls: [{ name: 'browser_navigate', arguments: { url } }] };
  }
  if (turn === 1) {
    return {
      toolCalls: [
        {
          name: 'submit_verdict',
          arguments: {
            feature_id: featureId,
            verdict: 'pass',
            steps: [
              { step: 'Open the app', ok: true, evidence: 'the page opened and shows the heading "ok"' },
              { step: 'See "ok" on the page', ok: true, evidence: 'heading "ok" in the snapshot' },
            ],
            issues: [],
          },
        },
      ],
    };
  }
  return { text: 'Verdict submitted.' };
}

/**
 * The lanes benchmark's model: each request answered after `latencyMs`; every `sharedEvery`-th feature's generator
 * also adds its route to the shared route table (1: every feature).
 */
export function lanesPolicy(latencyMs: number, sharedEvery = 4): Policy {
  return async (conversation) => {
    if (latencyMs > 0) await sleep(latencyMs);
    const role = roleOf(conversation);
    if (role === 'generator') return generator(conversation, sharedEvery);
    if (role === 'evaluator') return evaluator(conversation);
    return { text: 'The lanes benchmark policy plays only the generator and the evaluator.' };
  };
}
