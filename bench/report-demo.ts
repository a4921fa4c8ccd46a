/** The report's sections about the demo runs: handoff latency, orientation, prompt overhead, prefix stability. */
import type { BenchResults } from './results.js';
import { formatSpread, type Spread } from './stats.js';

/** A spread as a table cell, in milliseconds unless `unit` says otherwise. */
export const cell = (value: Spread, unit = ' ms') => formatSpread(value, unit);

/** The demo sections, in report order. */
export function demoSections(results: BenchResults): string[] {
  return [
    handoffSection(results),
    orientationSection(results),
    overheadSection(results),
    prefixSection(results),
  ];
}

function handoffSection(results: BenchResults): string {
  const h = results.demo.handoff;
  const line = (label: string, key: keyof typeof h.all) =>
    `| ${label} | ${cell(h.all[key])} | ${cell(h.toGenerator[key])} | ${cell(h.toEvaluator[key])} |`;
  return [
    '## Handoff latency',
    '',
    `Session end → the next session's first model request, over ${h.all.totalMs.n} handoffs of ${results.demo.runs.length} demo run(s) (${results.demo.runs.map((run) => `${run.sessions} sessions, ${run.requests} requests, ${Math.round(run.wallMs / 1000)} s`).join('; ')}).`,
    '',
    '| part | all | → generator | → evaluator |',
    '|---|---|---|---|',
    line('**total**', 'totalMs'),
    line('git (all harness git processes)', 'gitMs'),
    line('queue (job enqueued → picked)', 'queueMs'),
    line('context assembly (→ evaluator: + app start + browser context)', 'contextMs'),
    line('other (recording, planning, lock, trace save, app stop, send)', 'otherMs'),
    '',
    'The same window as a timeline:',
    '',
    '| segment | all | → generator | → evaluator |',
    '|---|---|---|---|',
    line('close: loop end → result recorded (checkpoint, guard, verdict commit, trace, app stop)', 'closeMs'),
    line('… of which git', 'gitCloseMs'),
    line('advance: result → next job enqueued', 'advanceMs'),
    line('queue: enqueued → picked', 'queueMs'),
    line('claim: picked → session started (run lock, checks)', 'claimMs'),
    line(
      'prepare: started → agent loop started (rollback, backup, first message; app, browser)',
      'prepareMs',
    ),
    line('… of which git', 'gitPrepareMs'),
    line('send: loop started → first request received', 'sendMs'),
    '',
  ].join('\n');
}

function orientationSection(results: BenchResults): string {
  const o = results.demo.orientation;
  return [
    '## Orientation',
    '',
    `Model requests up to and including the one whose reply first writes or edits a file, over ${o.sessions} generator sessions: ${formatSpread(o.requestsBeforeFirstEdit)}, max ${o.maxRequestsBeforeFirstEdit}. Tool calls before it (reads of the files to change): ${formatSpread(o.toolCallsBeforeFirstEdit)}.`,
    '',
    `For comparison, the autonomous-coding quickstart's coding prompt mandates ${o.quickstartMandatedCommands} orientation commands (working directory, listing, spec, feature list, progress notes, git log, remaining count) before any work. nightshift puts the feature, its steps, the last feedback, the progress tail, recent commits, the file list and the remaining count into the first message, so the scripted generator's first request only reads the files it will change. The count measures the scripted policy given that message: a real model may still choose to look around.`,
    '',
  ].join('\n');
}

function overheadSection(results: BenchResults): string {
  const rows = results.demo.promptOverhead.map(
    (role) =>
      `| ${role.role} | ${role.systemTokens} / ${role.systemBytes} | ${role.toolSchemaTokens} / ${role.toolSchemaBytes} (${role.tools.length} tools) | **${role.totalTokens}** | ${role.identicalAcrossRequests ? 'yes' : 'no'} | ${formatSpread(role.firstMessageTokens, '')} |`,
  );
  return [
    '## Fixed prompt overhead per request',
    '',
    '| role | system tokens / bytes | tool schemas tokens / bytes | total tokens | identical in every request | first message tokens (variable part) |',
    '|---|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}

function prefixSection(results: BenchResults): string {
  const p = results.demo.prefixStability;
  return [
    '## Prefix stability',
    '',
    `Share of each request (canonical prompt: tools, system, messages) that is a byte-identical prefix of the next request of the same session, over ${p.pairs} pairs: mean ${p.meanPercent} %, min ${p.minPercent} %, ${formatSpread(p.sharePercent, ' %')}; ${p.pairsBelow95} pair(s) below 95 %.`,
    '',
  ].join('\n');
}
